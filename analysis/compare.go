package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// SpeedupInterval is baseline time / candidate time bounded by two given
// median intervals: the ratio of the medians, from lo = base.Lo/cand.Hi to
// hi = base.Hi/cand.Lo. Its coverage is at least 1-(a+b) where a and b are
// the two intervals' miss rates (Bonferroni); RatioInterval picks them so
// the ratio's is the requested confidence. An unbounded side stays
// unbounded.
func SpeedupInterval(base, cand Interval) Interval {
	iv := Interval{N: min(base.N, cand.N)}
	if base.Center <= 0 || cand.Center <= 0 {
		return iv
	}
	iv.Center = base.Center / cand.Center
	iv.Lo, iv.Hi = 0, Unbounded
	if cand.Hi > 0 && cand.Hi != Unbounded && base.Lo > 0 {
		iv.Lo = base.Lo / cand.Hi
	}
	if cand.Lo > 0 && base.Hi != Unbounded {
		iv.Hi = base.Hi / cand.Lo
	}
	return iv
}

// RatioInterval is base/cand (medians of two timing samples, ms) with an
// interval of at least the given confidence: each median's order-statistic
// interval at 1-(1-confidence)/2 (97.5% for 95%), bounded as
// SpeedupInterval does, so the two miss together at most 1-confidence
// of the time (Bonferroni). In practice it covers more: a claim that
// clears it clears it comfortably. The warnings are the per-sample ones
// at that level (few-samples where a sample is too small to bound it).
func RatioInterval(base, cand []float64, confidence float64) (Interval, []Warning) {
	each := 1 - (1-confidence)/2
	b, wb := SummarizeMs(base, each)
	c, wc := SummarizeMs(cand, each)
	return SpeedupInterval(b, c), append(wb, wc...)
}

// Comparisons compares every candidate of every experiment with its
// baseline at each shape where both cells have data. Reference variants are
// never compared.
func Comparisons(cells []CellFact, exps []*spec.Experiment, opts Options) []Comparison {
	opts = opts.withDefaults()
	idx := map[cellkey.Key]*CellFact{}
	for i := range cells {
		c := &cells[i]
		idx[c.Key()] = c
	}
	var out []Comparison
	for _, e := range exps {
		for _, shape := range e.AllShapes() {
			for _, v := range e.Variants {
				if v.Role != spec.RoleCandidate {
					continue
				}
				// Each candidate against the baseline of its direction
				// (forward, or forward+backward).
				bc := idx[cellkey.New(e.Name, e.BaselineFor(v.Name), shape)]
				if bc == nil || bc.Status != "ok" {
					continue
				}
				cc := idx[cellkey.New(e.Name, v.Name, shape)]
				if cc == nil || cc.Status != "ok" {
					continue
				}
				out = append(out, compare(e.Name, shape, bc, cc, opts))
			}
		}
	}
	return out
}

// CompareCells compares candidate cell c with baseline cell b at one shape:
// the wall-time speedup with its interval and U test (Stats.Compare), the
// DRAM ratio, the kernel delta, and the warnings that bear on them.
func CompareCells(exp, shape string, b, c *CellFact, opts Options) Comparison {
	return compare(exp, shape, b, c, opts.withDefaults())
}

