package verdict

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/spec"
)

// LimitedByImplementation is Decision.LimitedBy when the candidate is
// measurably below the best implementation of the same fusion in the run,
// or its GEMMs are below the library's by more than its epilogue's own cost
// (METHOD.md, "Implementation-limited verdicts").
const LimitedByImplementation = "implementation"

// WarnImplementationLimited is the code of the decision warning that gives
// the figures of a limited_by: implementation (it voids nothing).
const WarnImplementationLimited = "implementation-limited"

// limitedFamilies are the metric families a main loop's speed or traffic
// enters, and which of the two: a time claim (true) is limited by slower
// GEMMs, a DRAM claim (false) by GEMMs that move more bytes (a candidate
// whose GEMMs are slower but move fewer bytes does not limit a DRAM claim).
var limitedFamilies = map[string]bool{metricFamilyTime: true, metricFamilyDevice: true, metricFamilyDRAM: false}

// ImplementationLimit is the figures of the implementation-limited rule for
// one decision: the candidate against the library GEMMs with its epilogue
// allowance, and against the best implementation of its fusion in the run.
type ImplementationLimit struct {
	// Time claims: the candidate's GEMM time beyond the baseline's (kernel
	// pass, SM cycles at the candidate's GEMM clock) and the time its
	// GEMMs' extra DRAM bytes take at the DRAM bandwidth (the allowance).
	GapUs       float64 `json:"gemm_gap_us,omitempty"`
	AllowanceUs float64 `json:"epilogue_allowance_us,omitempty"`
	// DRAMBandwidth (byte/s) and where it comes from.
	DRAMBandwidth     float64 `json:"dram_bandwidth,omitempty"`
	DRAMBandwidthFrom string  `json:"dram_bandwidth_from,omitempty"`
	// ExtraGEMMBytes is what the candidate's GEMMs move beyond the
	// baseline's (kernel pass); for DRAM claims EpilogueBytes is what its
	// fused epilogues must move (claims.yaml epilogue_bytes).
	ExtraGEMMBytes float64  `json:"extra_gemm_dram_bytes,omitempty"`
	EpilogueBytes  *float64 `json:"epilogue_bytes,omitempty"` // set for every DRAM claim, 0 included
	BelowLibrary   bool     `json:"below_library"`
	// Fusion is the claims.yaml fusion the candidate belongs to, Best its
	// member with the best value of the claim's metric in the run and
	// BestValue that value; BelowBest: the candidate is measurably below it.
	Fusion    string   `json:"fusion,omitempty"`
	Best      string   `json:"best,omitempty"`
	BestValue *float64 `json:"best_value,omitempty"`
	BelowBest bool     `json:"below_best"`
	BestHow   string   `json:"below_best_by,omitempty"` // the test that found it below
}

// notAGEMM says why a time claim gets no main-loop comparison: the
// candidate's GEMM kernels are mostly other work (analysis.MainLoops.NotAGEMM).
func notAGEMM(m analysis.MainLoops) string {
	return fmt.Sprintf("the candidate's %d GEMM kernels take %.1fx the SM cycles of the baseline's %d for the same products (%.3g vs %.3g): more than %gx, they spend most of their time on other work than the products, which kernel counters cannot tell from their main loops, so no counterfactual",
		m.CandKernels, m.CyclesRatio, m.BaseKernels, m.CandCycles, m.BaseCycles, analysis.MaxComparableCycles)
}

// limitedBy applies the implementation-limited rule to a decision: the
// candidate is limited when it is measurably below the best member of its
// fusion in the run (fusionLeg), or its GEMMs are below the baseline's
// library GEMMs by more than its epilogue's own cost (libraryLeg). A
// limited decision carries the figures (Limit, a warning with its code,
// the reason) and, where the GEMMs compare, the counterfactual: the claim's
// metric at best had the candidate's GEMMs taken the baseline's cycles and
// bytes (an optimistic bound, never judged). The verdict still follows the
// rules.
func (x *index) limitedBy(e *spec.Experiment, d *Decision) {
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
	var lim ImplementationLimit
	var why []string
	ml, mlOK := x.mainLoops(e.Name, d.Candidate, base, d.Shape)
	if mlOK {
		if onTime && ml.NotAGEMM {
			d.Reason += "; " + notAGEMM(ml)
		} else if s := x.libraryLeg(e, d, ml, onTime, &lim); lim.BelowLibrary {
			why = append(why, s)
		}
	}
	if s := x.fusionLeg(e, d, base, &lim); lim.BelowBest {
		why = append(why, s)
	}
	if lim.Fusion == "" && (!mlOK || onTime && ml.NotAGEMM) {
		return // neither leg compared anything
	}
	d.Limit = &lim
	if len(why) == 0 {
		return
	}
	d.LimitedBy = LimitedByImplementation
	msg := strings.Join(why, "; and ")
	d.Warnings = append(d.Warnings, analysis.Warning{Code: WarnImplementationLimited, Metric: d.Metric, Msg: msg})
	d.Reason += "; limited by implementation (" + WarnImplementationLimited + "): " + msg
	if !mlOK || (onTime && ml.NotAGEMM) {
		return
	}
	d.MainLoops = &ml
	if cf, ok := x.counterfactual(e, d.Metric, d.Candidate, base, d.Shape, ml); ok {
		d.Counterfactual = &cf
		d.Reason += "; " + counterfactualText(d.Metric, cf)
	}
}

