// Package verdicttest holds a hand-made run for the tests of package
// verdict and of the renderers above it (reports): one set of invented
// cells, comparisons, kernels and checks that both judge, so that a
// report's goldens and the verdicts' own tests rest on the same facts.
// Only tests import it.
package verdicttest

import (
	"testing"
	"time"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
)

// Synthetic is a hand-made run for the tests, judged with the claims built
// into rooftool (spec.Load): every number in it is invented (the GPU says
// so) and only exercises the verdicts' logic and the report's layout. Each
// call gives a fresh copy, for a test to change.
func Synthetic(t testing.TB) pipeline.Result {
	t.Helper()
	const sw = "M=512,N=4096,K=7168"
	const sg = "B=4,T=2048,d=256,dv=64"
	const gs = "B=16,T=512,d=768,H=12,dk=64,n=16"
	ok := func(passes ...string) map[string]rundir.PassStatus {
		m := map[string]rundir.PassStatus{}
		for _, p := range passes {
			m[p] = rundir.PassStatus{Status: rundir.StatusOK}
		}
		return m
	}
	all := rundir.AllPasses
	man := &rundir.Manifest{
		Tool: "rooftool", Version: "test", Command: []string{"rooftool", "profile", "--gpu", "synthetic"},
		Created:   time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC),
		Finished:  time.Date(2026, 11, 22, 1, 20, 0, 0, time.UTC),
		GitCommit: "0123456789abcdef0123",
		GPU: rundir.GPUInfo{Name: "synthetic fixture (not a measurement)", SMCount: 132, L2Bytes: 52428800,
			MemoryBytes: 85520809984, CC: "9.0", SMClockMHz: 1755, MemClockMHz: 2619, MaxSMClockMHz: 1980, MaxMemClockMHz: 2619},
		Versions: map[string]string{"torch": "0.0-test", "cuda": "0.0-test"},
		Passes:   all,
		Options:  map[string]string{"reps": "50"},
		Cells: []rundir.Cell{
			{Experiment: "swiglu", Variant: "unfused", Shape: sw, Passes: ok(all...)},
			{Experiment: "swiglu", Variant: "dual-acc", Shape: sw, Passes: ok(all...)},
			{Experiment: "swiglu", Variant: "gemm2-epilogue", Shape: sw, Passes: map[string]rundir.PassStatus{
				rundir.PassCheck:  {Status: rundir.StatusOK},
				rundir.PassTiming: {Status: rundir.StatusFailed, Reason: "triton compile error: out of shared memory"},
				rundir.PassNCU:    {Status: rundir.StatusSkipped, Reason: "timing failed"},
				rundir.PassRange:  {Status: rundir.StatusSkipped, Reason: "timing failed"},
				rundir.PassNsys:   {Status: rundir.StatusSkipped, Reason: "timing failed"},
			}},
			{Experiment: "scan_gate", Variant: "three-kernel", Shape: sg, Passes: ok(all...)},
			{Experiment: "scan_gate", Variant: "semi-fused", Shape: sg, Passes: ok(all...)},
			{Experiment: "scan_gate", Variant: "megakernel", Shape: sg, Passes: ok(all...)},
			{Experiment: "gated_ssm", Variant: "eager", Shape: gs, Passes: ok(all...)},
			{Experiment: "gated_ssm", Variant: "triton-epilogue", Shape: gs, Passes: ok(all...)},
			{Experiment: "gated_ssm", Variant: "cutlass-evt", Shape: gs, Passes: map[string]rundir.PassStatus{
				rundir.PassCheck: {Status: rundir.StatusSkipped, Reason: "requires cutlass: not installed"}}},
		},
	}
	iv := func(c, lo, hi float64, n int) analysis.Interval {
		return analysis.Interval{Center: c, Lo: lo, Hi: hi, N: n}
	}
	l2 := analysis.Warning{Code: analysis.WarnL2Resident, Metric: "dram_bytes", Msg: "working set 13.7 MB fits in the 52.43 MB L2"}
	run := &analysis.Run{
		GPU: "synthetic fixture (not a measurement)",
		Ceilings: gpu.Ceilings{GPU: "synthetic", Items: []gpu.Ceiling{
			{Name: "DRAM", Kind: "bandwidth", Value: 3.35e12, Source: "catalog: synthetic"},
			{Name: "tensor bf16", Kind: "compute", Value: 989e12, Source: "catalog: synthetic"},
		}},
		Cells: []analysis.CellFact{
			{Experiment: "swiglu", Variant: "unfused", Role: "baseline", Shape: sw, Kernels: 3, ElementwiseKernels: 1, GPUTimeNs: 91e3,
				KernelNames: []string{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "sm90_xmma_gemm_bf16bf16_bf16f32", "_silu_mul_kernel"},
				Wall:        iv(0.1, 0.099, 0.102, 50), DRAMBytesRange: 150e6, DRAMBytesKernels: 160e6, L2Bytes: 900e6, FLOPs: 60.1e9, Class: analysis.ClassCompute, Status: "ok"},
			{Experiment: "swiglu", Variant: "dual-acc", Role: "candidate", Shape: sw, Kernels: 1, GPUTimeNs: 78.5e3, KernelNames: []string{"_dual_acc_kernel"},
				Wall: iv(0.08, 0.079, 0.081, 50), DRAMBytesRange: 131e6, DRAMBytesKernels: 131e6, L2Bytes: 700e6, FLOPs: 60.1e9, Class: analysis.ClassCompute, Status: "ok"},
			{Experiment: "swiglu", Variant: "gemm2-epilogue", Role: "candidate", Shape: sw, Status: "failed"},
			{Experiment: "scan_gate", Variant: "three-kernel", Role: "baseline", Shape: sg, Kernels: 3, ElementwiseKernels: 2,
				Wall: iv(0.05, 0.049, 0.051, 50), DRAMBytesRange: 9e6, L2Bytes: 30e6, FLOPs: 0.4e9, Class: analysis.ClassLatency, Status: "ok", Warnings: []analysis.Warning{l2}},
			{Experiment: "scan_gate", Variant: "semi-fused", Role: "candidate", Shape: sg, Kernels: 2, ElementwiseKernels: 1,
				Wall: iv(0.04, 0.037, 0.052, 50), DRAMBytesRange: 8e6, L2Bytes: 25e6, FLOPs: 0.4e9, Class: analysis.ClassLatency, Status: "ok", Warnings: []analysis.Warning{l2}},
			{Experiment: "scan_gate", Variant: "megakernel", Role: "candidate", Shape: sg, Kernels: 1, ElementwiseKernels: 0,
				Wall: iv(0.2, 0.19, 0.21, 50), DRAMBytesRange: 1e6, L2Bytes: 12e6, FLOPs: 0.4e9, Class: analysis.ClassLatency, Status: "ok", Warnings: []analysis.Warning{l2}},
			{Experiment: "gated_ssm", Variant: "eager", Role: "baseline", Shape: gs, Kernels: 8, ElementwiseKernels: 4,
				Wall: iv(0.5, 0.49, 0.51, 4), DRAMBytesRange: 120e6, DRAMBytesKernels: 140e6, L2Bytes: 400e6, FLOPs: 30e9, Class: analysis.ClassMemory, Status: "ok",
				Warnings: []analysis.Warning{{Code: analysis.WarnFewSamples, Metric: "wall_ms", Msg: "eager: 4 timing samples, fewer than 6"}}},
			{Experiment: "gated_ssm", Variant: "triton-epilogue", Role: "candidate", Shape: gs, Kernels: 2, ElementwiseKernels: 0,
				Wall: iv(0.3, 0.29, 0.31, 50), DRAMBytesRange: 70e6, DRAMBytesKernels: 72e6, L2Bytes: 300e6, FLOPs: 30e9, Class: analysis.ClassMemory, Status: "ok"},
		},
		Kernels: []analysis.KernelFact{
			{Experiment: "gated_ssm", Variant: "eager", Shape: gs, Name: "gemm", DRAMReadBytes: 50e6, DRAMWriteBytes: 30e6},
			{Experiment: "gated_ssm", Variant: "eager", Shape: gs, Name: "silu", DRAMReadBytes: 20e6, DRAMWriteBytes: 20e6, Elementwise: true},
			{Experiment: "gated_ssm", Variant: "triton-epilogue", Shape: gs, Name: "gemm_epi", DRAMReadBytes: 60e6, DRAMWriteBytes: 32e6},
		},
		Comparisons: []analysis.Comparison{
			{Experiment: "swiglu", Shape: sw, Baseline: "unfused", Candidate: "dual-acc", Speedup: iv(1.25, 1.22, 1.28, 50), P: 1e-9, Significant: true, DRAMRatio: 131.0 / 150, DRAMReduction: 1 - 131.0/150, KernelDelta: -2},
			{Experiment: "scan_gate", Shape: sg, Baseline: "three-kernel", Candidate: "semi-fused", Speedup: iv(1.25, 0.96, 1.38, 50), P: 0.03, Significant: true, DRAMRatio: 8.0 / 9, KernelDelta: -1},
			{Experiment: "scan_gate", Shape: sg, Baseline: "three-kernel", Candidate: "megakernel", Speedup: iv(0.25, 0.24, 0.26, 50), P: 1e-9, Significant: true, DRAMRatio: 1.0 / 9, KernelDelta: -2},
			{Experiment: "gated_ssm", Shape: gs, Baseline: "eager", Candidate: "triton-epilogue", Speedup: iv(1.667, 1.6, 1.7, 4), P: 0.028, Significant: true, DRAMRatio: 70.0 / 120, KernelDelta: -6},
		},
		Crossovers: []analysis.Crossover{{Experiment: "swiglu", Sweep: "M", Var: "M", Candidate: "dual-acc", Baseline: "unfused", Text: "dual-acc wins for M <= 1024 (synthetic)"}},
	}
	rel := func(v float64) *float64 { return &v }
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Result{
		Name: "synthetic", Run: run, Manifest: man, Experiments: exps,
		Checks: []pipeline.Check{
			{Experiment: "gated_ssm", Variant: "triton-epilogue", Shape: gs, OK: true, MaxRelErr: rel(3.9e-3), Tolerance: 2e-2, VsBaseline: &pipeline.VsBaseline{Baseline: "eager", RelErr: rel(1.5e-3)}},
			{Experiment: "swiglu", Variant: "dual-acc", Shape: sw, OK: true, MaxRelErr: rel(1e-3), Tolerance: 2e-2},
		},
		TimingDevices: map[string][]string{"swiglu": {"synthetic"}},
		TimingMethods: map[string][]string{"swiglu": {"cuda-events", "cuda-graph"}},
		TimingClocks:  map[string]map[string][]float64{"swiglu": {"sm_mhz": {1755, 1980}, "mem_mhz": {2619, 2619}}},
	}
}
