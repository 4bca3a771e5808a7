package suggest_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
	"github.com/rooftool/rooftool/suggest"
	"github.com/rooftool/rooftool/testdata"
)

// Launch order: a chain runs from a GEMM to the next GEMM; kernels before
// the first GEMM have no producer. DRAM saved, by hand: the GEMM's write
// 100, plus e1's read of it min(150, 100) = 100, plus e1's write 50 (e2
// reads it), plus e2's read of e1's output min(60, 50) = 50; e2's write
// stays: 300.
func TestFindChainsEdgeModel(t *testing.T) {
	k := func(name string, gemm bool, ns, r, w float64) suggest.Kernel {
		return suggest.Kernel{Name: name, GEMM: gemm, DurationNs: ns, DRAMReadBytes: r, DRAMWriteBytes: w, BytesKnown: true}
	}
	seq := []suggest.Kernel{
		k("fill", false, 5, 0, 10),
		k("gemm", true, 1000, 400, 100),
		k("e1", false, 20, 150, 50),
		k("e2", false, 30, 60, 40),
		k("gemm2", true, 900, 300, 80),
		k("gemm3", true, 900, 300, 80),
		{Name: "e3", DurationNs: 7}, // no ncu bytes
	}
	cs, no := suggest.FindChains("r", 7, seq, suggest.Options{Note: "no dataflow"})
	if len(cs) != 2 || len(no) != 0 {
		t.Fatalf("chains %+v, refused %+v; want 2 chains", cs, no)
	}
	if c := cs[0]; c.Index != 1 || c.Producer != "gemm" || c.KernelsSaved != 2 || c.FoldedTimeNs != 50 || !c.DRAMKnown || c.DRAMSavedBytes != 300 ||
		c.Basis != suggest.BasisLaunchOrder || c.Note != "no dataflow" {
		t.Errorf("first chain %+v, want at 1, 2 kernels, 50 ns, 300 B, launch order", c)
	}
	if c := cs[1]; c.Index != 5 || c.KernelsSaved != 1 || c.FoldedTimeNs != 7 || c.DRAMKnown || c.DRAMSavedBytes != 0 || c.Stream != 7 || c.Range != "r" {
		t.Errorf("second chain %+v, want at 5, 1 kernel, 7 ns, bytes unknown", c)
	}
	// A scan after the GEMM ends its launch-order chain: the gate kernel
	// after it is not folded.
	cs, no = suggest.FindChains("r", 0, []suggest.Kernel{k("gemm", true, 1000, 400, 100), k("_scan_gate_kernel", false, 30000, 10, 10), k("_gate_kernel", false, 5000, 20, 10)}, suggest.Options{})
	if len(cs) != 0 || len(no) != 1 || no[0].Index != 1 || !strings.Contains(no[0].Reason, "scan") {
		t.Errorf("GEMM, scan, gate: chains %+v, refused %+v; want none and the scan refused", cs, no)
	}
}

