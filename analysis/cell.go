package analysis

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"golang.org/x/perf/benchmath"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// Unbounded is the Hi of an interval that too few samples cannot bound
// (benchmath reports +Inf; JSON cannot carry it). Lo is 0 then.
const Unbounded = math.MaxFloat64

// SummarizeMs is the median of a timing sample with its confidence interval,
// as benchstat computes it (benchmath.AssumeNothing: order statistics, no
// distribution assumed). Where the sample is too small to bound the
// interval, Lo is 0 and Hi is Unbounded, and the warnings say so.
func SummarizeMs(samples []float64, confidence float64) (Interval, []Warning) {
	if len(samples) == 0 {
		return Interval{}, nil
	}
	s := benchmath.NewSample(append([]float64(nil), samples...), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	iv := Interval{Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(samples)}
	var ws []Warning
	if math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		iv.Lo, iv.Hi = 0, Unbounded
	}
	for _, w := range sum.Warnings {
		ws = append(ws, Warning{Code: WarnFewSamples, Metric: "wall_ms", Msg: w.Error()})
	}
	return iv, ws
}

// CellFacts derives one CellFact per (experiment, variant, shape) seen in the
// tables, plus one with Status "missing" for every cell of exps whose
// experiment has data but that cell has none. kfacts are KernelFacts of the
// same tables. roofs.L2Bytes (or opts.L2Bytes) sizes the L2 warning.
func CellFacts(t *ingest.Tables, kfacts []KernelFact, exps []*spec.Experiment, roofs gpu.Ceilings, opts Options) []CellFact {
	return cellFacts(t, metricsByKernel(t), kfacts, exps, roofs, opts)
}

// cellFacts is CellFacts on the metrics of t indexed by kernel.
func cellFacts(t *ingest.Tables, byKernel metricIndex, kfacts []KernelFact, exps []*spec.Experiment, roofs gpu.Ceilings, opts Options) []CellFact {
	opts = opts.withDefaults()
	spreads, devSpreads := TimingClockSpreads(t), DeviceClockSpreads(t)
	l2 := l2Size(t, roofs, opts)
	s := newCellRows(exps)
	// A cell exists where any row names it; the rows of the passes the
	// manifest rejects (PassMask) give it no fact.
	mask := MaskOf(opts.Manifest)
	s.addKernelFacts(kfacts, mask)
	s.addKernelRows(t, byKernel, mask)
	s.addTimings(t, mask, spreads, devSpreads)
	s.addLaunchErrors(t)
	s.addMissing(exps)
	s.copies = ingest.CellCopies(t)

	out := make([]CellFact, 0, len(s.cells))
	for _, key := range s.order {
		c := s.cells[key]
		if c.Status != "missing" {
			s.fill(c, key, opts, l2, spreads[key], devSpreads[key])
		}
		out = append(out, *c)
	}
	checkRangeAgreement(out, s.kfByCell)
	sortCells(out, s.expByName)
	return out
}

// l2Size is the L2 size the working-set warning compares with: opts.L2Bytes,
// else the ceilings', else the first GPU of the tables that states one (0
// when none does).
func l2Size(t *ingest.Tables, roofs gpu.Ceilings, opts Options) int64 {
	l2 := opts.L2Bytes
	if l2 == 0 {
		l2 = roofs.L2Bytes
	}
	if l2 == 0 {
		for _, g := range t.GPUs() {
			if g.L2Bytes > 0 {
				l2 = g.L2Bytes
				break
			}
		}
	}
	return l2
}

