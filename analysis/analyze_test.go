package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/metric"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

const (
	expName = "swiglu"
	shapeA  = "M=512,N=4096,K=7168"
)

func testExperiment() *spec.Experiment {
	return &spec.Experiment{
		Name: expName, Vars: []string{"M", "N", "K"},
		Shapes: []string{shapeA},
		Sweeps: []spec.Sweep{{Name: "M", Var: "M", Shapes: []string{
			"M=128,N=4096,K=7168", "M=256,N=4096,K=7168", shapeA, "M=1024,N=4096,K=7168"}}},
		Variants: []spec.Variant{
			{Name: "unfused", Role: spec.RoleBaseline},
			{Name: "dual-acc", Role: spec.RoleCandidate},
			{Name: "eager", Role: spec.RoleReference},
		},
		Theory: map[string]spec.Theory{
			"unfused":  {DRAMBytes: "2*(M*K + 2*K*N + 3*M*N) + 4*M*N", FLOPs: "4*M*N*K"},
			"dual-acc": {DRAMBytes: "2*(M*K + 2*K*N + M*N)", FLOPs: "4*M*N*K"},
		},
	}
}

type fixture struct {
	b *ingest.Builder
}

func (f fixture) ncuKernel(variant, name string, durNs int64, pass string, metrics map[string]float64) int64 {
	id := f.b.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, File: "k.csv", Pass: pass,
		Experiment: expName, Variant: variant, Shape: shapeA, Name: name, ShortName: name, DurationNs: durNs})
	for _, n := range sortedKeys(metrics) {
		f.b.AddMetric(ingest.Metric{KernelID: id, Name: n, Value: metrics[n], Valid: true})
	}
	return id
}

func (f fixture) nsysKernel(variant, name string, start, dur int64) {
	f.b.AddKernel(ingest.Kernel{Source: ingest.SourceNsys, File: "t.sqlite", Pass: ingest.PassTimeline,
		Experiment: expName, Variant: variant, Shape: shapeA, Name: name, ShortName: name, StartNs: start, DurationNs: dur})
}

func (f fixture) timings(variant string, ms ...float64) {
	for i, v := range ms {
		f.b.AddTiming(ingest.Timing{Experiment: expName, Variant: variant, Shape: shapeA, File: "t.json", Method: "cuda-events", Rep: int32(i), Ms: v})
	}
}

// peaks are the device's peak_sustained metrics and clocks, identical on
// every row: DRAM 1000 B/cycle x 3 GHz = 3e12 B/s, L2 5000 B/cycle x 2 GHz
// = 1e13 B/s, FFMA 16896 inst/cycle x 2 x 2 GHz = 6.7584e13 FLOP/s, bf16
// tensor 1000000 FLOP/cycle (sparse) / 2 x 2 GHz = 1e15 FLOP/s dense.
func peaks(m map[string]float64) map[string]float64 {
	for k, v := range map[string]float64{
		metric.DRAMPeak: 1000, metric.DRAMClock: 3e9, metric.L2Peak: 5000, metric.L2Clock: 2e9, metric.SMClock: 2e9,
		"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 16896,
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained":         1000000,
	} {
		m[k] = v
	}
	return m
}

