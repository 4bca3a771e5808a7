package roofline

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
)

// selectFacts returns the kernels of one (experiment, shape) of run and its
// cells that ran ("ok"), in run order.
func selectFacts(run *analysis.Run, experiment, shape string) ([]analysis.KernelFact, []analysis.CellFact) {
	var kfs []analysis.KernelFact
	for _, f := range run.Kernels {
		if f.Experiment == experiment && f.Shape == shape {
			kfs = append(kfs, f)
		}
	}
	var cells []analysis.CellFact
	for _, c := range run.Cells {
		if c.Experiment == experiment && c.Shape == shape && c.Status == "ok" {
			cells = append(cells, c)
		}
	}
	return kfs, cells
}

// kernelMarks places each kernel once per memory level it has bytes for.
// Points with zero FLOPs or bytes are counted in a WarnZeroOnLog warning,
// kernels without FLOP or byte counters in a WarnMissing one.
func kernelMarks(kfs []analysis.KernelFact, seriesOf func(analysis.KernelFact) int, experiment, shape string) ([]kpoint, []analysis.Warning) {
	var warnings []analysis.Warning
	var pts []kpoint
	zeros := 0
	for _, f := range kfs {
		s := seriesOf(f)
		if !f.FLOPsKnown {
			continue // no FLOP counters: counted below as missing, not as zero
		}
		for li, lv := range levels {
			ai, has, ok := kernelPoint(f, lv.key)
			if !has {
				continue // the export has no bytes for this level
			}
			if !ok {
				zeros++
				continue
			}
			pts = append(pts, kpoint{ai, f.FLOPRate, s, li})
		}
	}
	if zeros > 0 {
		warnings = append(warnings, analysis.Warning{Code: analysis.WarnZeroOnLog, Metric: "roofline",
			Msg: fmt.Sprintf("%d kernel points with zero FLOPs or bytes left off the log axes of the %s roofline", zeros, selName(experiment, shape))})
	}
	noPoint := 0
	for _, f := range kfs {
		if !f.FLOPsKnown || len(f.ByteRate) == 0 {
			noPoint++
		}
	}
	if noPoint > 0 {
		warnings = append(warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "roofline",
			Msg: fmt.Sprintf("%d of %d kernels lack FLOP or byte counters and have no point on the %s roofline", noPoint, len(kfs), selName(experiment, shape))})
	}
	return pts, warnings
}

// heavyLabels names the heaviest kernels that have a point, at their first
// level with one; a name already written at (nearly) the same point, as the
// same kernel of several variants has it, is written once.
func heavyLabels(kfs []analysis.KernelFact) []klabel {
	heavy := append([]analysis.KernelFact(nil), kfs...)
	sort.SliceStable(heavy, func(i, j int) bool { return heavy[i].DurationNs > heavy[j].DurationNs })
	var labels []klabel
	for _, f := range heavy {
		if len(labels) == labelledKernels {
			break
		}
		for _, lv := range levels {
			if ai := f.AI[lv.key]; ai > 0 && f.FLOPRate > 0 {
				l := klabel{ai, f.FLOPRate, shorten(f.ShortName, 32)}
				if !slices.ContainsFunc(labels, func(o klabel) bool { return o.text == l.text && samePoint(o.x, o.y, l.x, l.y) }) {
					labels = append(labels, l)
				}
				break
			}
		}
	}
	return labels
}

// variantTotals places each cell's aggregate: its FLOPs over its DRAM bytes
// (CellFact.DRAM; never a partial range, which is warned of) and over its
// wall time (timing pass; device time where the wall time is host-bound or
// absent). It returns the aggregates, the index of each variant's, and the
// legend's note for them ("" when there is none).
func variantTotals(cells []analysis.CellFact, seriesOf func(analysis.KernelFact) int) (aggs []aggregate, byVariant map[string]int, note string, warnings []analysis.Warning) {
	byVariant = map[string]int{} // index into aggs
	for _, c := range cells {
		bytes, _ := c.DRAM()
		if c.RangePartial {
			warnings = append(warnings, analysis.Warning{Code: analysis.WarnRangePartial, Metric: "dram_bytes",
				Msg: fmt.Sprintf("%s at %s: variant total not plotted, its range pass covers part of the cell", c.Variant, c.Shape)})
			continue
		}
		secs := c.Wall.Center / 1e3
		if dev, _ := c.DeviceTimeMs(); secs <= 0 || (c.HostRatio > 0 && hostBound(c)) {
			secs = dev / 1e3
		}
		if c.FLOPs <= 0 || bytes <= 0 || secs <= 0 {
			continue
		}
		s := seriesOf(analysis.KernelFact{Variant: c.Variant, ShortName: c.Variant})
		byVariant[c.Variant] = len(aggs)
		aggs = append(aggs, aggregate{s, c.FLOPs / bytes, c.FLOPs / secs, c.Variant})
		if note == "" {
			note = "variant total: FLOPs per DRAM byte, FLOPs per wall second (device second where host-bound)"
		}
	}
	return aggs, byVariant, note, warnings
}

// comparisonArrows follows the comparisons of (experiment, shape): one arrow
// from each candidate's baseline total to the candidate's, where both have
// one.
func comparisonArrows(cmps []analysis.Comparison, experiment, shape string, aggByVariant map[string]int) [][2]int {
	var arrows [][2]int
	for _, cmp := range cmps {
		if cmp.Experiment != experiment || cmp.Shape != shape {
			continue
		}
		b, okB := aggByVariant[cmp.Baseline]
		a, okA := aggByVariant[cmp.Candidate]
		if okA && okB {
			arrows = append(arrows, [2]int{b, a})
		}
	}
	return arrows
}

// usedCeilings names the compute roofs to draw: FP32 always, the class of
// every FLOP count a kernel states, and the common tensor roofs where no
// kernel states any FLOPs, so the plot still says where the tensor cores sit.
func usedCeilings(kfs []analysis.KernelFact) map[string]bool {
	used := map[string]bool{gpu.CeilFP32: true}
	for _, f := range kfs {
		for cl, v := range f.FLOPs {
			if v > 0 {
				used[gpu.CeilingFor(cl)] = true
			}
		}
	}
	anyFLOPs := false
	for _, f := range kfs {
		anyFLOPs = anyFLOPs || len(f.FLOPs) > 0
	}
	if !anyFLOPs {
		used["tensor bf16"], used["tensor fp16"] = true, true
	}
	return used
}
