package reports

import (
	"fmt"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/kernels"
)

// LimitedByImplementation is Decision.LimitedBy when the candidate's GEMM
// main loops are measurably worse than the baseline's for the same products.
const LimitedByImplementation = "implementation"

// limitedFamilies are the metric families a main loop's speed or traffic
// enters, and which of the two: a time claim (true) is limited by slower
// GEMMs, a DRAM claim (false) by GEMMs that move more bytes (a candidate
// whose GEMMs are slower but move fewer bytes does not limit a DRAM claim).
var limitedFamilies = map[string]bool{metricFamilyTime: true, metricFamilyDevice: true, metricFamilyDRAM: false}

// notAGEMM says why a time claim gets no main-loop comparison: the
// candidate's GEMM kernels are mostly other work (analysis.MainLoops.NotAGEMM).
func notAGEMM(m analysis.MainLoops) string {
	return fmt.Sprintf("the candidate's %d GEMM kernels take %.1fx the SM cycles of the baseline's %d for the same products (%.3g vs %.3g): more than %gx, they spend most of their time on other work than the products, which kernel counters cannot tell from their main loops, so no counterfactual",
		m.CandKernels, m.CyclesRatio, m.BaseKernels, m.CandCycles, m.BaseCycles, analysis.MaxComparableCycles)
}

// limitedBy compares the candidate's GEMM kernels with the baseline's
// (analysis.CompareMainLoops) and, where they are worse by more than the
// margin, marks the decision limited by implementation with the figures and
// the counterfactual: the claim's metric at best had the candidate's GEMMs
// taken the baseline's cycles and moved its DRAM bytes (an optimistic bound,
// never judged). The verdict itself still follows the rules.
func (x *index) limitedBy(e *kernels.Experiment, d *Decision) {
	onTime, ok := limitedFamilies[family(d.Metric)]
	if d.Measured == nil || !ok || d.Metric == MetricElementwiseDRAM {
		return
	}
	base := d.Baseline
	if base == "" {
		base = e.BaselineFor(d.Candidate)
	}
	if base == "" || base == d.Candidate {
		return
	}
	ml, ok := x.mainLoops(e.Name, d.Candidate, base, d.Shape)
	if !ok {
		return
	}
	if onTime && ml.NotAGEMM {
		d.Reason += "; " + notAGEMM(ml)
		return
	}
	limits := ml.MoreDRAM
	if onTime {
		limits = ml.SlowerLoops
	}
	if !limits {
		return
	}
	cf, ok := x.counterfactual(e, d.Metric, d.Candidate, base, d.Shape, ml)
	d.LimitedBy, d.MainLoops = LimitedByImplementation, &ml
	d.Reason += "; limited by implementation: " + ml.Summary()
	if ok {
		d.Counterfactual = &cf
		d.Reason += "; " + counterfactualText(d.Metric, cf)
	}
}

// boundFraction is a variant's roofline floor under its model over its
// measured device time: 1 is at the roof.
func (x *index) boundFraction(e *kernels.Experiment, variant, shape string) *float64 {
	c := x.cells[cellkey.New(e.Name, variant, shape)]
	if !okCell(c) {
		return nil
	}
	dev, _ := c.DeviceTimeMs()
	t, ok := x.rooflineTime(e, variant, shape)
	if !ok || dev <= 0 {
		return nil
	}
	f := t * 1e3 / dev
	return &f
}

// mainLoops compares the candidate's GEMM kernels with the baseline's at
// a shape (analysis.CompareMainLoops), once per pair: every decision on the
// pair and the kernel quality table share it.
func (x *index) mainLoops(exp, cand, base, shape string) (analysis.MainLoops, bool) {
	k := compKey{exp, shape, base, cand}
	if r, ok := x.loops[k]; ok {
		return r.ml, r.ok
	}
	ml, ok := analysis.CompareMainLoops(x.kernels[cellkey.New(exp, cand, shape)], x.kernels[cellkey.New(exp, base, shape)], analysis.DefaultMainLoopMargin)
	if x.loops == nil {
		x.loops = map[compKey]mainLoopsResult{}
	}
	x.loops[k] = mainLoopsResult{ml, ok}
	return ml, ok
}

type mainLoopsResult struct {
	ml analysis.MainLoops
	ok bool
}