// buildFixture: an unfused baseline (two GEMMs and an elementwise kernel)
// and a fused candidate (one kernel), with ncu kernel and range passes, an
// nsys timeline and ten timing samples each.
func buildFixture(t *testing.T, mem memory.Allocator) *ingest.Tables {
	t.Helper()
	b := ingest.NewBuilder(mem)
	defer b.Release()
	f := fixture{b}
	b.AddGPU(ingest.GPU{Source: ingest.SourceNCU, File: "k.csv", Name: "NVIDIA H100 80GB HBM3", L2Bytes: 50 << 20, SMCount: 132})
	// GEMM: 8e11 bf16 FLOPs in 1 ms, 1.5e9 DRAM bytes, 4e9 L2 bytes.
	gemm := peaks(map[string]float64{
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum": 8e11,
		metric.DRAMRead: 1e9, metric.DRAMWrite: 5e8, metric.L2Bytes: 4e9, metric.L1Bytes: 6e9, metric.L1TMABytes: 2e9,
		"sm__sass_thread_inst_executed_op_fadd_pred_on.sum": 0,
		"sm__sass_thread_inst_executed_op_fmul_pred_on.sum": 0,
		"sm__sass_thread_inst_executed_op_ffma_pred_on.sum": 0,
	})
	f.ncuKernel("unfused", "gemm_a", 1_000_000, ingest.PassKernel, gemm)
	f.ncuKernel("unfused", "gemm_b", 1_000_000, ingest.PassKernel, gemm)
	// Elementwise: 9e6 fp32 FLOPs, 1.2e7 DRAM bytes in 4 us, ncu SOL 99% DRAM.
	f.ncuKernel("unfused", "silu_mul", 4000, ingest.PassKernel, peaks(map[string]float64{
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum":         0,
		"sm__sass_thread_inst_executed_op_fadd_pred_on.sum": 1e6,
		"sm__sass_thread_inst_executed_op_fmul_pred_on.sum": 2e6,
		"sm__sass_thread_inst_executed_op_ffma_pred_on.sum": 3e6,
		metric.DRAMRead: 8e6, metric.DRAMWrite: 4e6, metric.L2Bytes: 2.4e7, metric.L1Bytes: 2.4e7,
		metric.SOLDRAM: 99, metric.SOLSM: 10,
	}))
	f.ncuKernel("dual-acc", "dual_acc", 1_600_000, ingest.PassKernel, peaks(map[string]float64{
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum": 1.6e12,
		metric.DRAMRead: 1.2e9, metric.DRAMWrite: 2e8, metric.L2Bytes: 6e9, metric.L1Bytes: 9e9,
	}))
	f.ncuKernel("unfused", "range", 0, ingest.PassRange, map[string]float64{metric.DRAMRead: 2.5e8, metric.DRAMWrite: 5e7})
	f.ncuKernel("dual-acc", "range", 0, ingest.PassRange, map[string]float64{metric.DRAMBytes: 1e8})
	// nsys timeline, out of order on purpose.
	f.nsysKernel("unfused", "silu_mul", 3000, 4500)
	f.nsysKernel("unfused", "gemm_a", 1000, 900_000)
	f.nsysKernel("unfused", "gemm_b", 2000, 910_000)
	f.nsysKernel("dual-acc", "dual_acc", 1000, 1_500_000)
	f.timings("unfused", 1.09, 1.00, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08)
	f.timings("dual-acc", 0.80, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89)
	return b.Finish()
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.8g, want %.8g", what, got, want)
	}
}

func hasWarning(ws []Warning, code, metric string) bool {
	for _, w := range ws {
		if w.Code == code && (metric == "*" || w.Metric == metric) {
			return true
		}
	}
	return false
}

func TestDeviceCeilings(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := buildFixture(t, mem)
	defer tb.Release()
	c := DeviceCeilings(tb)
	if c.GPU != "NVIDIA H100 80GB HBM3" || c.L2Bytes != 50<<20 {
		t.Errorf("GPU %q L2 %d", c.GPU, c.L2Bytes)
	}
	want := map[string]float64{gpu.CeilDRAM: 3e12, gpu.CeilL2: 1e13, gpu.CeilFP32: 6.7584e13, "tensor bf16": 1e15}
	for name, v := range want {
		got, ok := c.Get(name, "device:")
		if !ok {
			t.Errorf("no device ceiling %s in %+v", name, c.Items)
			continue
		}
		near(t, name, got.Value, v, 1e-12)
		if !strings.Contains(got.Source, "peak_sustained") {
			t.Errorf("%s source %q", name, got.Source)
		}
	}
	if _, ok := c.Get(gpu.CeilL1, ""); ok {
		t.Error("L1 ceiling without an L1 peak metric")
	}
}

// The profile runner asks for smsp__ instruction counters and collects no
// L2 clock: both must still give FLOPs and roofs.
func TestSMSPCountersAndL2ClockFallback(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	f := fixture{b}
	f.ncuKernel("unfused", "k", 1_000_000, ingest.PassKernel, map[string]float64{
		"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum":                1e9,
		"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum":                1e8,
		"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 16896,
		metric.L2Peak: 5000, metric.SMClock: 1.98e9, metric.L2Bytes: 1e9,
	})
	tb := b.Finish()
	b.Release()
	defer tb.Release()
	c := DeviceCeilings(tb)
	fp32, ok := c.Get(gpu.CeilFP32, "device:")
	if !ok || fp32.Value != 16896*2*1.98e9 || !strings.Contains(fp32.Source, "smsp__") {
		t.Errorf("fp32 %+v", fp32)
	}
	l2, ok := c.Get(gpu.CeilL2, "device:")
	if !ok || l2.Value != 5000*1.98e9 || !strings.Contains(l2.Source, "SM clock used") {
		t.Errorf("L2 %+v", l2)
	}
	kf := KernelFacts(tb, c, Options{})
	if got := kf[0].FLOPs["fp32"]; got != 2e9+1e8 {
		t.Errorf("fp32 FLOPs from smsp__ counters: %v", got)
	}
}