// libraryLeg sets the candidate's GEMMs against the baseline's: on time,
// their extra cycles against the allowance its GEMMs' extra DRAM bytes take
// at the run's DRAM bandwidth; on DRAM, their extra bytes against those its
// fused epilogues must move. It fills lim and returns the finding in words.
func (x *index) libraryLeg(e *spec.Experiment, d *Decision, ml analysis.MainLoops, onTime bool, lim *ImplementationLimit) string {
	m := analysis.DefaultMainLoopMargin
	lim.ExtraGEMMBytes = ml.ExtraDRAM()
	if !onTime {
		eb, _ := x.epilogueBytes(e, d.Candidate, d.Shape)
		lim.EpilogueBytes = &eb
		lim.BelowLibrary = ml.MoreDRAMThanEpilogue(eb, m)
		if eb == 0 {
			return fmt.Sprintf("%s; their %s excess is more than %.0f%% of the baseline's (claims.yaml gives its fused epilogues no bytes beyond the baseline's GEMMs)",
				ml.Summary(), figure.Bytes(lim.ExtraGEMMBytes), 100*m)
		}
		return fmt.Sprintf("%s; their %s excess is more than the %s its fused epilogues must move plus %.0f%% of the baseline's",
			ml.Summary(), figure.Bytes(lim.ExtraGEMMBytes), figure.Bytes(eb), 100*m)
	}
	bw, from := x.dramBandwidth()
	lim.DRAMBandwidth, lim.DRAMBandwidthFrom = bw, from
	allow := ml.AllowanceCycles(bw)
	if ml.CandClockHz > 0 {
		lim.GapUs = (ml.CandCycles - ml.BaseCycles) / ml.CandClockHz * 1e6
		lim.AllowanceUs = allow / ml.CandClockHz * 1e6
	}
	lim.BelowLibrary = ml.SlowerThanAllowed(allow, m)
	return fmt.Sprintf("%s; their %.1f us beyond the baseline's GEMMs (at %.0f MHz) exceed by more than %.0f%% the %.1f us its epilogue may take (%s of extra GEMM DRAM bytes at %s, %s)",
		ml.Summary(), lim.GapUs, ml.CandClockHz/1e6, 100*m, lim.AllowanceUs, figure.Bytes(lim.ExtraGEMMBytes), figure.SI(bw, "B/s"), from)
}

// dramBandwidth is the DRAM bandwidth an epilogue's bytes are charged at:
// the run's measured one (ceilings.json), else the device's own peak (ncu),
// else the datasheet's; and where it comes from.
func (x *index) dramBandwidth() (float64, string) {
	if x.run == nil {
		return 0, ""
	}
	c, ok := x.run.Ceilings.Best(gpu.CeilDRAM, gpu.Precedence{gpu.SourceMeasured, gpu.SourceDevice, gpu.SourceCatalog, ""})
	if !ok {
		return 0, "no DRAM roof: no allowance"
	}
	return c.Value, c.Source
}

// fusionLeg sets the candidate against the other members of its fusion that
// the run measured, on the claim's metric: it is below the best when that
// member is measurably better (timed claims: the U test of their wall
// samples, or disjoint device-time intervals; DRAM claims: more than the
// margin more bytes, the replays' spreads apart). It fills lim and returns
// the finding in words.
func (x *index) fusionLeg(e *spec.Experiment, d *Decision, base string, lim *ImplementationLimit) string {
	g := e.FusionOf(d.Candidate)
	if g == "" {
		return ""
	}
	lim.Fusion = g
	members := x.fusionValues(e, g, d.Metric, d.Baseline, d.Shape)
	best := bestMember(members, d.Op)
	if best == nil {
		return ""
	}
	lim.Best, lim.BestValue = best.Variant, best.Value
	if best.Variant == d.Candidate {
		return ""
	}
	cc, bc := x.cells[cellkey.New(e.Name, d.Candidate, d.Shape)], x.cells[cellkey.New(e.Name, best.Variant, d.Shape)]
	switch family(d.Metric) {
	case metricFamilyTime:
		if cmp := x.comparison(e.Name, d.Shape, d.Candidate, best.Variant); cmp != nil && cmp.Significant && cmp.Speedup.Center > 1 {
			lim.BelowBest, lim.BestHow = true, fmt.Sprintf("%s's wall time is %s the candidate's (p%s)", best.Variant, figure.Ratio(1/cmp.Speedup.Center), pvalEq(cmp.P))
		}
	case metricFamilyDevice:
		if okCell(cc) && okCell(bc) && cc.Device.N > 0 && bc.Device.N > 0 {
			if s, _ := analysis.RatioInterval(cc.DeviceSamplesMs, bc.DeviceSamplesMs, analysis.DefaultStats().Confidence); s.Lo > 1 {
				lim.BelowBest, lim.BestHow = true, fmt.Sprintf("%s's device time is %s the candidate's, their intervals apart (%s..%s)", best.Variant, figure.Ratio(1/s.Center), figure.Ratio(s.Lo), FormatBound(MetricGPUSpeedup, s.Hi))
			}
		}
	case metricFamilyDRAM:
		cv, bv := dramValue(cc), dramValue(bc)
		if bv.Center > 0 && cv.Center > bv.Center*(1+analysis.DefaultMainLoopMargin) && cv.Lo > bv.Hi {
			lim.BelowBest, lim.BestHow = true, fmt.Sprintf("the candidate moves %s the DRAM bytes of %s (%s vs %s, range pass)", figure.Ratio(cv.Center/bv.Center), best.Variant, figure.Bytes(cv.Center), figure.Bytes(bv.Center))
		}
	}
	if !lim.BelowBest {
		return ""
	}
	return fmt.Sprintf("below the best implementation of fusion %s in this run, %s at %s: %s", g, best.Variant, FormatMetric(d.Metric, *best.Value), lim.BestHow)
}

// boundFraction is a variant's roofline floor under its model over its
// measured device time: 1 is at the roof.
func (x *index) boundFraction(e *spec.Experiment, variant, shape string) *float64 {
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