// fill derives the facts of cell c (key) from its rows: kernel sums and
// counts, range-pass bytes, timing intervals, the model's figures, and the
// warnings of each check, in that order.
func (s *cellRows) fill(c *CellFact, key cellkey.Key, opts Options, l2 int64, spread, devSpread ClockSpread) {
	kf := s.kfByCell[key]
	ew := sumKernelFacts(c, kf)
	countKernels(c, kf, s.timeline[key], ew, opts)
	replays := s.replays[key]
	if !applyRangeReplays(c, replays) {
		c.Warnings = append(c.Warnings, Warning{Code: WarnMissing, Metric: "dram_bytes",
			Msg: "no ncu range-pass DRAM bytes for this cell: the kernel-pass sum stands in (caches flushed before every kernel: a different quantity, which read 3.6-12.4% below the range pass for the unfused chains of the committed H100 runs)"})
	}
	summarizeTimings(c, s.samples[key], s.devSamples[key], opts)
	checkRange(c, replays, func(replay int) string { return rangeMethod(opts.Manifest, key, replay) })
	rangeMedians(c, replays)
	c.RangeProcess = rangeProcess(opts.Manifest, key)
	checkRangeFloor(c, kf, s.copies[key], l2)
	checkKernelNames(c, kf, s.timeline[key])
	c.LaunchError = s.launchErr[key]
	checkHostBound(c, opts)
	checkDeviceAboveWall(c)
	checkBimodal(c, c.WallSamplesMs, "wall-time", opts)
	checkClockSpread(c, spread, "timed loop", ClockTolLoop)
	checkClockSpread(c, devSpread, "device-time loop", ClockTolLoop)
	if e := s.expByName[key.Experiment]; e != nil {
		b, f, err := TheoryFromSpec(e, key.Variant, key.Shape)
		if err != nil {
			c.Warnings = append(c.Warnings, Warning{Code: WarnMissing, Metric: "theory", Msg: err.Error()})
		} else {
			c.TheoryDRAMBytes, c.TheoryFLOPs = b, f
		}
	}
	checkWorkingSet(c, l2)
}

// elementwiseOf says, by full and by base name, which kernels of the ncu
// kernel pass are elementwise.
type elementwiseOf struct{ byName, byShort map[string]bool }

// sumKernelFacts adds the ncu kernel facts kf of cell c into its bytes, time
// and FLOPs; the heaviest kernel gives the cell its class.
func sumKernelFacts(c *CellFact, kf []KernelFact) elementwiseOf {
	ew := elementwiseOf{byName: map[string]bool{}, byShort: map[string]bool{}}
	var heaviest *KernelFact
	for i := range kf {
		f := &kf[i]
		c.DRAMBytesKernels += f.DRAMBytes
		c.L2Bytes += f.L2Bytes
		c.KernelPassTimeNs += f.DurationNs
		c.FLOPs += f.TotalFLOPs
		ew.byName[f.Name] = f.Elementwise
		ew.byShort[f.ShortName] = f.Elementwise
		if heaviest == nil || f.DurationNs > heaviest.DurationNs {
			heaviest = f
		}
	}
	if heaviest != nil {
		c.Class = heaviest.Class
	}
	return ew
}

// countKernels lists the kernels of cell c in launch order with their times
// and kinds, from its timeline rows tl (sorted by start in place), else from
// its ncu kernel pass kf with a warning; kernels shorter than
// opts.LaunchBoundNs are counted in a launch-bound warning.
func countKernels(c *CellFact, kf []KernelFact, tl []ingest.Kernel, ew elementwiseOf, opts Options) {
	short := 0
	if len(tl) > 0 {
		sort.SliceStable(tl, func(i, j int) bool { return tl[i].StartNs < tl[j].StartNs })
		for _, k := range tl {
			c.Kernels++
			c.KernelNames = append(c.KernelNames, k.Name)
			c.KernelTimesNs = append(c.KernelTimesNs, float64(k.DurationNs))
			c.GPUTimeNs += float64(k.DurationNs)
			// nsys and ncu spell the same kernel alike, mostly: full
			// name, else base name, else a guess from the name.
			isEW, ok := ew.byName[k.Name]
			if !ok {
				isEW, ok = ew.byShort[k.ShortName]
			}
			if !ok {
				isEW = !looksLikeMatmul(k.Name)
			}
			c.KernelElementwise = append(c.KernelElementwise, isEW)
			if isEW {
				c.ElementwiseKernels++
			}
			if k.DurationNs > 0 && float64(k.DurationNs) < opts.LaunchBoundNs {
				short++
			}
		}
	} else if len(kf) > 0 {
		for _, f := range kf {
			c.Kernels++
			c.KernelNames = append(c.KernelNames, f.Name)
			c.KernelTimesNs = append(c.KernelTimesNs, f.DurationNs)
			c.KernelElementwise = append(c.KernelElementwise, f.Elementwise)
			c.GPUTimeNs += f.DurationNs
			if f.Elementwise {
				c.ElementwiseKernels++
			}
			if f.DurationNs > 0 && f.DurationNs < opts.LaunchBoundNs {
				short++
			}
		}
		c.Warnings = append(c.Warnings, Warning{Code: WarnMissing, Metric: "gpu_time_ns",
			Msg: "no nsys timeline for this cell: kernel count and GPU time come from the ncu kernel pass (serialised replay, not the real launch sequence)"})
	}
	if short > 0 {
		c.Warnings = append(c.Warnings, Warning{Code: WarnLaunchBound, Metric: "",
			Msg: fmt.Sprintf("%d of %d kernels run under %.0f us: launch overhead weighs on the time", short, c.Kernels, opts.LaunchBoundNs/1e3)})
	}
}