func TestKernelFacts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := buildFixture(t, mem)
	defer tb.Release()
	kf := KernelFacts(tb, DeviceCeilings(tb), Options{})
	if len(kf) != 4 {
		t.Fatalf("%d kernel facts, want 4 (range rows are not kernels)", len(kf))
	}
	g := kf[0]
	near(t, "gemm tensor FLOPs", g.FLOPs["tensor_bf16"], 8e11, 1e-12)
	near(t, "gemm total FLOPs", g.TotalFLOPs, 8e11, 1e-12)
	near(t, "gemm DRAM bytes", g.DRAMBytes, 1.5e9, 1e-12)
	near(t, "gemm L1 bytes (t_bytes + TMA)", g.L1Bytes, 8e9, 1e-12)
	near(t, "gemm AI dram", g.AI["dram"], 8e11/1.5e9, 1e-12)
	near(t, "gemm AI l2", g.AI["l2"], 200, 1e-12)
	near(t, "gemm FLOP/s", g.FLOPRate, 8e14, 1e-12)
	near(t, "gemm DRAM B/s", g.ByteRate["dram"], 1.5e12, 1e-12)
	near(t, "gemm % DRAM", g.PctOfRoof[gpu.CeilDRAM], 50, 1e-9)
	near(t, "gemm % L2", g.PctOfRoof[gpu.CeilL2], 40, 1e-9)
	near(t, "gemm % tensor bf16", g.PctOfRoof["tensor bf16"], 80, 1e-9)
	if g.Class != ClassCompute || g.Elementwise {
		t.Errorf("gemm class %s elementwise %v", g.Class, g.Elementwise)
	}
	if _, ok := g.FLOPs["fp32"]; ok {
		t.Error("zero fp32 FLOPs listed")
	}
	e := kf[2]
	near(t, "silu fp32 FLOPs = fadd + fmul + 2 ffma", e.FLOPs["fp32"], 9e6, 1e-12)
	near(t, "silu % DRAM", e.PctOfRoof[gpu.CeilDRAM], 100, 1e-9)
	near(t, "silu % fp32", e.PctOfRoof[gpu.CeilFP32], 100*9e6/4e-6/6.7584e13, 1e-9)
	if e.Class != ClassMemory || !e.Elementwise || e.SOL["dram"] != 99 {
		t.Errorf("silu class %s elementwise %v SOL %v", e.Class, e.Elementwise, e.SOL)
	}
	if !hasWarning(e.Warnings, WarnLaunchBound, "") {
		t.Errorf("4 us kernel without launch-bound warning: %v", e.Warnings)
	}
	d := kf[3]
	if !hasWarning(d.Warnings, WarnMissing, "kernel") || !strings.Contains(d.Warnings[0].Msg, "fadd") {
		t.Errorf("kernel without SASS counts: warnings %v", d.Warnings)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		sol, pct map[string]float64
		want     string
	}{
		{map[string]float64{"dram": 85, "compute": 30}, nil, ClassMemory},
		{map[string]float64{"dram": 20, "compute": 75}, nil, ClassCompute},
		{map[string]float64{"dram": 20, "compute": 30, "tensor": 59.9}, nil, ClassLatency},
		{map[string]float64{"memory": 10}, map[string]float64{gpu.CeilDRAM: 95}, ClassLatency}, // SOL wins over own %
		{nil, map[string]float64{gpu.CeilDRAM: 30, "tensor bf16": 70}, ClassCompute},
		{nil, map[string]float64{gpu.CeilL2: 61}, ClassMemory},
		{nil, nil, ClassUnknown},
	} {
		if got := classify(KernelFact{SOL: c.sol, PctOfRoof: c.pct}, 60); got != c.want {
			t.Errorf("classify(SOL %v, pct %v) = %s, want %s", c.sol, c.pct, got, c.want)
		}
	}
}

