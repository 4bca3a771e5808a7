package verdict

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
)

func find(t *testing.T, r *Result, exp, claim, shape string) Decision {
	t.Helper()
	for _, d := range r.Decisions {
		if d.Experiment == exp && d.Claim == claim && (shape == "" || d.Shape == shape) {
			return d
		}
	}
	t.Fatalf("no decision %s/%s at %q", exp, claim, shape)
	return Decision{}
}

func TestVerdictsSynthetic(t *testing.T) {
	in := syntheticJudged(t)
	r := Build(&in)
	const gs = "B=16,T=512,d=768,H=12,dk=64,n=16"
	for _, tc := range []struct {
		exp, claim, shape string
		verdict           string
		reason            string // substring
	}{
		// dual-acc: 1 kernel <= 1.
		{"swiglu", "single-kernel", "", VerdictGo, "1 clears <= 1"},
		// 131 MB <= 135 MB.
		{"swiglu", "no-intermediate", "", VerdictGo, "131.0 MB clears <= 135.0 MB"},
		// 80 us [79, 81] misses <= 15 us.
		{"swiglu", "latency", "", VerdictNoGo, "80.00 µs and its whole 95% interval [79.00 µs, 81.00 µs] miss <= 15.00 µs"},
		// gemm2-epilogue failed in timing, skipped in nsys.
		{"swiglu", "two-kernels", "", VerdictNotMeasured, "gemm2-epilogue: nsys pass skipped: timing failed"},
		// dual-acc-persistent is not in the run at all.
		{"swiglu", "persistent-latency", "", VerdictNotMeasured, "dual-acc-persistent: not in the run's manifest"},
		// semi-fused: interval [0.96, 1.38] straddles 1.3.
		{"scan_gate", "speedup-semi-fused", "", VerdictInconclusive, "straddles > 1.300x"},
		// megakernel is 4x slower: the whole interval misses.
		{"scan_gate", "speedup-megakernel", "", VerdictNoGo, "miss > 1.300x"},
		// DRAM ratio 1/9 would clear < 0.5, but the working set is in L2.
		{"scan_gate", "dram-megakernel", "", VerdictInconclusive, "voided by l2-resident"},
		{"scan_gate", "launches-megakernel", "", VerdictGo, ""},
		// 1.667x clears 1.1, but eager has 4 samples: few-samples voids time metrics.
		{"gated_ssm", "speedup-d768", gs, VerdictInconclusive, "voided by few-samples"},
		// cutlass-evt was skipped: not installed.
		{"gated_ssm", "speedup-d768-cutlass", gs, VerdictNotMeasured, "requires cutlass: not installed"},
		{"gated_ssm", "kernel-launches", gs, VerdictGo, "8 -> 2 kernels"},
		{"gated_ssm", "elementwise-kernels", gs, VerdictGo, ""},
		// (92 - 80) / 40 = 0.3 <= 0.3636.
		{"gated_ssm", "elementwise-hbm", gs, VerdictGo, "0.300x clears <= 0.364x"},
		{"gated_ssm", "hbm-traffic", gs, VerdictGo, ""},
		// 3.9e-3 misses < 1e-3.
		{"gated_ssm", "rel-error", gs, VerdictNoGo, "1.50e-03 misses < 1.00e-03; against eager's output (check pass); against the float32 reference 3.90e-03"},
		// The d=2048 shape was not run.
		{"gated_ssm", "speedup-d2048", "", VerdictNotMeasured, "not in the run's manifest"},
		// gla_proj is not in the run: its claims stay, NOT MEASURED.
		{"gla_proj", "speedup", "", VerdictNotMeasured, "experiment gla_proj is not in this run"},
	} {
		d := find(t, r, tc.exp, tc.claim, tc.shape)
		if d.Verdict != tc.verdict || !strings.Contains(d.Reason, tc.reason) {
			t.Errorf("%s/%s at %s: %s (%s), want %s with %q", tc.exp, tc.claim, d.Shape, d.Verdict, d.Reason, tc.verdict, tc.reason)
		}
	}
	// Every claim of every experiment appears at least once.
	exps, _ := spec.Load()
	for _, e := range exps {
		for _, c := range e.Claims {
			find(t, r, e.Name, c.ID, "")
		}
	}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		op   string
		thr  float64
		want string
	}{
		{Value{1.3, 1.2, 1.4, 30}, ">", 1.1, VerdictGo},
		{Value{1.3, 1.0, 1.4, 30}, ">", 1.1, VerdictInconclusive},
		{Value{1.0, 0.9, 1.05, 30}, ">", 1.1, VerdictNoGo},
		{Value{1.05, 0.9, 1.2, 30}, ">", 1.1, VerdictInconclusive},
		{Value{1.1, 1.1, 1.1, 0}, ">", 1.1, VerdictNoGo},
		{Value{1.1, 1.1, 1.1, 0}, ">=", 1.1, VerdictGo},
		{Value{12, 11, 13, 30}, "<=", 15, VerdictGo},
		{Value{16, 14, 18, 30}, "<=", 15, VerdictInconclusive},
		{Value{0.5, 0.5, 0.5, 0}, "<", 0.5, VerdictNoGo},
	} {
		if got, why := judge(MetricSpeedup, tc.v, tc.op, tc.thr); got != tc.want {
			t.Errorf("judge(%+v %s %v) = %s (%s), want %s", tc.v, tc.op, tc.thr, got, why, tc.want)
		}
	}
}

