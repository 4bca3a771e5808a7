package verdict

import (
	"fmt"
	"math"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/spec"
)

// Counterfactual is a claim's metric had the candidate's GEMM main loops
// matched the baseline's (METHOD.md, "Implementation-limited verdicts"):
// an optimistic bound under the assumptions it lists, never judged GO or
// NO-GO. AtBest is the metric's value at best (the optimistic end of what
// the assumptions allow); Lo..Hi is the range the same arithmetic gives
// over the measured intervals (time: the two medians' 95% intervals) and
// both clocks the extra cycles may run at; the figures below it are what
// was taken off the candidate.
type Counterfactual struct {
	AtBest      float64  `json:"at_best"`
	Lo          float64  `json:"lo"`
	Hi          float64  `json:"hi"`
	Pass        string   `json:"pass"` // whose figures both terms come from: "timing" or "kernel"
	Assumptions []string `json:"assumptions"`
	// Time claims: the candidate's extra GEMM cycles, the SM clocks they
	// are converted at (the candidate's timed loop and its GEMMs' own in
	// the ncu kernel pass) and the time they give at the slower clock (the
	// more time removed, the optimistic end).
	ExtraCycles   float64 `json:"extra_gemm_cycles,omitempty"`
	ClockMHz      float64 `json:"clock_mhz,omitempty"`
	GEMMClockMHz  float64 `json:"gemm_clock_mhz,omitempty"`
	TimeRemovedUs float64 `json:"time_removed_us,omitempty"`
	// DRAM claims: the candidate's extra GEMM bytes (kernel pass), the bytes
	// its fused epilogues must still move (claims.yaml epilogue_bytes) and
	// what is taken off: the excess over those, never below 0, from the
	// candidate's kernel-pass bytes, set against the baseline's.
	ExtraGEMMBytes float64  `json:"extra_gemm_dram_bytes,omitempty"`
	EpilogueBytes  *float64 `json:"epilogue_bytes,omitempty"` // set for every DRAM claim, 0 included
	BytesRemoved   float64  `json:"dram_bytes_removed,omitempty"`
	MeasuredKernel float64  `json:"measured_kernel_pass,omitempty"` // the metric on kernel-pass bytes, nothing removed
}

// Whose figures a counterfactual's terms come from (Counterfactual.Pass).
const (
	cfPassTiming = "timing"
	cfPassKernel = "kernel"
)

// assumeFreeEpilogue is the assumption every counterfactual rests on.
const assumeFreeEpilogue = "the fused epilogue is free: the candidate's GEMM kernels carry it, and taking them to the baseline's main loops charges its work to the main loops, so this is an optimistic bound"

// counterfactual is a claim metric recomputed with the candidate's GEMM
// main-loop excess taken out: its extra GEMM cycles (timeCounterfactual),
// or its extra GEMM DRAM bytes beyond those its fused epilogues must still
// move (dramCounterfactual).
func (x *index) counterfactual(e *spec.Experiment, metric, cand, base, shape string, ml analysis.MainLoops) (Counterfactual, bool) {
	cc, bc := x.cells[cellkey.New(e.Name, cand, shape)], x.cells[cellkey.New(e.Name, base, shape)]
	if !okCell(cc) || !okCell(bc) {
		return Counterfactual{}, false
	}
	cf := Counterfactual{Assumptions: []string{assumeFreeEpilogue}}
	switch metric {
	case MetricSpeedup, MetricTimeUs, MetricGPUSpeedup:
		return x.timeCounterfactual(cf, metric, cc, bc, ml)
	case MetricDRAMRatio, MetricDRAMReduction, MetricDRAMBytes:
		return x.dramCounterfactual(cf, e, metric, cc, bc, ml)
	}
	return cf, false
}