func TestTensorFLOPsCountsOnce(t *testing.T) {
	m := kernelMetrics{
		"sm__ops_path_tensor_src_fp16.sum":                           100, // bare total: dst-specific ones win
		"sm__ops_path_tensor_src_fp16_dst_fp32.sum":                  60,
		"sm__ops_path_tensor_src_fp16_dst_fp16.sum":                  40,
		"sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_on.sum":      5,
		"sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum":     7,
		"sm__ops_path_tensor_src_fp8_dst_fp32.sum":                   9,
		"sm__ops_path_tensor_src_fp8_dst_fp32.sum.peak_sustained":    1e9, // not a count
		"sm__ops_path_tensor_src_tf32_dst_fp32.sum.per_second":       1e9,
		"sm__ops_path_tensor_src_int8.sum":                           3,
		"sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sust": 1,
	}
	got, ok := tensorFLOPs(m)
	if !ok {
		t.Fatal("no tensor counters found")
	}
	want := map[string]float64{"tensor_fp16": 100, "tensor_bf16": 12, "tensor_fp8": 9, "tensor_int": 3}
	if len(got) != len(want) {
		t.Errorf("classes %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

func TestAnalyzeCellsAndComparison(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := buildFixture(t, mem)
	defer tb.Release()
	exp := testExperiment()
	run, err := Analyze(tb, []*spec.Experiment{exp}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.GPU != "NVIDIA H100 80GB HBM3" || len(run.Ceilings.Items) == 0 {
		t.Errorf("run GPU %q ceilings %v", run.GPU, run.Ceilings.Items)
	}
	cells := map[string]CellFact{}
	for _, c := range run.Cells {
		if c.Shape == shapeA {
			cells[c.Variant] = c
		}
	}
	u, d := cells["unfused"], cells["dual-acc"]
	if u.Status != "ok" || u.Role != spec.RoleBaseline || d.Role != spec.RoleCandidate {
		t.Fatalf("cells %+v", cells)
	}
	if cells["eager"].Status != "missing" {
		t.Errorf("reference cell without data: status %q, want missing", cells["eager"].Status)
	}
	if got := strings.Join(u.KernelNames, ","); got != "gemm_a,gemm_b,silu_mul" {
		t.Errorf("kernel names in launch order: %s", got)
	}
	if u.Kernels != 3 || u.ElementwiseKernels != 1 || d.Kernels != 1 || d.ElementwiseKernels != 0 {
		t.Errorf("kernels %d/%d elementwise %d/%d", u.Kernels, d.Kernels, u.ElementwiseKernels, d.ElementwiseKernels)
	}
	near(t, "GPU time (nsys)", u.GPUTimeNs, 1_814_500, 1e-12)
	near(t, "range DRAM bytes", u.DRAMBytesRange, 3e8, 1e-12)
	near(t, "range DRAM bytes (dram__bytes.sum)", d.DRAMBytesRange, 1e8, 1e-12)
	near(t, "kernel DRAM bytes", u.DRAMBytesKernels, 3e9+1.2e7, 1e-12)
	near(t, "FLOPs", u.FLOPs, 1.6e12+9e6, 1e-12)
	if u.Class != ClassCompute {
		t.Errorf("cell class %s (heaviest kernel is a GEMM)", u.Class)
	}
	// Theory: 2*(M*K + 2*K*N + 3*M*N) + 4*M*N at M=512, N=4096, K=7168.
	M, N, K := 512.0, 4096.0, 7168.0
	near(t, "theory bytes", u.TheoryDRAMBytes, 2*(M*K+2*K*N+3*M*N)+4*M*N, 1e-12)
	near(t, "theory FLOPs", d.TheoryFLOPs, 4*M*N*K, 1e-12)
	// Median of 1.00..1.09 is 1.045; for n=10 the 95% order-statistic
	// interval is [x(2), x(9)] = [1.01, 1.08] (coverage 97.9%).
	near(t, "baseline median", u.Wall.Center, 1.045, 1e-12)
	near(t, "baseline lo", u.Wall.Lo, 1.01, 1e-12)
	near(t, "baseline hi", u.Wall.Hi, 1.08, 1e-12)
	if u.Wall.N != 10 {
		t.Errorf("N = %d", u.Wall.N)
	}
	if !hasWarning(u.Warnings, WarnLaunchBound, "") {
		t.Errorf("4.5 us silu_mul: no launch-bound warning: %v", u.Warnings)
	}
	if !hasWarning(u.Warnings, WarnModelMismatch, "dram_bytes") {
		t.Errorf("range bytes 3e8 vs model 1.46e8: no model-mismatch warning: %v", u.Warnings)
	}
	if hasWarning(u.Warnings, WarnL2Resident, "*") {
		t.Errorf("theory working set %.0f MB > 50 MiB L2, but warned: %v", u.TheoryDRAMBytes/1e6, u.Warnings)
	}
	if len(run.Comparisons) != 1 {
		t.Fatalf("%d comparisons, want 1 (the reference is never compared)", len(run.Comparisons))
	}
	c := run.Comparisons[0]
	near(t, "speedup", c.Speedup.Center, 1.045/0.845, 1e-12)
	near(t, "speedup lo = 1.01/0.88", c.Speedup.Lo, 1.01/0.88, 1e-12)
	near(t, "speedup hi = 1.08/0.81", c.Speedup.Hi, 1.08/0.81, 1e-12)
	// Disjoint samples of 10 and 10: exact two-sided p = 2 / C(20,10).
	near(t, "p", c.P, 2.0/184756, 1e-6)
	if !c.Significant {
		t.Error("not significant")
	}
	near(t, "DRAM ratio", c.DRAMRatio, 1.0/3, 1e-12)
	near(t, "DRAM reduction", c.DRAMReduction, 2.0/3, 1e-12)
	if c.KernelDelta != -2 {
		t.Errorf("kernel delta %d", c.KernelDelta)
	}
}

// A forward+backward candidate is compared with the forward+backward
// baseline, a forward candidate with the forward one.
func TestComparisonsByDirection(t *testing.T) {
	e := &spec.Experiment{Name: "gla", Shapes: []string{"T=1"}, Variants: []spec.Variant{
		{Name: "fwd", Role: spec.RoleBaseline}, {Name: "fwd-fused", Role: spec.RoleCandidate},
		{Name: "bwd", Role: spec.RoleBaseline, Backward: true}, {Name: "bwd-fused", Role: spec.RoleCandidate, Backward: true},
	}}
	cell := func(v string, ms float64) CellFact {
		s := []float64{ms, ms, ms, ms, ms, ms, ms}
		iv, _ := SummarizeMs(s, 0.95)
		return CellFact{Experiment: "gla", Variant: v, Shape: "T=1", Status: "ok", Wall: iv, WallSamplesMs: s}
	}
	cmps := Comparisons([]CellFact{cell("fwd", 1), cell("fwd-fused", 0.5), cell("bwd", 3), cell("bwd-fused", 2)}, []*spec.Experiment{e}, Options{})
	got := map[string]string{}
	for _, c := range cmps {
		got[c.Candidate] = c.Baseline
	}
	if got["fwd-fused"] != "fwd" || got["bwd-fused"] != "bwd" || len(cmps) != 2 {
		t.Errorf("baselines %v", got)
	}
}

func TestFewSamplesAndL2(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	f := fixture{b}
	f.ncuKernel("unfused", "k", 100_000, ingest.PassKernel, map[string]float64{metric.DRAMRead: 1e6, metric.DRAMWrite: 1e6})
	f.timings("unfused", 1, 2, 3)
	tb := b.Finish()
	b.Release()
	defer tb.Release()
	exp := testExperiment()
	exp.Theory = nil
	run, err := Analyze(tb, []*spec.Experiment{exp}, Options{L2Bytes: 50 << 20})
	if err != nil {
		t.Fatal(err)
	}
	c := run.Cells[0]
	if c.Wall.Hi != Unbounded || c.Wall.Lo != 0 || c.Wall.Center != 2 {
		t.Errorf("3 samples: interval %+v, want median 2 and an unbounded interval", c.Wall)
	}
	for _, code := range []string{WarnFewSamples, WarnL2Resident} {
		if !hasWarning(c.Warnings, code, "*") {
			t.Errorf("no %s warning: %v", code, c.Warnings)
		}
	}
	if !hasWarning(run.Warnings, WarnMissing, "*") {
		t.Errorf("no run-level missing-metric summary: %v", run.Warnings)
	}
}

func TestClockWarnings(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for _, c := range []struct {
		timingMHz string
		want      bool
	}{{"1980", false}, {"1755", true}, {"", false}} {
		b := ingest.NewBuilder(mem)
		f := fixture{b}
		f.ncuKernel("unfused", "k", 100_000, ingest.PassKernel, map[string]float64{metric.SMClock: 1.98e9})
		f.ncuKernel("unfused", "k2", 100_000, ingest.PassKernel, map[string]float64{metric.SMClock: 1.96e9})
		if c.timingMHz != "" {
			b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: "t.json", Key: "clock.sm_mhz", Value: c.timingMHz})
		}
		tb := b.Finish()
		b.Release()
		ws := ClockWarnings(tb, 0.10, nil)
		tb.Release()
		if got := hasWarning(ws, WarnClocks, ""); got != c.want {
			t.Errorf("timing at %q MHz, ncu at 1970: warned %v, want %v (%v)", c.timingMHz, got, c.want, ws)
		}
	}
}

// TestClockWarningsKernelPassOnly: the range pass's rows carry an SM clock
// too (the clock over a whole range, idle gaps included), which is not the
// clock the kernels ran at. Kernel pass at 1980 and 1960 MHz (median 1970),
// three range rows at 1500 MHz, timing at 1980 MHz: 1970 is 0.5% off 1980,
// no warning; with the range rows the median would be 1500, 24% off.
func TestClockWarningsKernelPassOnly(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	f := fixture{b}
	f.ncuKernel("unfused", "k", 100_000, ingest.PassKernel, map[string]float64{metric.SMClock: 1.98e9})
	f.ncuKernel("unfused", "k2", 100_000, ingest.PassKernel, map[string]float64{metric.SMClock: 1.96e9})
	for _, v := range []string{"unfused", "dual-acc", "dual-acc-graph"} {
		f.ncuKernel(v, "range", 300_000, ingest.PassRange, map[string]float64{metric.SMClock: 1.50e9})
	}
	b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: "t.json", Key: "clock.sm_mhz", Value: "1980"})
	tb := b.Finish()
	b.Release()
	ws := ClockWarnings(tb, 0.10, nil)
	tb.Release()
	if hasWarning(ws, WarnClocks, "") {
		t.Errorf("range rows at 1500 MHz counted as the kernel pass's clock: %v", ws)
	}
}