// A gated-SSM layer by its dataflow (the shape of kernels/gated_ssm's eager
// variant): SiLU reads the gate GEMM's output though the alpha GEMM was
// launched between them; the gating multiply reads the call's input o and
// SiLU's output; the residual add reads the output GEMM's and the input x.
// DRAM by hand (B): gate chain: g_raw's write 100 + SiLU's read of it
// min(100, max(100, 100/1)) = 100; gate is an output (its write stays), the
// multiply reads min(300, max(90, 300/2)) = 150: 350. alpha chain: write 8 +
// read min(12, max(8, 12)) = 12: 20. Output chain: write 90 + read min(280,
// max(90, 140)) = 140: 230.
func TestDataflowChains(t *testing.T) {
	step := func(s string) *spec.FlowStep {
		st, err := spec.ParseFlowStep(s)
		if err != nil {
			t.Fatal(err)
		}
		return &st
	}
	k := func(name string, gemm bool, ns, r, w float64, s string) suggest.Kernel {
		return suggest.Kernel{Name: name, GEMM: gemm, DurationNs: ns, DRAMReadBytes: r, DRAMWriteBytes: w, BytesKnown: true, Step: step(s)}
	}
	seq := []suggest.Kernel{
		k("gemm_qkv", true, 1000, 600, 300, "qkv = mm(x, W_qkv)"),
		k("gemm_gate", true, 300, 160, 100, "g_raw = mm(x, W_g)"),
		k("gemm_alpha", true, 60, 130, 8, "a_raw = mm(x, W_alpha)"),
		k("silu", false, 80, 100, 90, "gate = silu(g_raw)"),
		k("sigmoid", false, 10, 12, 2, "alpha = sigmoid(a_raw)"),
		k("mul", false, 120, 300, 95, "go = mul(o, gate)"),
		k("gemm_out", true, 300, 160, 90, "y0 = mm(go, W_O)"),
		k("add", false, 120, 280, 95, "y = add(y0, x)"),
	}
	cs, no := suggest.FindChains("cell", 0, seq, suggest.Options{Outputs: []string{"qkv", "gate", "alpha", "y"}})
	if len(no) != 0 || len(cs) != 3 {
		t.Fatalf("chains %+v, refused %+v; want 3 chains", cs, no)
	}
	for i, want := range []struct {
		producer string
		folded   []string
		operands []string
		dram     float64
		ns       float64
	}{
		{"gemm_gate", []string{"silu", "mul"}, []string{"o"}, 350, 200},
		{"gemm_alpha", []string{"sigmoid"}, nil, 20, 10},
		{"gemm_out", []string{"add"}, []string{"x"}, 230, 120},
	} {
		c := cs[i]
		if c.Producer != want.producer || !slices.Equal(c.Folded, want.folded) || !slices.Equal(c.Operands, want.operands) ||
			c.DRAMSavedBytes != want.dram || c.FoldedTimeNs != want.ns || c.Basis != suggest.BasisDataflow || c.KernelsSaved != len(want.folded) {
			t.Errorf("chain %d: %+v; want %s folding %v (operands %v), %g B, %g ns", i, c, want.producer, want.folded, want.operands, want.dram, want.ns)
		}
	}
	// scan_gate's three kernels: the gate kernel reads the GEMM's z and the
	// scan's h, written after the GEMM by a kernel that cannot fold.
	seq = []suggest.Kernel{
		k("gemm", true, 6000, 100, 50, "z = mm(x, W)"),
		k("_scan_gate_kernel", false, 33000, 50, 50, "h = scan(z)"),
		k("_gate_kernel", false, 5000, 100, 50, "y = gate(h, z)"),
	}
	cs, no = suggest.FindChains("cell", 0, seq, suggest.Options{Outputs: []string{"y"}})
	if len(cs) != 0 || len(no) != 2 || !strings.Contains(no[0].Reason, "scan") || !strings.Contains(no[1].Reason, "written after the GEMM") {
		t.Errorf("scan_gate: chains %+v, refused %+v; want none, the scan and the gate refused", cs, no)
	}
}

// What FoldBlock refuses, by name, dataflow op and grid.
func TestFoldBlock(t *testing.T) {
	for _, tc := range []struct {
		k    suggest.Kernel
		want string // a word of the reason; "" offered
	}{
		{suggest.Kernel{Name: "_scan_gate_kernel"}, "scan"},
		{suggest.Kernel{Name: "fused_recurrent_hgrn_fwd_kernel"}, "recurrent"},
		{suggest.Kernel{Name: "_l2norm_heads_kernel"}, "norm"},
		{suggest.Kernel{Name: "void at::native::reduce_kernel<512, 1>"}, "reduce"},
		{suggest.Kernel{Name: "triton_per_fused_clamp_min_div_0"}, "Inductor reduction"},
		{suggest.Kernel{Name: "k", Step: &spec.FlowStep{Op: "sum"}}, "reduction (sum)"},
		// 16 blocks on 132 SMs for 33 us: sequential; 128 blocks for 5 us: offered.
		{suggest.Kernel{Name: "k", GridBlocks: 16, DurationNs: 33e3}, "fewer than the 132 SMs"},
		{suggest.Kernel{Name: "_gate_kernel", GridBlocks: 128, DurationNs: 5e3}, ""},
		{suggest.Kernel{Name: "triton_poi_fused_mul_silu_1", GridBlocks: 12288, DurationNs: 15e3}, ""},
	} {
		got := suggest.FoldBlock(tc.k, 132)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("FoldBlock(%s) = %q, want %q", tc.k.Name, got, tc.want)
		}
	}
}

