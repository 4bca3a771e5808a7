package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// PairKey names a paired record's launch: the claim's baseline and
// candidate at one shape, timed with one launch method ("eager", "graph").
type PairKey struct{ Experiment, Shape, Baseline, Candidate, Launch string }

// Paired is the speedup baseline / candidate of one paired record's launch
// (METHOD.md, "Paired timing"): per pair r = ln(baseline / candidate);
// Speedup is exp of the median of r and of its distribution-free interval
// (order statistics, PairedSpeedup), over the pairs whose two halves ran at
// SM clocks within ClockTolPairs of each other. Error says why the launch
// has no pairs (a graph that could not be captured).
type Paired struct {
	Key PairKey `json:"-"`
	// Speedup over the pairs kept; N is their count.
	Speedup Interval `json:"speedup"`
	// Pairs is how many pairs the record holds; ClockVoided how many of
	// them were left out because their halves' SM clocks differ by more
	// than ClockTolPairs; MaxClockGap the largest relative gap between the
	// halves of a pair kept (0 where the clocks were not read).
	Pairs       int     `json:"pairs"`
	ClockVoided int     `json:"clock_voided"`
	MaxClockGap float64 `json:"max_clock_gap"`
	// MinMHz/MaxMHz span the SM clocks of every block kept.
	MinMHz float64 `json:"min_mhz,omitempty"`
	MaxMHz float64 `json:"max_mhz,omitempty"`
	Error  string  `json:"error,omitempty"`
	// Warnings: too few pairs for an interval (few-samples).
	Warnings []Warning `json:"warnings,omitempty"`
}

// ClockTolPairs is how far apart (relative) the SM clocks of a pair's two
// halves may be before the pair is left out of the paired speedup.
const ClockTolPairs = ClockTolCells

// PairedSpeedup is the median of the per-pair ratios base[i] / cand[i] with
// its distribution-free confidence interval: the ratios' logarithms
// summarised as timing samples are (SummarizeMs: median, and the order
// statistics of the binomial(n, 1/2) interval), then exponentiated. Too
// few pairs leave the interval unbounded (Lo 0, Hi Unbounded) with a
// few-samples warning.
func PairedSpeedup(base, cand []float64, confidence float64) (Interval, []Warning) {
	n := min(len(base), len(cand))
	if n == 0 {
		return Interval{}, nil
	}
	r := make([]float64, n)
	for i := range n {
		r[i] = math.Log(base[i] / cand[i])
	}
	iv, ws := SummarizeMs(r, confidence)
	out := Interval{Center: math.Exp(iv.Center), Lo: 0, Hi: Unbounded, N: n}
	if iv.Hi != Unbounded {
		out.Lo, out.Hi = math.Exp(iv.Lo), math.Exp(iv.Hi)
	}
	for i := range ws {
		ws[i].Metric = "speedup"
	}
	return out, ws
}

