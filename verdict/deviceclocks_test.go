package verdict

import (
	"math"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
)

// TestClocksDifferOnDeviceLoops: a gpu_speedup (gated_ssm latency,
// triton-epilogue over eager, > 1.25x) is checked on the clocks of the
// device-time loops. Device medians 0.16 ms and 0.12 ms give 1.333x; with
// the candidate's device loop at 1590 MHz and the baseline's at 1410 MHz,
// the clock-corrected speedup reaches down to the measured low bound x
// 1410/1590 = 0.887x, under 1.25x: the verdict would change, so
// clocks-differ voids it. The wall-loop clocks (equal) say nothing here.
func TestClocksDifferOnDeviceLoops(t *testing.T) {
	const gs = "B=16,T=512,d=768,H=12,dk=64,n=16"
	in := syntheticJudged(t)
	for i := range in.Run.Cells {
		c := &in.Run.Cells[i]
		if c.Experiment != "gated_ssm" || c.Shape != gs {
			continue
		}
		switch c.Variant {
		case "triton-epilogue":
			setDevice(c, 0.119, 0.121)
		case "eager":
			setDevice(c, 0.159, 0.161)
		}
	}
	eager, cand := cellkey.New("gated_ssm", "eager", gs), cellkey.New("gated_ssm", "triton-epilogue", gs)
	in.CellSMClocks = map[cellkey.Key]float64{eager: 1500, cand: 1500}
	in.CellDeviceSMClocks = map[cellkey.Key]float64{eager: 1410, cand: 1590}
	rep := Build(&in)
	var d *Decision
	for i := range rep.Decisions {
		if x := &rep.Decisions[i]; x.Experiment == "gated_ssm" && x.Shape == gs && x.Metric == MetricGPUSpeedup && x.Candidate == "triton-epilogue" {
			d = x
		}
	}
	if d == nil || d.Measured == nil {
		t.Fatalf("no measured gpu_speedup decision of triton-epilogue at %s", gs)
	}
	want := "clocks-differ: SM clock of the device-time loop was 1410 MHz for eager and 1590 MHz for triton-epilogue"
	if d.Verdict != VerdictInconclusive || !strings.Contains(d.Reason, want) {
		t.Errorf("verdict %s, reason:\n  %s\nwant INCONCLUSIVE with %q", d.Verdict, d.Reason, want)
	}
}

// TestPairedDecidesOverLoopClocks: the same device loops at 1410 and
// 1590 MHz, plus a paired record of the graph launch (ten pairs with
// ratios 1.30 ... 1.39, halves of each pair at one clock): the latency
// claim is judged on the pairs (median sqrt(1.34 x 1.35), interval
// [x_(2), x_(9)] = [1.31, 1.38], all above 1.25: GO), and the loops'
// clocks no longer void it.
func TestPairedDecidesOverLoopClocks(t *testing.T) {
	const gs = "B=16,T=512,d=768,H=12,dk=64,n=16"
	in := syntheticJudged(t)
	for i := range in.Run.Cells {
		c := &in.Run.Cells[i]
		if c.Experiment != "gated_ssm" || c.Shape != gs {
			continue
		}
		switch c.Variant {
		case "triton-epilogue":
			setDevice(c, 0.119, 0.121)
		case "eager":
			setDevice(c, 0.159, 0.161)
		}
	}
	eager, cand := cellkey.New("gated_ssm", "eager", gs), cellkey.New("gated_ssm", "triton-epilogue", gs)
	in.CellSMClocks = map[cellkey.Key]float64{eager: 1500, cand: 1500}
	in.CellDeviceSMClocks = map[cellkey.Key]float64{eager: 1410, cand: 1590}
	var base, cnd []float64
	for i := range 10 {
		base, cnd = append(base, 0.1*(1.30+0.01*float64(i))), append(cnd, 0.1)
	}
	iv, _ := analysis.PairedSpeedup(base, cnd, 0.95)
	pk := analysis.PairKey{Experiment: "gated_ssm", Shape: gs, Baseline: "eager", Candidate: "triton-epilogue", Launch: "graph"}
	in.Paired = map[analysis.PairKey]*analysis.Paired{pk: {Key: pk, Speedup: iv, Pairs: 10, MinMHz: 1600, MaxMHz: 1650, MaxClockGap: 0.01}}
	rep := Build(&in)
	var d *Decision
	for i := range rep.Decisions {
		if x := &rep.Decisions[i]; x.Experiment == "gated_ssm" && x.Shape == gs && x.Metric == MetricGPUSpeedup && x.Candidate == "triton-epilogue" {
			d = x
		}
	}
	if d == nil || d.Measured == nil {
		t.Fatalf("no measured gpu_speedup decision of triton-epilogue at %s", gs)
	}
	m := d.Measured
	if math.Abs(m.Center-math.Sqrt(1.34*1.35)) > 1e-9 || math.Abs(m.Lo-1.31) > 1e-9 || math.Abs(m.Hi-1.38) > 1e-9 || m.N != 10 {
		t.Errorf("measured %+v, want sqrt(1.34*1.35) in [1.31, 1.38] over 10 pairs", *m)
	}
	if d.Verdict != VerdictGo || d.Timing != "paired" || d.Launch != "graph" || strings.Contains(d.Reason, "clocks-differ") || !strings.Contains(d.Reason, "paired timing, graph launch") {
		t.Errorf("verdict %s timing %q launch %q, reason:\n  %s\nwant GO on the pairs", d.Verdict, d.Timing, d.Launch, d.Reason)
	}
}