// timeCounterfactual takes the candidate's extra GEMM cycles off its time.
// Cycles become time at the clock the kernels ran at: the timed loop's for
// compute-bound main loops, but a latency- or memory-bound loop takes the
// same time at any SM clock, so its cycles counted at the ncu kernel
// pass's clock are its time. Which holds is not measured, so both are
// given: AtBest at the slower clock (more time removed), Lo..Hi over both
// clocks and the two medians' intervals.
func (x *index) timeCounterfactual(cf Counterfactual, metric string, cc, bc *analysis.CellFact, ml analysis.MainLoops) (Counterfactual, bool) {
	device := metric == MetricGPUSpeedup
	cf.Pass = cfPassTiming
	var ct, bt analysis.Interval
	if device {
		var notes []string
		ct, notes = oneCallDevice(cc)
		b, bn := oneCallDevice(bc)
		bt, notes = b, append(notes, bn...)
		cf.Assumptions = append(cf.Assumptions, notes...)
		// A device time capped at the wall median is the wall loop's, and
		// so is the clock its cycles are converted at.
		device = !cc.DeviceAboveWall()
	} else {
		if cc.Wall.N == 0 || bc.Wall.N == 0 {
			return cf, false
		}
		ct, bt = cc.Wall, bc.Wall
	}
	mhz, from := x.loopClock(cc.Experiment, cc.Variant, cc.Shape, device)
	gemm := ml.CandClockHz / 1e6
	if mhz <= 0 {
		mhz, from = gemm, "the median clock of the candidate's GEMMs in the ncu kernel pass (no clock recorded by the timing pass)"
	}
	if mhz <= 0 || ml.CandCycles <= ml.BaseCycles {
		return cf, false
	}
	if gemm <= 0 {
		gemm = mhz
	}
	cf.ExtraCycles, cf.ClockMHz, cf.GEMMClockMHz = ml.CandCycles-ml.BaseCycles, mhz, gemm
	dtLoop, dtGEMM := cf.ExtraCycles/(mhz*1e6)*1e3, cf.ExtraCycles/(gemm*1e6)*1e3 // ms
	dtMax, dtMin := max(dtLoop, dtGEMM), min(dtLoop, dtGEMM)
	cf.TimeRemovedUs = dtMax * 1e3
	cf.Assumptions = append(cf.Assumptions, fmt.Sprintf("the candidate's GEMMs take the baseline's SM cycles: %.3g extra cycles are %.1f us at %.0f MHz, %s, if they are compute-bound, and %.1f us at %.0f MHz, their own clock in the ncu kernel pass, if they are latency- or memory-bound; the bound takes %.1f us",
		cf.ExtraCycles, dtLoop*1e3, mhz, from, dtGEMM*1e3, gemm, dtMax*1e3))
	if ct.Center-dtMax <= 0 || bt.Center <= 0 {
		return cf, false
	}
	lo, hi := bt.Lo/(ct.Hi-dtMin), analysis.Unbounded
	if ct.Hi == analysis.Unbounded || bt.Lo <= 0 {
		lo = 0
	}
	if ct.Lo-dtMax > 0 && bt.Hi != analysis.Unbounded {
		hi = bt.Hi / (ct.Lo - dtMax)
	}
	switch metric {
	case MetricTimeUs:
		cf.AtBest = (ct.Center - dtMax) * 1e3
		cf.Lo, cf.Hi = max(0, ct.Lo-dtMax)*1e3, (ct.Hi-dtMin)*1e3
		if ct.Hi == analysis.Unbounded {
			cf.Hi = analysis.Unbounded
		}
	default:
		cf.AtBest, cf.Lo, cf.Hi = bt.Center/(ct.Center-dtMax), lo, hi
	}
	return cf, true
}

// dramCounterfactual takes the candidate's GEMM DRAM excess beyond its
// epilogue operands off its bytes. The excess is measured in the ncu kernel
// pass (L2 flushed before each kernel), so both terms come from that pass:
// the candidate's kernel-pass bytes less the excess, set against the
// baseline's kernel-pass bytes. Range-pass bytes (what the claim is judged
// on) neither bound nor are bounded by kernel-pass bytes (METHOD.md), so
// the excess is never taken off them. One kernel pass per cell: a point.
func (x *index) dramCounterfactual(cf Counterfactual, e *spec.Experiment, metric string, cc, bc *analysis.CellFact, ml analysis.MainLoops) (Counterfactual, bool) {
	cf.Pass = cfPassKernel
	cb, bb := cc.DRAMBytesKernels, bc.DRAMBytesKernels
	if cb <= 0 || bb <= 0 {
		return cf, false
	}
	cf.ExtraGEMMBytes = ml.ExtraDRAM()
	eb, how := x.epilogueBytes(e, cc.Variant, cc.Shape)
	cf.EpilogueBytes = &eb
	cf.BytesRemoved = math.Max(0, cf.ExtraGEMMBytes-eb)
	cf.Assumptions = append(cf.Assumptions, how)
	if cf.BytesRemoved == 0 {
		cf.Assumptions = append(cf.Assumptions, fmt.Sprintf("the candidate's GEMMs move %s more than the baseline's, no more than the %s its fused epilogues must move: no main-loop excess to take off, so the kernel-pass value stands",
			figure.Bytes(cf.ExtraGEMMBytes), figure.Bytes(eb)))
	} else {
		cf.Assumptions = append(cf.Assumptions, fmt.Sprintf("the candidate's GEMMs move the baseline's GEMM bytes plus those of its epilogues: %s of their %s excess taken off its %s of kernel-pass DRAM bytes, set against the baseline's %s (both terms from the ncu kernel pass, L2 flushed before each kernel; one profile per cell, so a point)",
			figure.Bytes(cf.BytesRemoved), figure.Bytes(cf.ExtraGEMMBytes), figure.Bytes(cb), figure.Bytes(bb)))
	}
	of := func(c float64) float64 {
		switch metric {
		case MetricDRAMBytes:
			return c
		case MetricDRAMReduction:
			return 1 - c/bb
		}
		return c / bb
	}
	cf.MeasuredKernel = of(cb)
	cf.AtBest = of(cb - cf.BytesRemoved)
	cf.Lo, cf.Hi = cf.AtBest, cf.AtBest
	return cf, true
}