func TestIsGEMM(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flops float64
		known bool
		want  bool
	}{
		{"nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT", 0, false, true},
		{"cutlass_80_tensorop_s1688gemm", 0, false, true},
		{"sm80_xmma_fprop_implicit_gemm", 0, false, true},
		{"void cublasLt::splitKreduce_kernel<32, 16>", 0, false, false},
		{"_silu_mul_kernel", 0, false, false},
		{"_mm_epi_kernel", 1e9, true, true},        // tensor work, whatever the name
		{"nvjet_sm90_tst_128x128", 0, true, false}, // counters say no tensor work
	} {
		if got := suggest.IsGEMM(tc.name, tc.flops, tc.known); got != tc.want {
			t.Errorf("IsGEMM(%q, %g, %v) = %v, want %v", tc.name, tc.flops, tc.known, got, tc.want)
		}
	}
}

func loadCommittedResult(t *testing.T, name string) *pipeline.Result {
	t.Helper()
	n, fsys, err := testdata.Run(name)
	if err != nil {
		t.Fatal(err)
	}
	run, err := rundir.OpenFS(n, fsys)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Load(context.Background(), run, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Figures pinned against hand calculations from the run's raw ncu CSVs
// (raw/ncu/gated_ssm/<variant>/B=16,T=2048,....csv: dram__bytes_read.sum,
// dram__bytes_write.sum; kernel IDs as there) and nsys times.
func TestCheckSuggestionsCommittedRun(t *testing.T) {
	res := loadCommittedResult(t, "2026-11-23-h100-140505")
	r := res.Run
	checks := map[[4]string]suggest.Check{}
	for _, c := range suggest.CheckSuggestions(r, suggest.FlowsOf(res.Experiments), 132) {
		checks[[4]string{c.Experiment, c.Shape, c.Baseline, c.Candidate}] = c
	}
	// swiglu unfused by its dataflow: GEMM2 (write 2558464) -> silu_mul
	// (read 8396288, 4032 ns on the nsys timeline; h1 the operand): read
	// min(8396288, max(2558464, 8396288/2)) = 4198144, write 2558464:
	// 6756608 B, 1 kernel. gemm2-epilogue measured: 3 - 2 kernels; GPU time
	// (38625 + 43169 + 4032) - (39904 + 47200) = -1278 ns; range pass
	// 156790528 - 147060480 = 9730048 B.
	sw, ok := checks[[4]string{"swiglu", "M=512,N=4096,K=7168", "unfused", "gemm2-epilogue"}]
	if !ok {
		t.Fatal("no swiglu unfused vs gemm2-epilogue check")
	}
	if sw.Basis != suggest.BasisDataflow || sw.PredKernels != 1 || sw.PredFoldedNs != 4032 || sw.PredDRAMBytes != 6756608 ||
		sw.MeasKernels != 1 || sw.MeasTimeNs != -1278 || sw.MeasDRAMBytes != 9730048 || sw.ErrKernels != 0 || sw.FusedKnown {
		t.Errorf("swiglu %+v", sw)
	}
	// gated_ssm eager at T=2048 (IDs 8-15), by its dataflow:
	//   gate GEMM 9 (write 123486208) -> SiLU 11 (read 134246912) -> mul 13
	//   (read 268451328; SiLU wrote gate, an output, 114439680):
	//   134246912 + 123486208 + min(268451328, max(114439680, 134225664)) = 391958784;
	//   alpha GEMM 10 (write 11032320) -> sigmoid 12 (read 16792064): 16792064 + 11032320 = 27824384;
	//   output GEMM 14 (write 123366400) -> add 15 (read 268481024): 134240512 + 123366400 = 257606912.
	// 677390080 B, 4 kernels. compiled (IDs 22-27) fused SiLU and mul into
	// triton_poi_fused_mul_silu_1 and the add into the cuBLAS GEMM
	// nvjet_..._badd_...: 134225664 + 257606912 = 391832576 B, 2 kernels.
	// Measured: 8 - 6 kernels; kernel-pass DRAM 2793017600 - 2390007040 =
	// 403010560 B; range pass (1819008512 + 1107894528) - (1653117440 +
	// 1100445952) = 173339648 B; GPU time 2219714 - 2053153 = 166561 ns.
	g, ok := checks[[4]string{"gated_ssm", "B=16,T=2048,d=2048,H=16,dk=128,n=16", "eager", "compiled"}]
	if !ok {
		t.Fatal("no gated_ssm eager vs compiled check at T=2048")
	}
	if g.Chains != 3 || g.PredKernels != 4 || g.PredDRAMBytes != 677390080 || !g.FusedKnown || g.FusedKernels != 2 || g.FusedDRAMBytes != 391832576 ||
		g.Fused != "silu->mul, mm->add" || g.MeasKernels != 2 || g.ErrKernels != 0 || g.MeasDRAMKernelBytes != 403010560 || g.MeasDRAMBytes != 173339648 || g.MeasTimeNs != 166561 {
		t.Errorf("gated_ssm %+v", g)
	}
}

// The folded kernels' time is not a bound on what a fusion saves: over
// every fused variant of the committed runs, some saved more GPU time
// (nsys kernel sums) than their baseline's folded kernels take; in run
// 161238 swiglu_fp8's dual-acc (which also merges the two GEMMs) saved
// 8.7 us where the folded silu_mul takes 4.0 us.
func TestFoldedTimeIsNoBound(t *testing.T) {
	above := 0
	for _, name := range testdata.Runs() {
		res := loadCommittedResult(t, name)
		for _, c := range suggest.CheckSuggestions(res.Run, suggest.FlowsOf(res.Experiments), 132) {
			if c.MeasTimeNs > c.PredFoldedNs {
				above++
				if name == "2026-11-23-h100-161238" && c.Candidate == "dual-acc" && c.Experiment == "swiglu_fp8" &&
					(math.Abs(c.PredFoldedNs-4000) > 100 || math.Abs(c.MeasTimeNs-8700) > 100) {
					t.Errorf("161238 swiglu_fp8 dual-acc: folded %g ns, saved %g ns; want about 4000 and 8700", c.PredFoldedNs, c.MeasTimeNs)
				}
			}
		}
	}
	if above == 0 {
		t.Error("no fused variant saved more than its folded kernels' time: the model's text calls it no bound")
	}
}

// scan_gate's three-kernel baseline (2026-11-22-h100-003504): the GEMM then
// _scan_gate_kernel and _gate_kernel. The scan is not offered as a fold and
// the gate kernel reads the scan's output: no chain, so no check.
func TestCheckSuggestionsScanGate(t *testing.T) {
	res := loadCommittedResult(t, "2026-11-22-h100-003504")
	for _, c := range suggest.CheckSuggestions(res.Run, suggest.FlowsOf(res.Experiments), 132) {
		if c.Experiment == "scan_gate" {
			t.Errorf("scan_gate check %+v: its chain would fold a scan", c)
		}
	}
	for _, c := range res.Run.Cells {
		if c.Experiment != "scan_gate" || c.Variant != "three-kernel" || c.Kernels == 0 {
			continue
		}
		cs, no := suggest.Cell(c, res.Run.Kernels, suggest.FlowsOf(res.Experiments), 132, 50<<20)
		if len(cs) != 0 || len(no) != 2 {
			t.Errorf("three-kernel: chains %+v, not offered %+v; want none, the scan and the gate kernel", cs, no)
		}
	}
}

// gla_proj's unfused-fwdbwd states the dataflow of eager autograd's 41
// kernels. In every committed run that measured it, the cell's kernels
// match it one for one: the count and each kernel's GEMM-ness
// (CellSequence), each step's op in the kernel's name, in launch order, and
// mm's backward order by what each GEMM writes: dW = x^T dY (mm(x, dY)) a
// d x N weight gradient of a few MB, then dx = dY W^T (mm(dY, W_*)) a
// B*T x d one of over 100 MB. Against compiled-fwdbwd the chains follow
// it, and of their edges torch.compile fused the four dx accumulations into
// cuBLAS's badd GEMMs (the rest of the 19 kernels it saved are F.normalize's
// forward and backward merged into two Inductor reductions, no chain's).
func TestGLAProjFwdBwdDataflow(t *testing.T) {
	inName := map[string]string{
		"mm": "nvjet", "linalg_vector_norm": "NormTwoOps", "clamp_min": "clamp_scalar", "div": "DivFunctor",
		"silu": "silu_kernel", "sigmoid": "sigmoid_kernel_cuda", "sigmoid_backward": "sigmoid_backward_kernel",
		"splitk_reduce": "splitKreduce", "silu_backward": "silu_backward_kernel", "add": "CUDAFunctor_add",
		"neg": "neg_kernel", "mul": "MulFunctor", "sum": "sum_functor", "scalar_tensor": "FillFunctor",
		"ge": "compare_scalar_kernel", "where": "where_kernel", "eq": "CompareEqFunctor", "masked_fill": "masked_fill_kernel",
	}
	runs := 0
	for _, name := range testdata.Runs() {
		res := loadCommittedResult(t, name)
		flow := suggest.FlowsOf(res.Experiments)[[2]string{"gla_proj", "unfused-fwdbwd"}]
		for _, c := range res.Run.Cells {
			if c.Experiment != "gla_proj" || c.Variant != "unfused-fwdbwd" || c.Status != "ok" || len(c.KernelNames) == 0 {
				continue
			}
			if flow == nil {
				t.Fatalf("%s: no dataflow for gla_proj/unfused-fwdbwd", name)
			}
			runs++
			seq, note := suggest.CellSequence(c, res.Run.Kernels, flow)
			if note != "" || len(seq) != 41 {
				t.Errorf("%s %s: %d kernels: %s", name, c.Shape, len(seq), note)
				continue
			}
			for i, k := range seq {
				frag, ok := inName[k.Step.Op]
				if !ok || !strings.Contains(k.Name, frag) {
					t.Errorf("%s %s kernel %d %.80s: step %s(%s), want %q in its name", name, c.Shape, i, k.Name, k.Step.Op, strings.Join(k.Step.In, ", "), frag)
				}
				if k.Step.Op != "mm" || !k.BytesKnown {
					continue
				}
				dW := k.Step.In[0] == "x" && !strings.HasPrefix(k.Step.In[1], "W_")
				dx := k.Step.In[0] != "x" && strings.HasPrefix(k.Step.In[1], "W_")
				if (dW && k.DRAMWriteBytes > 20e6) || (dx && k.DRAMWriteBytes < 100e6) {
					t.Errorf("%s %s kernel %d %s = mm(%s) writes %.1f MB", name, c.Shape, i, k.Step.Out[0], strings.Join(k.Step.In, ", "), k.DRAMWriteBytes/1e6)
				}
			}
		}
		for _, ck := range suggest.CheckSuggestions(res.Run, suggest.FlowsOf(res.Experiments), 132) {
			if ck.Experiment == "gla_proj" && ck.Candidate == "compiled-fwdbwd" &&
				(ck.Basis != suggest.BasisDataflow || !ck.FusedKnown || ck.Fused != "mm->add, mm->add, mm->add, mm->add" || ck.FusedKernels != 4 || ck.MeasKernels != 19) {
				t.Errorf("%s compiled-fwdbwd: %+v", name, ck)
			}
		}
	}
	if runs < 5 {
		t.Errorf("%d committed runs measured gla_proj/unfused-fwdbwd; want the 5 of 003504, 034455, 161238, 065510, 084633", runs)
	}
}