func TestVoids(t *testing.T) {
	for _, tc := range []struct {
		w      analysis.Warning
		metric string
		want   bool
	}{
		{analysis.Warning{Code: analysis.WarnL2Resident, Metric: "dram_bytes"}, MetricDRAMRatio, true},
		{analysis.Warning{Code: analysis.WarnL2Resident}, MetricElementwiseDRAM, true},
		{analysis.Warning{Code: analysis.WarnL2Resident}, MetricSpeedup, false},
		{analysis.Warning{Code: analysis.WarnRangeBelowFloor, Metric: "dram_bytes"}, MetricDRAMRatio, true},
		{analysis.Warning{Code: analysis.WarnRangeBelowFloor, Metric: "dram_bytes"}, MetricDRAMBytes, true},
		{analysis.Warning{Code: analysis.WarnRangeBelowFloor, Metric: "dram_bytes"}, MetricSpeedup, false},
		{analysis.Warning{Code: analysis.WarnLaunchBound}, MetricTimeUs, true},
		{analysis.Warning{Code: analysis.WarnLaunchBound}, MetricSpeedup, false},
		{analysis.Warning{Code: analysis.WarnFewSamples, Metric: "speedup"}, MetricSpeedup, true},
		{analysis.Warning{Code: analysis.WarnFewSamples, Metric: "wall_ms"}, MetricTimeUs, true},
		{analysis.Warning{Code: analysis.WarnClocks}, MetricSpeedup, false}, // ncu vs timing: rates, not speedups
		{analysis.Warning{Code: analysis.WarnClocks, Metric: "speedup"}, MetricSpeedup, true},
		{analysis.Warning{Code: analysis.WarnClocks}, MetricKernelCount, false},
		{analysis.Warning{Code: analysis.WarnModelMismatch, Metric: "dram_bytes"}, MetricDRAMBytes, false},
		{analysis.Warning{Code: analysis.WarnMissing, Metric: "dram_reduction"}, MetricDRAMRatio, true},
		{analysis.Warning{Code: analysis.WarnMissing, Metric: "gpu_time_ns"}, MetricSpeedup, false},
		{analysis.Warning{Code: analysis.WarnMissing, Metric: "theory"}, MetricDRAMRatio, false},
		{analysis.Warning{Code: analysis.WarnMissing}, MetricKernelCount, false},
	} {
		if got := voids(tc.w, tc.metric); got != tc.want {
			t.Errorf("voids(%+v, %s) = %v, want %v", tc.w, tc.metric, got, tc.want)
		}
	}
}