// PairedSpeedups gathers the paired records of the tables (timing rows of
// method paired:<launch>, their clock meta rows) and computes each
// launch's speedup. Pairs of a cell whose timing pass mask leaves out are
// dropped with it.
func PairedSpeedups(t *ingest.Tables, mask PassMask, confidence float64) map[PairKey]*Paired {
	type rec struct{ exp, shape, file string }
	type arm struct {
		variant string
		ms      map[int32]float64
	}
	type launchRows struct {
		arms map[string]*arm // variant -> its rows
	}
	byRec := map[rec]map[string]*launchRows{}
	shapeOf := map[string]string{} // exp/variant/file -> shape
	for _, tm := range t.Timings() {
		if !ingest.IsPairedTiming(tm.Method) || mask.Masked(tm.Key(), rundir.PassTiming) {
			continue
		}
		k := rec{tm.Experiment, tm.Shape, tm.File}
		launch := strings.TrimPrefix(tm.Method, ingest.PairedMethodPrefix)
		if byRec[k] == nil {
			byRec[k] = map[string]*launchRows{}
		}
		lr := byRec[k][launch]
		if lr == nil {
			lr = &launchRows{arms: map[string]*arm{}}
			byRec[k][launch] = lr
		}
		a := lr.arms[tm.Variant]
		if a == nil {
			a = &arm{variant: tm.Variant, ms: map[int32]float64{}}
			lr.arms[tm.Variant] = a
		}
		a.ms[tm.Rep] = tm.Ms
		shapeOf[tm.Experiment+"/"+tm.Variant+"/"+tm.File] = tm.Shape
	}
	// Roles, clocks and errors from the meta rows (File exp/variant/file).
	role := map[string]string{}             // exp/variant/file|launch -> baseline|candidate
	clock := map[string]map[int32]float64{} // exp/variant/file|launch -> rep -> MHz
	errs := map[string]string{}             // exp/variant/file|launch -> error
	for _, m := range t.Metas() {
		if m.Source != ingest.SourceTiming || !strings.HasPrefix(m.Key, ingest.MetaPaired) {
			continue
		}
		rest := strings.TrimPrefix(m.Key, ingest.MetaPaired)
		launch, what, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		id := m.File + "|" + launch
		switch {
		case what == "role":
			role[id] = m.Value
		case what == "error":
			errs[id] = m.Value
		case strings.HasSuffix(what, ".sm_mhz"):
			rep, err := strconv.Atoi(strings.TrimSuffix(what, ".sm_mhz"))
			v, err2 := strconv.ParseFloat(m.Value, 64)
			if err != nil || err2 != nil || v <= 0 {
				continue
			}
			if clock[id] == nil {
				clock[id] = map[int32]float64{}
			}
			clock[id][int32(rep)] = v
		}
	}
	out := map[PairKey]*Paired{}
	for k, launches := range byRec {
		for launch, lr := range launches {
			var base, cand *arm
			for v, a := range lr.arms {
				switch role[k.exp+"/"+v+"/"+k.file+"|"+launch] {
				case "baseline":
					base = a
				case "candidate":
					cand = a
				}
			}
			if base == nil || cand == nil {
				continue
			}
			pk := PairKey{k.exp, k.shape, base.variant, cand.variant, launch}
			bc := clock[k.exp+"/"+base.variant+"/"+k.file+"|"+launch]
			cc := clock[k.exp+"/"+cand.variant+"/"+k.file+"|"+launch]
			out[pk] = pairedOf(pk, base.ms, cand.ms, bc, cc, confidence)
		}
	}
	// Launches that have only an error (no rows).
	for id, e := range errs {
		file, launch, _ := strings.Cut(id, "|")
		if role[id] != "candidate" {
			continue
		}
		exp, rest, _ := strings.Cut(file, "/")
		cand, name, _ := strings.Cut(rest, "/")
		var base string
		for oid, r := range role {
			of, ol, _ := strings.Cut(oid, "|")
			oe, orest, _ := strings.Cut(of, "/")
			ov, oname, _ := strings.Cut(orest, "/")
			if r == "baseline" && ol == launch && oe == exp && oname == name {
				base = ov
			}
		}
		shape := shapeOf[file]
		if shape == "" {
			shape = pairedShape(name, base, cand)
		}
		pk := PairKey{exp, shape, base, cand, launch}
		if base == "" || shape == "" || out[pk] != nil {
			continue
		}
		out[pk] = &Paired{Key: pk, Error: e}
	}
	return out
}

// pairedShape reads the shape from a paired record's file name,
// "<baseline>~<candidate>~<shape>.json" (kernels/common/paired.py).
func pairedShape(file, base, cand string) string {
	p := base + "~" + cand + "~"
	if !strings.HasPrefix(file, p) || !strings.HasSuffix(file, ".json") {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(file, p), ".json")
}

// pairedOf computes one launch's Paired from its arms' samples and clocks
// by pair index; a pair whose halves' clocks (both read) differ by more
// than ClockTolPairs is left out.
func pairedOf(pk PairKey, base, cand, bClk, cClk map[int32]float64, confidence float64) *Paired {
	var reps []int32
	for r := range base {
		if _, ok := cand[r]; ok {
			reps = append(reps, r)
		}
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i] < reps[j] })
	p := &Paired{Key: pk, Pairs: len(reps)}
	var bs, cs []float64
	for _, r := range reps {
		fb, fc := bClk[r], cClk[r]
		if fb > 0 && fc > 0 {
			gap := math.Abs(fb/fc - 1)
			if gap > ClockTolPairs {
				p.ClockVoided++
				continue
			}
			p.MaxClockGap = math.Max(p.MaxClockGap, gap)
			for _, f := range []float64{fb, fc} {
				if p.MinMHz == 0 || f < p.MinMHz {
					p.MinMHz = f
				}
				p.MaxMHz = math.Max(p.MaxMHz, f)
			}
		}
		bs, cs = append(bs, base[r]), append(cs, cand[r])
	}
	p.Speedup, p.Warnings = PairedSpeedup(bs, cs, confidence)
	if len(bs) == 0 && p.Pairs > 0 {
		p.Error = fmt.Sprintf("all %d pairs ran their halves at SM clocks more than %.0f%% apart", p.Pairs, 100*ClockTolPairs)
	}
	return p
}