// loopClock is the SM clock (MHz) of a cell's timed loop, and where it comes
// from: for device time, its device-time loop's clock samples where the
// timing file has them, else its wall-time loop's.
func (x *index) loopClock(exp, variant, shape string, device bool) (float64, string) {
	k := cellkey.New(exp, variant, shape)
	if v := x.deviceClocks[k]; device && v > 0 {
		return v, "the clock of the candidate's device-time loop (median of its clock samples)"
	}
	if v := x.clocks[k]; v > 0 {
		return v, "the clock of the candidate's timed loop (median of its clock samples)"
	}
	return 0, ""
}

// oneCallDeviceMs is a cell's device time of one call for a bound: its
// device time, capped at its wall median where the device median lies above
// the wall median's interval (analysis.CellFact.DeviceAboveWall: one call's
// GPU work cannot outlast its wall time), with a note saying so.
func oneCallDeviceMs(c *analysis.CellFact) (float64, []string) {
	d, _ := c.DeviceTimeMs()
	if c.DeviceAboveWall() {
		return c.Wall.Center, []string{fmt.Sprintf("%s's device time taken as its wall median %.1f us: its device median %.1f us is above it (%s)",
			c.Variant, c.Wall.Center*1e3, d*1e3, analysis.WarnDeviceAboveWall)}
	}
	return d, nil
}

// oneCallDevice is oneCallDeviceMs with its interval: the wall median's
// where capped, the device loop's where it ran, else the kernel sum's
// point.
func oneCallDevice(c *analysis.CellFact) (analysis.Interval, []string) {
	d, notes := oneCallDeviceMs(c)
	switch {
	case c.DeviceAboveWall():
		return c.Wall, notes
	case c.Device.N > 0:
		return c.Device, nil
	}
	return analysis.Interval{Center: d, Lo: d, Hi: d, N: 1}, nil
}

// epilogueBytes evaluates the candidate's epilogue_bytes (claims.yaml
// theory) at a shape, with the assumption it makes in words.
func (x *index) epilogueBytes(e *spec.Experiment, variant, shape string) (float64, string) {
	th, ok := e.Theory[variant]
	if !ok || th.EpilogueBytes == "" {
		return 0, fmt.Sprintf("claims.yaml states no epilogue operands for %s: none kept, so the bound may be looser still", variant)
	}
	b, err := analysis.EvalFormula(th.EpilogueBytes, shape)
	if err != nil {
		return 0, fmt.Sprintf("claims.yaml epilogue_bytes of %s: %v: none kept", variant, err)
	}
	what := th.Epilogue
	if what == "" {
		what = "claims.yaml epilogue_bytes"
	}
	if b == 0 {
		return 0, fmt.Sprintf("the candidate's fused epilogues need no operand beyond the GEMMs' own (epilogue_bytes %s: %s)", th.EpilogueBytes, what)
	}
	return b, fmt.Sprintf("the candidate still moves the %s its fused epilogues must read and write (%s = %s: %s)", figure.Bytes(b), th.EpilogueBytes, figure.Bytes(b), what)
}

// counterfactualText states a counterfactual in the decision's reason.
func counterfactualText(metric string, cf Counterfactual) string {
	if cf.Pass == cfPassKernel {
		return fmt.Sprintf("had they matched the baseline's (%s less GEMM DRAM traffic), %s would be at best %s on kernel-pass bytes, measured there %s (an optimistic bound, not judged: the fused epilogue counted as free)",
			figure.Bytes(cf.BytesRemoved), metric, FormatMetric(metric, cf.AtBest), FormatMetric(metric, cf.MeasuredKernel))
	}
	return fmt.Sprintf("had they matched the baseline's (%.1f us less GEMM time at the slower of %.0f and %.0f MHz), %s would be at best %s, over both clocks and the medians' 95%% intervals [%s, %s] (an optimistic bound, not judged: the fused epilogue counted as free)",
		cf.TimeRemovedUs, cf.ClockMHz, cf.GEMMClockMHz, metric, FormatMetric(metric, cf.AtBest), FormatBound(metric, cf.Lo), FormatBound(metric, cf.Hi))
}