// summarizeTimings sets the wall-time interval of cell c from its samples
// (warning where there are none or fewer than opts.MinSamples) and the
// device-time interval from its device samples.
func summarizeTimings(c *CellFact, samples, devSamples []float64, opts Options) {
	if s := samples; len(s) > 0 {
		c.WallSamplesMs = s
		iv, ws := SummarizeMs(s, opts.Confidence)
		c.Wall = iv
		c.Warnings = append(c.Warnings, ws...)
		if len(s) < opts.MinSamples {
			c.Warnings = append(c.Warnings, Warning{Code: WarnFewSamples, Metric: "speedup",
				Msg: fmt.Sprintf("%d timing samples, fewer than %d", len(s), opts.MinSamples)})
		}
	} else {
		c.Warnings = append(c.Warnings, Warning{Code: WarnMissing, Metric: "wall_ms", Msg: "no timing samples for this cell"})
	}
	if s := devSamples; len(s) > 0 {
		c.DeviceSamplesMs = s
		c.Device, _ = SummarizeMs(s, opts.Confidence)
	}
}

// checkWorkingSet warns where the cell's working set (the model's, else the
// range pass's, else the kernel pass's) fits in an L2 of l2 bytes, and where
// the range pass's DRAM bytes are off the model's by more than 2x.
func checkWorkingSet(c *CellFact, l2 int64) {
	ws := c.TheoryDRAMBytes
	what := "theoretical"
	if ws == 0 {
		ws, what = c.DRAMBytesRange, "measured (range pass)"
		if ws == 0 {
			ws, what = c.DRAMBytesKernels, "measured (kernel pass)"
		}
	}
	if l2 > 0 && ws > 0 && ws < float64(l2) {
		c.Warnings = append(c.Warnings, Warning{Code: WarnL2Resident, Metric: "dram_bytes",
			Msg: fmt.Sprintf("%s working set %.1f MB fits in the %.1f MB L2: DRAM bytes undercount (writes can stay in L2)", what, ws/1e6, float64(l2)/1e6)})
	}
	if c.TheoryDRAMBytes > 0 && c.DRAMBytesRange > 0 {
		r := c.DRAMBytesRange / c.TheoryDRAMBytes
		if r < 0.5 || r > 2 {
			c.Warnings = append(c.Warnings, Warning{Code: WarnModelMismatch, Metric: "dram_bytes",
				Msg: fmt.Sprintf("range-pass DRAM bytes %.3g are %.2fx the model's %.3g", c.DRAMBytesRange, r, c.TheoryDRAMBytes)})
		}
	}
}

// sortCells orders cells by experiment, then shape and variant in the order
// of their experiment's spec.
func sortCells(out []CellFact, expByName map[string]*spec.Experiment) {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if a.Shape != b.Shape {
			return shapeLess(expByName[a.Experiment], a.Shape, b.Shape)
		}
		return variantLess(expByName[a.Experiment], a.Variant, b.Variant)
	})
}

// shapeLess orders shapes as the spec lists them (AllShapes), else by name.
func shapeLess(e *spec.Experiment, a, b string) bool {
	if e == nil {
		return a < b
	}
	return listedLess(e.AllShapes(), a, b)
}

// variantLess orders variants as the spec lists them, else by name.
func variantLess(e *spec.Experiment, a, b string) bool {
	if e == nil {
		return a < b
	}
	names := make([]string, len(e.Variants))
	for i, v := range e.Variants {
		names[i] = v.Name
	}
	return listedLess(names, a, b)
}

// listedLess orders a and b by their place in list; listed names come
// before unlisted ones, and unlisted ones sort by name.
func listedLess(list []string, a, b string) bool {
	ia, ib := slices.Index(list, a), slices.Index(list, b)
	if ia >= 0 && ib >= 0 {
		return ia < ib
	}
	if ia >= 0 || ib >= 0 {
		return ia >= 0
	}
	return a < b
}

// HasTimeline says whether a cell's kernel list, times and GPU time come
// from a timeline (nsys, Kineto) rather than the ncu kernel pass.
func HasTimeline(c CellFact) bool {
	if c.GPUTimeNs <= 0 {
		return false
	}
	for _, w := range c.Warnings {
		if w.Code == WarnMissing && w.Metric == "gpu_time_ns" {
			return false
		}
	}
	return true
}
