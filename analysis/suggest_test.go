package analysis_test

import (
	"context"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/testdata"
)

// A chain runs from a GEMM to the next GEMM; kernels before the first GEMM
// have no producer. DRAM saved, by hand: the GEMM's write 100, plus e1's
// read of it min(150, 100) = 100, plus e1's write 50 (e2 reads it), plus
// e2's read of e1's output min(60, 50) = 50; e2's write stays: 300.
func TestFindChainsEdgeModel(t *testing.T) {
	k := func(name string, gemm bool, ns, r, w float64) analysis.SuggestKernel {
		return analysis.SuggestKernel{Name: name, GEMM: gemm, DurationNs: ns, DRAMReadBytes: r, DRAMWriteBytes: w, BytesKnown: true}
	}
	seq := []analysis.SuggestKernel{
		k("fill", false, 5, 0, 10),
		k("gemm", true, 1000, 400, 100),
		k("e1", false, 20, 150, 50),
		k("e2", false, 30, 60, 40),
		k("gemm2", true, 900, 300, 80),
		k("gemm3", true, 900, 300, 80),
		{Name: "e3", DurationNs: 7}, // no ncu bytes
	}
	cs := analysis.FindChains("r", 7, seq)
	if len(cs) != 2 {
		t.Fatalf("chains %+v, want 2", cs)
	}
	if c := cs[0]; c.Index != 1 || c.Producer != "gemm" || c.KernelsSaved != 2 || c.TimeSavedNs != 50 || !c.DRAMKnown || c.DRAMSavedBytes != 300 {
		t.Errorf("first chain %+v, want at 1, 2 kernels, 50 ns, 300 B", c)
	}
	if c := cs[1]; c.Index != 5 || c.KernelsSaved != 1 || c.TimeSavedNs != 7 || c.DRAMKnown || c.DRAMSavedBytes != 0 || c.Stream != 7 || c.Range != "r" {
		t.Errorf("second chain %+v, want at 5, 1 kernel, 7 ns, bytes unknown", c)
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
		if got := analysis.IsGEMM(tc.name, tc.flops, tc.known); got != tc.want {
			t.Errorf("IsGEMM(%q, %g, %v) = %v, want %v", tc.name, tc.flops, tc.known, got, tc.want)
		}
	}
}

func loadCommitted(t *testing.T, name string) *analysis.Run {
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
	return res.Run
}

// Figures pinned against hand calculations from the run's parquet tables
// (pyarrow; kernel ids of tables/kernels.parquet, dram__bytes_read.sum and
// dram__bytes_write.sum of tables/metrics.parquet).
func TestCheckSuggestionsCommittedRun(t *testing.T) {
	r := loadCommitted(t, "2026-11-23-h100-140505")
	checks := map[[4]string]analysis.SuggestCheck{}
	for _, c := range analysis.CheckSuggestions(r) {
		checks[[4]string{c.Experiment, c.Shape, c.Baseline, c.Candidate}] = c
	}
	// swiglu unfused: nvjet (13775), nvjet (13776, write 2558464), then
	// _silu_mul_kernel (13777, read 8396288, 4032 ns on the nsys timeline).
	// Predicted: 1 kernel, 4032 ns, 2558464 + min(8396288, 2558464) = 5116928 B.
	// gemm2-epilogue measured: 3 - 2 kernels; GPU time (38625 + 43169 + 4032)
	// - (39904 + 47200) = -1278 ns; range pass (13778) 156790528 B - (13774)
	// 147060480 B = 9730048 B.
	sw, ok := checks[[4]string{"swiglu", "M=512,N=4096,K=7168", "unfused", "gemm2-epilogue"}]
	if !ok {
		t.Fatal("no swiglu unfused vs gemm2-epilogue check")
	}
	if sw.PredKernels != 1 || sw.PredTimeNs != 4032 || sw.PredDRAMBytes != 5116928 ||
		sw.MeasKernels != 1 || sw.MeasTimeNs != -1278 || sw.MeasDRAMBytes != 9730048 || sw.ErrKernels != 0 {
		t.Errorf("swiglu %+v", sw)
	}
	// gated_ssm eager at T=2048, d=2048 (ncu kernels 9189-9196): chains
	// nvjet 9191 (write 11032320) -> silu 9192 (r 134246912, w 114439680)
	// -> sigmoid 9193 (r 16792064, w 1633536) -> mul 9194 (r 268451328):
	// 11032320 + 11032320 + 114439680 + 16792064 + 1633536 + 1633536 =
	// 156563456; and nvjet 9195 (w 123366400) -> add 9196 (r 268481024):
	// 2 x 123366400 = 246732800. Predicted 403296256 B, 4 kernels.
	// compiled measured: 8 - 6 kernels, 2219714 - 2053153 = 166561 ns, range
	// pass (1819008512 + 1107894528) - (1653117440 + 1100445952) = 173339648 B.
	g, ok := checks[[4]string{"gated_ssm", "B=16,T=2048,d=2048,H=16,dk=128,n=16", "eager", "compiled"}]
	if !ok {
		t.Fatal("no gated_ssm eager vs compiled check at T=2048")
	}
	if g.Chains != 2 || g.PredKernels != 4 || g.PredDRAMBytes != 403296256 ||
		g.MeasKernels != 2 || g.MeasTimeNs != 166561 || g.MeasDRAMBytes != 173339648 {
		t.Errorf("gated_ssm %+v", g)
	}
}

// scan_gate's three-kernel baseline (2026-11-22-h100-003504): the GEMM then
// _scan_gate_kernel and _gate_kernel, 2 kernels to fold; its range pass
// failed, so its DRAM falls back on the kernel pass and the check says so.
func TestCheckSuggestionsScanGate(t *testing.T) {
	r := loadCommitted(t, "2026-11-22-h100-003504")
	n := 0
	for _, c := range analysis.CheckSuggestions(r) {
		if c.Experiment != "scan_gate" {
			continue
		}
		n++
		if c.Baseline != "three-kernel" || c.PredKernels != 2 || c.Note == "" {
			t.Errorf("scan_gate %+v", c)
		}
	}
	if n == 0 {
		t.Fatal("no scan_gate check")
	}
}