func compare(exp, shape string, b, c *CellFact, opts Options) Comparison {
	cmp := Comparison{Experiment: exp, Shape: shape, Baseline: b.Variant, Candidate: c.Variant,
		KernelDelta: c.Kernels - b.Kernels, P: 1}
	if len(b.WallSamplesMs) > 0 && len(c.WallSamplesMs) > 0 {
		sc := opts.Stats().Compare(b.WallSamplesMs, c.WallSamplesMs)
		cmp.Speedup, cmp.P, cmp.Significant = sc.Speedup, sc.P, sc.Significant
		for _, w := range sc.Warnings {
			if w.Metric == "speedup" { // the cells' own sample warnings are on the cells
				cmp.Warnings = append(cmp.Warnings, w)
			}
		}
	} else {
		cmp.Warnings = append(cmp.Warnings, Warning{Code: WarnMissing, Metric: "speedup", Msg: "a cell has no timing samples"})
	}
	switch {
	case b.DRAMBytesRange > 0 && c.DRAMBytesRange > 0:
		cmp.DRAMRatio = c.DRAMBytesRange / b.DRAMBytesRange
	case b.DRAMBytesKernels > 0 && c.DRAMBytesKernels > 0:
		cmp.DRAMRatio = c.DRAMBytesKernels / b.DRAMBytesKernels
		cmp.Warnings = append(cmp.Warnings, Warning{Code: WarnMissing, Metric: "dram_reduction",
			Msg: "no range-pass DRAM bytes: ratio of kernel-pass sums (caches flushed before each kernel: not the bytes of the chain as it runs)"})
	default:
		cmp.Warnings = append(cmp.Warnings, Warning{Code: WarnMissing, Metric: "dram_reduction", Msg: "no DRAM bytes for one of the cells"})
	}
	if cmp.DRAMRatio > 0 {
		cmp.DRAMReduction = 1 - cmp.DRAMRatio
	}
	l2 := false
	for _, cf := range []*CellFact{b, c} {
		for _, w := range cf.Warnings {
			switch {
			case w.Code == WarnL2Resident && !l2:
				l2 = true
				cmp.Warnings = append(cmp.Warnings, Warning{Code: WarnL2Resident, Metric: "dram_reduction", Msg: w.Msg})
			case w.Code == WarnHostBound || w.Code == WarnBimodal:
				// The speedup rests on these samples: a sweep does not
				// announce a win or crossover built on them.
				cmp.Warnings = append(cmp.Warnings, w)
			}
		}
	}
	return cmp
}

// Crossovers names, for every sweep of every experiment and every candidate,
// where along the sweep the candidate starts or stops winning: it wins at a
// shape when the speedup is significant (Mann-Whitney) and above 1. Sweeps
// where the candidate wins everywhere or nowhere have no crossover and are
// left out.
func Crossovers(cmps []Comparison, exps []*spec.Experiment) []Crossover {
	idx := map[cellkey.Key]Comparison{} // by candidate cell
	for _, c := range cmps {
		idx[c.CandidateKey()] = c
	}
	var out []Crossover
	for _, e := range exps {
		for _, sw := range e.Sweeps {
			for _, v := range e.Variants {
				if v.Role != spec.RoleCandidate {
					continue
				}
				type pt struct {
					val  int64
					wins bool
				}
				var pts []pt
				var shaky []string // sweep points whose speedup rests on host-bound or bimodal samples
				for _, s := range sw.Shapes {
					c, ok := idx[cellkey.New(e.Name, v.Name, s)]
					if !ok {
						continue
					}
					vars, err := spec.ParseShape(s)
					if err != nil {
						continue
					}
					pts = append(pts, pt{vars[sw.Var], c.Significant && c.Speedup.Center > 1})
					if codes := unreliableTiming(c); codes != "" {
						shaky = append(shaky, fmt.Sprintf("%s=%d (%s)", sw.Var, vars[sw.Var], codes))
					}
				}
				if len(pts) < 2 {
					continue
				}
				sort.SliceStable(pts, func(i, j int) bool { return pts[i].val < pts[j].val })
				nw := 0
				for _, p := range pts {
					if p.wins {
						nw++
					}
				}
				if nw == 0 || nw == len(pts) {
					continue
				}
				// A prefix or a suffix of wins gives one threshold; anything
				// else lists where it wins.
				prefix, suffix := true, true
				for i, p := range pts {
					if p.wins != (i < nw) {
						prefix = false
					}
					if p.wins != (i >= len(pts)-nw) {
						suffix = false
					}
				}
				var text string
				switch {
				case prefix:
					text = fmt.Sprintf("%s wins for %s <= %d", v.Name, sw.Var, pts[nw-1].val)
				case suffix:
					text = fmt.Sprintf("%s wins for %s >= %d", v.Name, sw.Var, pts[len(pts)-nw].val)
				default:
					var at []string
					for _, p := range pts {
						if p.wins {
							at = append(at, fmt.Sprint(p.val))
						}
					}
					text = fmt.Sprintf("%s wins for %s in {%s}", v.Name, sw.Var, strings.Join(at, ", "))
				}
				x := Crossover{Experiment: e.Name, Sweep: sw.Name, Var: sw.Var,
					Candidate: v.Name, Baseline: e.BaselineFor(v.Name), Text: text}
				if len(shaky) > 0 {
					x.Unreliable = "rests on timing that is not GPU work at " + strings.Join(shaky, ", ")
				}
				out = append(out, x)
			}
		}
	}
	return out
}