// A forward+backward candidate is compared with the forward+backward
// baseline, from the cells' samples, when analysis compared it with the
// forward baseline only; too few samples give an unbounded interval.
func TestComparisonFallback(t *testing.T) {
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	const shape = "B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=16"
	samples := func(ms float64, n int) []float64 {
		var out []float64
		for i := 0; i < n; i++ {
			out = append(out, ms*(1+float64(i%3-1)*0.001))
		}
		return out
	}
	cell := func(v, role string, ms float64, n int) analysis.CellFact {
		s := samples(ms, n)
		iv, _ := analysis.SummarizeMs(s, 0.95)
		return analysis.CellFact{Experiment: "gla_proj", Variant: v, Role: role, Shape: shape, Status: "ok", Kernels: 4, Wall: iv, WallSamplesMs: s}
	}
	run := &analysis.Run{Cells: []analysis.CellFact{
		cell("unfused-fwdbwd", "baseline", 15.3, 30),
		cell("wide-gemm-fwdbwd", "candidate", 19.9, 30),
		cell("unfused", "baseline", 5.0, 3),
		cell("wide-gemm", "candidate", 5.1, 3),
	}}
	r := Build(&pipeline.Result{Run: run, Experiments: exps})
	var rows []CellRow
	for _, e := range r.Experiments {
		if e.Name == "gla_proj" {
			rows = e.Shapes[0].Rows
		}
	}
	got := map[string]*Value{}
	for _, row := range rows {
		got[row.Variant] = row.Speedup
	}
	if s := got["wide-gemm-fwdbwd"]; s == nil || s.Center < 0.76 || s.Center > 0.78 || s.Hi >= 1 {
		t.Errorf("wide-gemm-fwdbwd speedup %+v, want about 15.3/19.9 = 0.769 against unfused-fwdbwd", s)
	}
	s := got["wide-gemm"]
	if s == nil || !figure.Unbounded(s.Hi) {
		t.Fatalf("wide-gemm speedup %+v, want an unbounded interval from 3 samples", s)
	}
	if f := FormatBound(MetricSpeedup, s.Hi); f != "+∞" {
		t.Errorf("unbounded interval end formats as %q", f)
	}
	d := find(t, r, "gla_proj", "speedup", shape)
	if d.Verdict != VerdictInconclusive || !strings.Contains(d.Reason, "few-samples") {
		t.Errorf("gla_proj/speedup with 3 samples: %s (%s)", d.Verdict, d.Reason)
	}
}

// Clocks that differ between the two cells' timing passes void a speedup
// only when a clock correction could change its verdict.
func TestClockCheck(t *testing.T) {
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	in := &pipeline.Result{Experiments: exps, Run: &analysis.Run{
		Cells: []analysis.CellFact{
			{Experiment: "scan_gate", Variant: "three-kernel", Shape: "B=4,T=2048,d=256,dv=64", Status: "ok", Wall: analysis.Interval{Center: 1, Lo: 1, Hi: 1, N: 30}},
			{Experiment: "scan_gate", Variant: "semi-fused", Shape: "B=4,T=2048,d=256,dv=64", Status: "ok", Wall: analysis.Interval{Center: 1, Lo: 1, Hi: 1, N: 30}},
			{Experiment: "scan_gate", Variant: "megakernel", Shape: "B=4,T=2048,d=256,dv=64", Status: "ok", Wall: analysis.Interval{Center: 1, Lo: 1, Hi: 1, N: 30}},
		},
		Comparisons: []analysis.Comparison{
			// 1.25x [1.24, 1.26] misses > 1.3; the candidate ran 10% slower clocks: corrected up to 1.386.
			{Experiment: "scan_gate", Shape: "B=4,T=2048,d=256,dv=64", Baseline: "three-kernel", Candidate: "semi-fused", Speedup: analysis.Interval{Center: 1.25, Lo: 1.24, Hi: 1.26, N: 30}, P: 0.001},
			// 0.5x misses by far: the same clocks cannot rescue it.
			{Experiment: "scan_gate", Shape: "B=4,T=2048,d=256,dv=64", Baseline: "three-kernel", Candidate: "megakernel", Speedup: analysis.Interval{Center: 0.5, Lo: 0.49, Hi: 0.51, N: 30}, P: 0.001},
		}},
		CellSMClocks: map[cellkey.Key]float64{
			cellkey.New("scan_gate", "three-kernel", "B=4,T=2048,d=256,dv=64"): 1980,
			cellkey.New("scan_gate", "semi-fused", "B=4,T=2048,d=256,dv=64"):   1800,
			cellkey.New("scan_gate", "megakernel", "B=4,T=2048,d=256,dv=64"):   1800,
		}}
	r := Build(in)
	d := find(t, r, "scan_gate", "speedup-semi-fused", "")
	if d.Verdict != VerdictInconclusive || !strings.Contains(d.Reason, "clocks-differ: SM clock of the timed loop was 1980 MHz for three-kernel and 1800 MHz for semi-fused") {
		t.Errorf("semi-fused: %s (%s)", d.Verdict, d.Reason)
	}
	d = find(t, r, "scan_gate", "speedup-megakernel", "")
	if d.Verdict != VerdictNoGo || !strings.Contains(d.Reason, "a clock correction would not change the verdict") {
		t.Errorf("megakernel: %s (%s)", d.Verdict, d.Reason)
	}
}