func TestSpeedupIntervalUnbounded(t *testing.T) {
	iv := SpeedupInterval(Interval{Center: 2, Lo: 0, Hi: Unbounded, N: 3}, Interval{Center: 1, Lo: 0.9, Hi: 1.1, N: 10})
	if iv.Center != 2 || iv.Lo != 0 || iv.Hi != Unbounded {
		t.Errorf("%+v", iv)
	}
}

func TestCrossovers(t *testing.T) {
	exp := testExperiment()
	mk := func(shape string, sp float64, sig bool) Comparison {
		return Comparison{Experiment: expName, Shape: shape, Baseline: "unfused", Candidate: "dual-acc",
			Speedup: Interval{Center: sp}, Significant: sig}
	}
	sw := exp.Sweeps[0].Shapes
	for _, c := range []struct {
		cmps []Comparison
		want string
	}{
		{[]Comparison{mk(sw[0], 1.3, true), mk(sw[1], 1.1, true), mk(sw[2], 1.02, false), mk(sw[3], 0.9, true)}, "dual-acc wins for M <= 256"},
		{[]Comparison{mk(sw[3], 1.3, true), mk(sw[2], 1.2, true), mk(sw[1], 0.9, true), mk(sw[0], 0.8, true)}, "dual-acc wins for M >= 512"},
		{[]Comparison{mk(sw[0], 1.3, true), mk(sw[1], 0.9, true), mk(sw[2], 1.2, true)}, "dual-acc wins for M in {128, 512}"},
		{[]Comparison{mk(sw[0], 1.3, true), mk(sw[1], 1.3, true)}, ""},
		{[]Comparison{mk(sw[0], 0.8, true), mk(sw[1], 1.3, false)}, ""},
	} {
		got := Crossovers(c.cmps, []*spec.Experiment{exp})
		text := ""
		if len(got) > 0 {
			text = got[0].Text
		}
		if text != c.want {
			t.Errorf("crossover %q, want %q", text, c.want)
		}
	}
}

func TestTheoryFromSpecErrors(t *testing.T) {
	exp := testExperiment()
	exp.Theory["unfused"] = spec.Theory{DRAMBytes: "2*M*Q"}
	if _, _, err := TheoryFromSpec(exp, "unfused", shapeA); err == nil || !strings.Contains(err.Error(), "claims.yaml") {
		t.Errorf("undefined variable: err = %v", err)
	}
	if b, f, err := TheoryFromSpec(exp, "eager", shapeA); b != 0 || f != 0 || err != nil {
		t.Errorf("variant without a model: %v %v %v", b, f, err)
	}
}
