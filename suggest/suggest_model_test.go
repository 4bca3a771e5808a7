package suggest_test

import (
	"math"
	"testing"

	"github.com/rooftool/rooftool/spec"
	"github.com/rooftool/rooftool/suggest"
)

// step builds one kernel of a dataflow sequence.
func step(t *testing.T, s string, gemm bool, readB, writeB, ns float64) suggest.Kernel {
	t.Helper()
	st, err := spec.ParseFlowStep(s)
	if err != nil {
		t.Fatal(err)
	}
	return suggest.Kernel{Name: st.Op, GEMM: gemm, DRAMReadBytes: readB, DRAMWriteBytes: writeB, BytesKnown: true, DurationNs: ns, Step: &st}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// A GEMM, then silu of its output and mul of that by an input: Inductor
// merges silu and mul. Hand figures, S the intermediate b's size:
// silu reads S (its one input: a is S), writes S; mul reads b and o (2S),
// writes S. Each kernel runs 1000 ns + bytes / 3000 B/ns: silu 2S, mul 3S.
// Kernel pass: b's write (S) + its read (S) = 2S. Warm: b's write S, its
// read S where S (reuse distance 0: nothing between) exceeds the L2, 0
// where it fits; and the merged kernel writes c over a (rule 3: a, the
// GEMM's output, is read by silu alone and is as large as c), which saves
// a's write-back where a is still in L2 when silu reads it (S fits). Time:
// silu + mul - (1000 + (5S - 2S)/3000).
func TestPredictInductorMergeL2(t *testing.T) {
	const l2 = 50e6
	for _, tc := range []struct {
		S, warm float64
	}{
		{30e6, 30e6 + 30e6}, // 30 MB fits the 50 MB L2: b's read not charged, its write is; a's write-back saved
		{270e6, 2 * 270e6},  // 270 MB does not: b's write and read charged, a written back
	} {
		S := tc.S
		seq := []suggest.Kernel{
			step(t, "a = mm(x, W)", true, 2*S, S, 1e6),
			step(t, "b = silu(a)", false, S, S, 1000+2*S/3000),
			step(t, "c = mul(b, o)", false, 2*S, S, 1000+3*S/3000),
		}
		p, ok := suggest.PredictInductor(seq, []string{"c"}, false, l2, 0)
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
// the GEMM, after copying x into y (a device-to-device copy, no kernel).
// S = 10e6 B each. The GEMM reads 20e6 and writes y0, 10e6 B (kernel
// pass), in 1e5 ns; the add reads y0 and x (20e6 B) and writes y in 20000
// ns. Kernel pass: y0's write 10e6 + its read 10e6. Warm, on a 50 MB L2:
// y0 written (10e6), its read (right after the write) not charged; the
// copy of x stays in L2 until the GEMM's epilogue overwrites it (10e6 +
// the GEMM's 30e6 fit): 10e6 saved. On a 35 MB L2 the copy does not stay:
// its write-back and the epilogue's read of it cost 2 x 10e6, -10e6 saved.
// Time at the add's rate (30e6 B / 20000 ns = 1500 B/ns): the GEMM's DRAM
// term 30e6 / 1500 = 20000 ns of its 1e5, the rest sqrt(1e10 - 4e8) =
// 97979.59 ns; reading x (C) grows the DRAM term by 6666.67 ns and the
// GEMM to sqrt(26666.67^2 + 97979.59^2) = 101543.64 ns: kernel time saved
// 20000 - 1543.64 = 18456.36 ns. The copy moves 2 x 10e6 B: 13333.33 ns;
// the call saves 5123.03 ns.
func TestPredictInductorAddmm(t *testing.T) {
	seq := []suggest.Kernel{
		step(t, "y0 = mm(go, W)", true, 20e6, 10e6, 1e5),
		step(t, "y = add(y0, x)", false, 20e6, 10e6, 20000),
	}
	for _, tc := range []struct{ l2, warm float64 }{{50e6, 10e6}, {35e6, -10e6}} {
		p, _ := suggest.PredictInductor(seq, []string{"y"}, false, tc.l2, 0)
		if p.Kernels != 1 || p.Folds != 1 || !near(p.DRAMFlushed, 20e6) || !near(p.DRAMWarm, tc.warm) ||
			math.Abs(p.TimeNs-18456.36) > 0.01 || math.Abs(p.CopyNs-13333.33) > 0.01 || math.Abs(p.CallNs()-5123.03) > 0.01 {
			t.Errorf("L2 %g: %+v; want warm %g, kernel time 18456.36 ns, copy 13333.33 ns", tc.l2, p, tc.warm)
		}
	}
	// y0 returned by the call: no fold.
	if p, _ := suggest.PredictInductor(seq, []string{"y", "y0"}, false, 50e6, 0); p.Kernels != 0 {
		t.Errorf("y0 an output: %+v", p)
	}
}

// Merges Inductor does not make: across the forward/backward boundary
// (sigmoid in the forward, its backward reading dalpha, the gradient of
// the output alpha), around a GEMM on the dataflow, and two reductions.
func TestPredictInductorNoMerge(t *testing.T) {
	fb := []suggest.Kernel{
		step(t, "alpha = sigmoid(a)", false, 1e6, 1e6, 5000),
		step(t, "da = sigmoid_backward(dalpha, alpha)", false, 2e6, 1e6, 6000),
	}
	if p, _ := suggest.PredictInductor(fb, []string{"alpha"}, true, 50e6, 0); p.Kernels != 0 || p.GradientStart != 1 {
		t.Errorf("across the backward boundary: %+v", p)
	}
	if p, _ := suggest.PredictInductor(fb, []string{"alpha"}, false, 50e6, 0); p.Kernels != 1 {
		t.Errorf("one graph: %+v, want the two merged", p)
	}
	around := []suggest.Kernel{
		step(t, "b = silu(a)", false, 1e6, 1e6, 5000),
		step(t, "g = mm(b, W)", true, 2e6, 1e6, 9000),
		step(t, "c = mul(b, g)", false, 2e6, 1e6, 6000),
	}
	if p, _ := suggest.PredictInductor(around, []string{"c"}, false, 50e6, 0); p.Kernels != 0 {
		t.Errorf("around a GEMM: %+v", p)
	}
	two := []suggest.Kernel{
		step(t, "s = sum(a)", false, 1e6, 1e3, 5000),
		step(t, "n = clamp_min(s)", false, 1e3, 1e3, 2000),
		step(t, "m = sum(n)", false, 1e3, 1e3, 2000),
	}
	if p, _ := suggest.PredictInductor(two, []string{"m"}, false, 50e6, 0); p.Kernels != 1 {
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
	for _, c := range suggest.CheckSuggestionsWith(res.Run, suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), 132) {
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

// The warm-L2 figure by hand, gated_ssm eager vs compiled at T=2048 in run
// 140505 (bytes from the kernel pass, as TestCheckSuggestionsCommittedRun
// lists them): SiLU reads g_raw, 134246912 B, so gate is as large; merging
// SiLU and mul saves mul's read of gate (134 MB does not fit the 50 MiB
// L2; gate is returned, its write stays). The add reads y0 and x,
// 268481024 B: y0 is 134240512 B; folding the add saves y0's write and
// read (2 x 134240512) and costs the addend's copy into y, written back
// and read again by the GEMM (2 x 134240512): 0. Warm: 134246912 B against
// the range pass's 173339648 B (-22.6%).
func TestPredictInductorWarmByHand(t *testing.T) {
	res := loadCommittedResult(t, "2026-11-23-h100-140505")
	for _, c := range suggest.CheckSuggestionsWith(res.Run, suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), 132) {
		if c.Experiment != "gated_ssm" || c.Candidate != "compiled" || c.Shape != "B=16,T=2048,d=2048,H=16,dk=128,n=16" {
			continue
		}
		if !near(c.ModelDRAMWarmBytes, 134246912) || c.MeasDRAMBytes != 173339648 || math.Abs(c.ErrModelWarmPct-(-22.55)) > 0.05 {
			t.Errorf("warm %g B against %g (%.2f%%); want 134246912 against 173339648 (-22.55%%)", c.ModelDRAMWarmBytes, c.MeasDRAMBytes, c.ErrModelWarmPct)
		}
		return
	}
	t.Error("no gated_ssm eager vs compiled check at T=2048")
}

// A chain's time saved is its folded time less the epilogue's operand
// reads at the streaming rate. a = mm(x, W) writes 10e6 B; c = mul(a, o)
// reads a and o (20e6 B), writes 10e6 B in 10000 ns: the edge reads
// max(10e6, 20e6/2) = 10e6 of a, so the epilogue reads o's 10e6 B; the one
// kernel without tensor work streams 30e6 B / 10000 ns = 3000 B/ns.
// Time saved: 10000 - 10e6/3000 = 6666.67 ns; folded time 10000 ns.
// DRAM: a (10e6 B, not returned) is no longer written nor read: 20e6 B on
// the kernel pass; warm, on a 50 MB L2 its read right after its write
// hits, its write is still saved: 10e6 B; on a 5 MB L2, 20e6 B.
func TestChainTimeSaved(t *testing.T) {
	seq := []suggest.Kernel{
		step(t, "a = mm(x, W)", true, 30e6, 10e6, 50000),
		step(t, "c = mul(a, o)", false, 20e6, 10e6, 10000),
	}
	cs, _ := suggest.FindChains("r", 0, seq, suggest.Options{Outputs: []string{"c"}})
	if len(cs) != 1 {
		t.Fatalf("%d chains, want 1", len(cs))
	}
	c := cs[0]
	if c.FoldedTimeNs != 10000 || !c.TimeSavedKnown || !near(c.EpilogueBytes, 10e6) || !near(c.TimeSavedNs, 10000-10e6/3000.0) {
		t.Errorf("%+v", c)
	}
	for _, tc := range []struct{ l2, warm float64 }{{50e6, 10e6}, {5e6, 20e6}} {
		cs, _ := suggest.FindChains("r", 0, seq, suggest.Options{Outputs: []string{"c"}, L2Bytes: tc.l2})
		if !near(cs[0].DRAMSavedBytes, 20e6) || !near(cs[0].DRAMSavedWarmBytes, tc.warm) {
			t.Errorf("L2 %g: flushed %g, warm %g; want 20e6, %g", tc.l2, cs[0].DRAMSavedBytes, cs[0].DRAMSavedWarmBytes, tc.warm)
		}
	}
}

// The plain listing's merges for gla_proj's forward+backward baseline (run
// 161238): F.normalize's forward, norm + clamp_min + div (3 kernels, 2
// saved: compiled-fwdbwd runs one triton_per_fused_..._linalg_vector_norm
// kernel for them) and its backward's 14 kernels (13 saved: one
// triton_per_fused_add_clamp_min_div_eq_... kernel), ranked after the
// dataflow chains.
func TestSuggestMergesGLAProj(t *testing.T) {
	res := loadCommittedResult(t, "2026-11-23-h100-161238")
	for _, c := range res.Run.Cells {
		if c.Experiment != "gla_proj" || c.Variant != "unfused-fwdbwd" || c.Status != "ok" {
			continue
		}
		ms := suggest.Merges(c, res.Run.Kernels, suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), float64(res.Run.Ceilings.L2Bytes))
		if len(ms) != 2 || ms[0].KernelsSaved != 2 || ms[1].KernelsSaved != 13 || ms[0].Basis != suggest.BasisMerge {
			t.Fatalf("%+v", ms)
		}
		cs := append([]suggest.Chain{ms[0]}, suggest.Chain{Basis: suggest.BasisLaunchOrder}, suggest.Chain{Basis: suggest.BasisDataflow})
		suggest.RankChains(cs)
		if cs[0].Basis != suggest.BasisDataflow || cs[1].Basis != suggest.BasisMerge {
			t.Errorf("ranked %s, %s, %s", cs[0].Basis, cs[1].Basis, cs[2].Basis)
		}
		return
	}
	t.Fatal("no gla_proj unfused-fwdbwd cell")
}

// Rule 3, in place: sigmoid writes its output over the GEMM's output it
// alone reads (S = 10e6 B each, right after its write on a 50 MB L2): a's
// write-back, 10e6 B warm, nothing on the kernel pass, no kernel saved. Not
// where a later kernel (a GEMM) also reads a, nor where the output is
// smaller (a row sum), nor where a no longer fits (a 5 MB L2).
func TestPredictInductorInPlace(t *testing.T) {
	for _, tc := range []struct {
		name string
		seq  []suggest.Kernel
		l2   float64
		warm float64
	}{
		{"sigmoid over a", []suggest.Kernel{
			step(t, "a = mm(x, W)", true, 20e6, 10e6, 1e5),
			step(t, "b = sigmoid(a)", false, 10e6, 10e6, 7000),
		}, 50e6, 10e6},
		{"a read later", []suggest.Kernel{
			step(t, "a = mm(x, W)", true, 20e6, 10e6, 1e5),
			step(t, "b = sigmoid(a)", false, 10e6, 10e6, 7000),
			step(t, "c = mm(a, W2)", true, 20e6, 10e6, 1e5),
		}, 50e6, 0},
		{"a smaller output", []suggest.Kernel{
			step(t, "a = mm(x, W)", true, 20e6, 10e6, 1e5),
			step(t, "b = sum(a)", false, 10e6, 1e4, 7000),
		}, 50e6, 0},
		{"a out of L2", []suggest.Kernel{
			step(t, "a = mm(x, W)", true, 20e6, 10e6, 1e5),
			step(t, "b = sigmoid(a)", false, 10e6, 10e6, 7000),
		}, 5e6, 0},
	} {
		outs := []string{"b"}
		if tc.name == "a read later" {
			outs = []string{"b", "c"}
		}
		p, _ := suggest.PredictInductor(tc.seq, outs, false, tc.l2, 0)
		if p.Kernels != 0 || p.DRAMFlushed != 0 || !near(p.DRAMWarm, tc.warm) || (len(p.InPlace) > 0) != (tc.warm > 0) {
			t.Errorf("%s: %+v; want warm %g", tc.name, p, tc.warm)
		}
	}
}