// analyzeIndexed is Analyze on the metrics of t indexed by kernel, which
// every step reads.
func analyzeIndexed(t *ingest.Tables, byKernel metricIndex, exps []*spec.Experiment, opts Options) (*Run, error) {
	if t == nil {
		return nil, fmt.Errorf("analyze: no tables")
	}
	opts = opts.withDefaults()
	roofs := opts.Ceilings
	if len(roofs.Items) == 0 {
		dev := deviceCeilings(t, byKernel)
		roofs.Items = dev.Items
		if roofs.GPU == "" {
			roofs.GPU = dev.GPU
		}
		if roofs.L2Bytes == 0 {
			roofs.L2Bytes = dev.L2Bytes
		}
	}
	run := &Run{GPU: roofs.GPU, Ceilings: roofs}
	if run.GPU == "" {
		for _, g := range t.GPUs() {
			if g.Name != "" {
				run.GPU = g.Name
				break
			}
		}
	}
	if len(roofs.Items) == 0 {
		run.Warnings = append(run.Warnings, Warning{Code: WarnMissing, Metric: "pct_of_roof",
			Msg: "no ceilings: the export states no peaks and no GPU was named; % of roof is left out"})
	}
	run.Kernels = kernelFacts(t, byKernel, roofs, opts)
	run.Cells = cellFacts(t, byKernel, run.Kernels, exps, roofs, opts)
	run.Comparisons = Comparisons(run.Cells, exps, opts)
	run.Crossovers = Crossovers(run.Comparisons, exps)
	run.Warnings = append(run.Warnings, clockWarnings(t, byKernel, ClockTolPasses, MaskOf(opts.Manifest))...)
	// Run-level summary of missing kernel metrics (one line per kind).
	missing := map[string]int{}
	for _, f := range run.Kernels {
		for _, w := range f.Warnings {
			if w.Code == WarnMissing {
				if i := strings.Index(w.Msg, " lacks "); i >= 0 {
					missing[w.Msg[i+len(" lacks "):]]++
				}
			}
		}
	}
	for _, m := range sortedKeys(missing) {
		run.Warnings = append(run.Warnings, Warning{Code: WarnMissing, Metric: "kernel",
			Msg: fmt.Sprintf("%d of %d ncu kernels lack %s", missing[m], len(run.Kernels), m)})
	}
	for i := range run.Kernels {
		for k, v := range run.Kernels[i].PctOfRoof {
			if math.IsNaN(v) {
				delete(run.Kernels[i].PctOfRoof, k)
			}
		}
	}
	return run, nil
}

// unreliableTiming lists the codes of a comparison's warnings that make its
// wall-time speedup unfit to announce (host-bound, bimodal), or "".
func unreliableTiming(c Comparison) string {
	seen := map[string]bool{}
	var codes []string
	for _, w := range c.Warnings {
		if (w.Code == WarnHostBound || w.Code == WarnBimodal) && !seen[w.Code] {
			seen[w.Code] = true
			codes = append(codes, w.Code)
		}
	}
	return strings.Join(codes, ", ")
}
