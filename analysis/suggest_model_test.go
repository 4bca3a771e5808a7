package analysis_test

import (
	"math"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/kernels"
)

// step builds one kernel of a dataflow sequence.
func step(t *testing.T, s string, gemm bool, readB, writeB, ns float64) analysis.SuggestKernel {
	t.Helper()
	st, err := kernels.ParseFlowStep(s)
	if err != nil {
		t.Fatal(err)
	}
	return analysis.SuggestKernel{Name: st.Op, GEMM: gemm, DRAMReadBytes: readB, DRAMWriteBytes: writeB, BytesKnown: true, DurationNs: ns, Step: &st}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// A GEMM, then silu of its output and mul of that by an input: Inductor
// merges silu and mul. Hand figures, S the intermediate b's size:
// silu reads S (its one input: a is S), writes S; mul reads b and o (2S),
// writes S. Each kernel runs 1000 ns + bytes / 3000 B/ns: silu 2S, mul 3S.
// Kernel pass: b's write (S) + its read (S) = 2S. Warm: b's write S, its
// read S where S (reuse distance 0: nothing between) exceeds the L2, 0
// where it fits. Time: silu + mul - (1000 + (5S - 2S)/3000).
func TestPredictInductorMergeL2(t *testing.T) {
	const l2 = 50e6
	for _, tc := range []struct {
		S, warm float64
	}{
		{30e6, 30e6},       // 30 MB fits the 50 MB L2: the read is not charged, the write is
		{270e6, 2 * 270e6}, // 270 MB does not: write and read charged
	} {
		S := tc.S
		seq := []analysis.SuggestKernel{
			step(t, "a = mm(x, W)", true, 2*S, S, 1e6),
			step(t, "b = silu(a)", false, S, S, 1000+2*S/3000),
			step(t, "c = mul(b, o)", false, 2*S, S, 1000+3*S/3000),
		}
		p, ok := analysis.PredictInductor(seq, []string{"c"}, false, l2, 0)
		if !ok {
			t.Fatal("no prediction")
		}
		wantTime := (1000 + 2*S/3000) + (1000 + 3*S/3000) - (1000 + 3*S/3000)
		if p.Kernels != 1 || p.Folds != 0 || !near(p.DRAMFlushed, 2*S) || !near(p.DRAMWarm, tc.warm) ||
			!near(p.DRAMRate, 3000) || !near(p.LaunchNs, 1000) || !near(p.TimeNs, wantTime) {
			t.Errorf("S=%g: %+v; want 1 kernel, flushed %g, warm %g, time %g", S, p, 2*S, tc.warm, wantTime)
		}
	}
}

// y = add(y0, x) after y0 = mm(go, W): Inductor's addmm folds the add into
// the GEMM. The GEMM wrote 30e6 B of y0 (kernel pass); the add reads y0
// and x, 60e6 B (each 30e6), in 20000 ns. Kernel pass: 30e6 + 30e6; warm
// on a 50 MB L2 (y0 read right after its write): 30e6 written, read
// not charged; time: 20000 - x's 30e6 B at the one non-GEMM kernel's rate
// (90e6 B / 20000 ns = 4500 B/ns): 20000 - 6666.67 ns.
func TestPredictInductorAddmm(t *testing.T) {
	seq := []analysis.SuggestKernel{
		step(t, "y0 = mm(go, W)", true, 40e6, 30e6, 1e5),
		step(t, "y = add(y0, x)", false, 60e6, 30e6, 20000),
	}
	p, _ := analysis.PredictInductor(seq, []string{"y"}, false, 50e6, 0)
	if p.Kernels != 1 || p.Folds != 1 || !near(p.DRAMFlushed, 60e6) || !near(p.DRAMWarm, 30e6) || !near(p.TimeNs, 20000-30e6/4500.0) {
		t.Errorf("%+v", p)
	}
	// y0 returned by the call: no fold.
	if p, _ := analysis.PredictInductor(seq, []string{"y", "y0"}, false, 50e6, 0); p.Kernels != 0 {
		t.Errorf("y0 an output: %+v", p)
	}
}

// Merges Inductor does not make: across the forward/backward boundary
// (sigmoid in the forward, its backward reading dalpha, the gradient of
// the output alpha), around a GEMM on the dataflow, and two reductions.
func TestPredictInductorNoMerge(t *testing.T) {
	fb := []analysis.SuggestKernel{
		step(t, "alpha = sigmoid(a)", false, 1e6, 1e6, 5000),
		step(t, "da = sigmoid_backward(dalpha, alpha)", false, 2e6, 1e6, 6000),
	}
	if p, _ := analysis.PredictInductor(fb, []string{"alpha"}, true, 50e6, 0); p.Kernels != 0 || p.GradientStart != 1 {
		t.Errorf("across the backward boundary: %+v", p)
	}
	if p, _ := analysis.PredictInductor(fb, []string{"alpha"}, false, 50e6, 0); p.Kernels != 1 {
		t.Errorf("one graph: %+v, want the two merged", p)
	}
	around := []analysis.SuggestKernel{
		step(t, "b = silu(a)", false, 1e6, 1e6, 5000),
		step(t, "g = mm(b, W)", true, 2e6, 1e6, 9000),
		step(t, "c = mul(b, g)", false, 2e6, 1e6, 6000),
	}
	if p, _ := analysis.PredictInductor(around, []string{"c"}, false, 50e6, 0); p.Kernels != 0 {
		t.Errorf("around a GEMM: %+v", p)
	}
	two := []analysis.SuggestKernel{
		step(t, "s = sum(a)", false, 1e6, 1e3, 5000),
		step(t, "n = clamp_min(s)", false, 1e3, 1e3, 2000),
		step(t, "m = sum(n)", false, 1e3, 1e3, 2000),
	}
	if p, _ := analysis.PredictInductor(two, []string{"m"}, false, 50e6, 0); p.Kernels != 1 {
		t.Errorf("two reductions: %+v, want clamp_min merged into one of them only", p)
	}
}

// Against what torch.compile's default mode launched in run 161238: the
// model predicts the kernels it saved, from the baselines' dataflows alone.
// gated_ssm (8 - 6): silu and mul merged, the add in the output GEMM's
// epilogue. gla_proj forward (8 - 8): nothing. gla_proj forward+backward
// (41 - 22): the four dx adds in their GEMMs, F.normalize's forward
// (norm, clamp_min, div: 3 -> 1) and backward (14 -> 1).
func TestPredictInductorCommittedRun(t *testing.T) {
	res := loadCommittedResult(t, "2026-11-23-h100-161238")
	want := map[[2]string]int{{"gated_ssm", "compiled"}: 2, {"gla_proj", "compiled"}: 0, {"gla_proj", "compiled-fwdbwd"}: 19}
	seen := 0
	for _, c := range analysis.CheckSuggestionsWith(res.Run, analysis.FlowsOf(res.Experiments), analysis.ModelsOf(res.Experiments), 132) {
		w, ok := want[[2]string{c.Experiment, c.Candidate}]
		if !ok {
			continue
		}
		seen++
		if !c.ModelKnown || c.ModelKernels != w || c.MeasKernels != w {
			t.Errorf("%s %s %s: model %v %d kernels, measured %d; want %d", c.Experiment, c.Shape, c.Candidate, c.ModelKnown, c.ModelKernels, c.MeasKernels, w)
		}
	}
	if seen != 4 {
		t.Errorf("%d checks of torch.compile's default mode, want 4", seen)
	}
}
