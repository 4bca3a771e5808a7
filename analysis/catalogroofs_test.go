package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
)

const realdata = "../testdata/realdata/"

func ingestFile(t *testing.T, mem memory.Allocator, path string) *ingest.Tables {
	t.Helper()
	tb, err := detect.File(path, ingest.Options{}, mem)
	if err != nil {
		t.Fatalf("ingest %s: %v", path, err)
	}
	return tb
}

// The details-page export of a CC 12.0 GPU with a 512-bit GDDR7 bus
// (RTX 5090 class): ncu states DRAM throughput 19.66% of peak; rooftool's %
// of the catalog DRAM roof must agree within 2 points.
func TestRealDetailsCSVAgreesWithSOL(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := ingestFile(t, mem, realdata+"llm-perf-opt/kernel_0001.ncu.details.csv")
	defer tb.Release()
	c := gpu.CeilingsFor(DeviceCeilings(tb), "NVIDIA GeForce RTX 5090", nil)
	dram, ok := c.Get(gpu.CeilDRAM, "catalog:")
	if !ok || dram.Value != 1792e9 {
		t.Fatalf("DRAM ceiling %+v", dram)
	}
	kf := KernelFacts(tb, c, Options{})
	if len(kf) != 1 {
		t.Fatalf("%d kernels", len(kf))
	}
	f := kf[0]
	sol := f.SOL["dram"]
	if sol != 19.66 {
		t.Fatalf("ncu SOL dram %v, want 19.66 from the export", sol)
	}
	if got := f.PctOfRoof[gpu.CeilDRAM]; math.Abs(got-sol) > 2 {
		t.Errorf("%% of DRAM roof %.2f, ncu says %.2f: more than 2 points apart", got, sol)
	}
	// 2.33 MB read in 6.75 us.
	if got, want := f.ByteRate["dram"], 2.33e6/6.75e-6; math.Abs(got-want) > 1e-6*want {
		t.Errorf("DRAM B/s %g, want %g", got, want)
	}
	if f.Class != ClassLatency {
		t.Errorf("class %s: SOL memory 19.66%%, compute 9.15%% is latency-bound", f.Class)
	}
	if !f.Elementwise {
		// bf16 tensor counter is 0 for this cuBLAS gemv: no tensor work.
		t.Errorf("gemv with zero tensor ops not elementwise")
	}
}

// The B200 raw export: no byte or FLOP counters, but device attributes and
// pipe SOL percentages. Ceilings come from the catalog entry the device name
// finds; kernels are classed from ncu's own SOL.
func TestRealB200RawCSV(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := ingestFile(t, mem, realdata+"Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv")
	defer tb.Release()
	c := gpu.CeilingsFor(DeviceCeilings(tb), "", nil)
	if c.GPU != "NVIDIA B200" || c.L2Bytes != 132644864 {
		t.Errorf("GPU %q L2 %d", c.GPU, c.L2Bytes)
	}
	if d, ok := c.Get(gpu.CeilDRAM, "catalog: NVIDIA B200"); !ok || d.Value != 8e12 {
		t.Errorf("DRAM %+v", d)
	}
	run, err := Analyze(tb, nil, Options{Ceilings: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Kernels) != 16 {
		t.Errorf("%d kernels", len(run.Kernels))
	}
	var split KernelFact
	for _, f := range run.Kernels {
		if strings.HasPrefix(f.ShortName, "flash_fwd_splitkv_kernel") {
			split = f
			break
		}
	}
	if split.SOL["tensor"] != 54.22 || split.Class != ClassLatency {
		t.Errorf("splitkv SOL %v class %s: tensor pipe 54%% < 60%% is latency-bound", split.SOL, split.Class)
	}
	if split.Elementwise {
		t.Error("flash attention kernel marked elementwise")
	}
	found := false
	for _, w := range run.Warnings {
		if w.Code == WarnMissing && strings.Contains(w.Msg, "dram__bytes") {
			found = true
		}
	}
	if !found {
		t.Errorf("no missing-metric warning for DRAM bytes: %v", run.Warnings)
	}
}

// Summit's V100 (2020 layout): no duration, but cycles and clock; DRAM bytes.
func TestRealV100CyclesGiveDuration(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := ingestFile(t, mem, realdata+"gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv")
	defer tb.Release()
	c := gpu.CeilingsFor(DeviceCeilings(tb), "Tesla V100-SXM2-16GB", nil)
	kf := KernelFacts(tb, c, Options{})
	if len(kf) == 0 {
		t.Fatal("no kernels")
	}
	f := kf[0]
	wantNs := 1209826.20 / 1309471763.30 * 1e9
	if math.Abs(f.DurationNs-wantNs) > 1e-6*wantNs {
		t.Errorf("duration %g ns, want %g", f.DurationNs, wantNs)
	}
	wantPct := 100 * 690974304 / (wantNs / 1e9) / 900e9
	if got := f.PctOfRoof[gpu.CeilDRAM]; math.Abs(got-wantPct) > 1e-6 {
		t.Errorf("%% DRAM %g, want %g", got, wantPct)
	}
}

// ESMM SGEMMs (CC 8.6): fp32 FLOPs = fadd + fmul + 2 ffma.
func TestRealESMMFLOPs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := ingestFile(t, mem, realdata+"ESMM-Research/metrics.csv")
	defer tb.Release()
	kf := KernelFacts(tb, gpu.CeilingsFor(DeviceCeilings(tb), "", nil), Options{})
	if len(kf) != 9 {
		t.Fatalf("%d kernels", len(kf))
	}
	f := kf[0] // basic: fadd 0, fmul 1,048,576, ffma 1,073,741,824 in 10,776,576 ns
	want := 1048576 + 2*1073741824.0
	if f.FLOPs["fp32"] != want || f.DurationNs != 10776576 {
		t.Errorf("fp32 FLOPs %v duration %v", f.FLOPs["fp32"], f.DurationNs)
	}
	if got := f.AI["dram"]; math.Abs(got-want/32746880) > 1e-9 {
		t.Errorf("AI %v", got)
	}
	if len(f.PctOfRoof) != 0 {
		t.Errorf("no GPU named and none in the export, yet %% of roof %v", f.PctOfRoof)
	}
}
