package reports

import (
	"fmt"
	"math"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/kernels"
)

// Counterfactual is a claim's metric had the candidate's GEMM main loops
// matched the baseline's (METHOD.md, "Implementation-limited verdicts"):
// an optimistic bound under the assumptions it lists, never judged GO or
// NO-GO. AtBest is the metric's value at best; the figures below it are
// what was taken off the candidate.
type Counterfactual struct {
	AtBest      float64  `json:"at_best"`
	Assumptions []string `json:"assumptions"`
	// Time claims: the candidate's extra GEMM cycles, the SM clock they are
	// converted at (the candidate's timed loop) and the time that gives.
	ExtraCycles   float64 `json:"extra_gemm_cycles,omitempty"`
	ClockMHz      float64 `json:"clock_mhz,omitempty"`
	TimeRemovedUs float64 `json:"time_removed_us,omitempty"`
	// DRAM claims: the candidate's extra GEMM bytes (kernel pass), the bytes
	// its fused epilogues must still move (claims.yaml epilogue_bytes) and
	// what is taken off: the excess over those, never below 0.
	ExtraGEMMBytes float64  `json:"extra_gemm_dram_bytes,omitempty"`
	EpilogueBytes  *float64 `json:"epilogue_bytes,omitempty"` // set for every DRAM claim, 0 included
	BytesRemoved   float64  `json:"dram_bytes_removed,omitempty"`
}

// assumeFreeEpilogue is the assumption every counterfactual rests on.
const assumeFreeEpilogue = "the fused epilogue is free: the candidate's GEMM kernels carry it, and taking them to the baseline's main loops charges its work to the main loops, so this is an optimistic bound"

// counterfactual is a claim metric recomputed with the candidate's GEMM
// main-loop excess taken out: its extra GEMM cycles at the clock of its
// own timed loop, or its extra GEMM DRAM bytes beyond those its fused
// epilogues must still move.
func (x *index) counterfactual(e *kernels.Experiment, metric, cand, base, shape string, ml analysis.MainLoops) (Counterfactual, bool) {
	cc, bc := x.cells[cellkey.New(e.Name, cand, shape)], x.cells[cellkey.New(e.Name, base, shape)]
	if !okCell(cc) || !okCell(bc) {
		return Counterfactual{}, false
	}
	cf := Counterfactual{Assumptions: []string{assumeFreeEpilogue}}
	switch metric {
	case MetricSpeedup, MetricTimeUs, MetricGPUSpeedup:
		device := metric == MetricGPUSpeedup
		mhz, from := x.loopClock(e.Name, cand, shape, device)
		if mhz <= 0 {
			mhz, from = ml.CandClockHz/1e6, "the median clock of the candidate's GEMMs in the ncu kernel pass (no clock recorded by the timing pass)"
		}
		if mhz <= 0 || ml.CandCycles <= ml.BaseCycles {
			return cf, false
		}
		cf.ExtraCycles, cf.ClockMHz = ml.CandCycles-ml.BaseCycles, mhz
		dt := cf.ExtraCycles / (mhz * 1e6) * 1e3 // ms
		cf.TimeRemovedUs = dt * 1e3
		cf.Assumptions = append(cf.Assumptions, fmt.Sprintf("the candidate's GEMMs take the baseline's SM cycles: %.3g extra cycles at %.0f MHz, %s, are %.1f us",
			cf.ExtraCycles, mhz, from, cf.TimeRemovedUs))
		var ct, bt float64
		if device {
			var notes []string
			ct, notes = oneCallDeviceMs(cc)
			b, bn := oneCallDeviceMs(bc)
			bt, notes = b, append(notes, bn...)
			cf.Assumptions = append(cf.Assumptions, notes...)
		} else {
			if cc.Wall.N == 0 || bc.Wall.N == 0 {
				return cf, false
			}
			ct, bt = cc.Wall.Center, bc.Wall.Center
		}
		if ct-dt <= 0 || bt <= 0 {
			return cf, false
		}
		switch metric {
		case MetricTimeUs:
			cf.AtBest = (ct - dt) * 1e3
		default:
			cf.AtBest = bt / (ct - dt)
		}
		return cf, true
	case MetricDRAMRatio, MetricDRAMReduction, MetricDRAMBytes:
		cb, _ := dramOf(cc)
		bb, _ := dramOf(bc)
		if cb <= 0 || bb <= 0 {
			return cf, false
		}
		cf.ExtraGEMMBytes = ml.ExtraDRAM()
		eb, how := x.epilogueBytes(e, cand, shape)
		cf.EpilogueBytes = &eb
		cf.BytesRemoved = math.Max(0, cf.ExtraGEMMBytes-eb)
		cf.Assumptions = append(cf.Assumptions, how)
		if cf.BytesRemoved == 0 {
			cf.Assumptions = append(cf.Assumptions, fmt.Sprintf("the candidate's GEMMs move %s more than the baseline's, no more than the %s its fused epilogues must move: no main-loop excess to take off, so the measured value stands",
				Bytes(cf.ExtraGEMMBytes), Bytes(eb)))
		} else {
			cf.Assumptions = append(cf.Assumptions, fmt.Sprintf("the candidate's GEMMs move the baseline's GEMM bytes plus those of its epilogues: %s of their %s excess (kernel pass) taken off its range-pass DRAM bytes",
				Bytes(cf.BytesRemoved), Bytes(cf.ExtraGEMMBytes)))
		}
		c := cb - cf.BytesRemoved
		switch metric {
		case MetricDRAMBytes:
			cf.AtBest = c
		case MetricDRAMReduction:
			cf.AtBest = 1 - c/bb
		default:
			cf.AtBest = c / bb
		}
		return cf, true
	}
	return cf, false
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

// epilogueBytes evaluates the candidate's epilogue_bytes (claims.yaml
// theory) at a shape, with the assumption it makes in words.
func (x *index) epilogueBytes(e *kernels.Experiment, variant, shape string) (float64, string) {
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
	return b, fmt.Sprintf("the candidate still moves the %s its fused epilogues must read and write (%s = %s: %s)", Bytes(b), th.EpilogueBytes, Bytes(b), what)
}

// counterfactualText states a counterfactual in the decision's reason.
func counterfactualText(metric string, cf Counterfactual) string {
	how := fmt.Sprintf("%.1f us less GEMM time", cf.TimeRemovedUs)
	if cf.TimeRemovedUs == 0 {
		how = fmt.Sprintf("%s less GEMM DRAM traffic", Bytes(cf.BytesRemoved))
	}
	return fmt.Sprintf("had they matched the baseline's (%s), %s would be at best %s (an optimistic bound, not judged: the fused epilogue counted as free)", how, metric, fmtMetric(metric, cf.AtBest))
}
