package project

import (
	"math"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
)

// projGPU is a catalog-like GPU: 100 SMs of compute capability 9.0, a
// 1000 MHz boost clock, bf16 tensor roof and DRAM bandwidth as given.
func projGPU(name string, dram, bf16 float64) gpu.Spec {
	return gpu.Spec{Key: name, Name: name, CC: "9.0", SMs: 100, BoostMHz: 1000, DRAMBW: dram, BF16: bf16, FP32: 1e13}
}

func projNear(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(1, math.Abs(b)) }

// Kernel terms by hand. Source: DRAM 1 TB/s, attainable 1 (given), bf16
// 1 PFLOP/s at 1000 MHz; target: DRAM 2 TB/s, same roof and clock; n = 2.
func TestProjectKernelTerms(t *testing.T) {
	src, dst := projGPU("A", 1e12, 1e15), projGPU("B", 2e12, 1e15)
	m := projector{src: src, dst: dst, n: 2, attain: 1}
	for _, tc := range []struct {
		name                   string
		f                      analysis.KernelFact
		dram, compute, other   float64
		class                  string
		projected, boostProjNs float64
	}{
		// 3 MB at 1 TB/s = 3000 ns; other = sqrt(5000^2 - 3000^2) = 4000 ns;
		// target: sqrt(1500^2 + 4000^2) = 4272.0018 ns.
		{"bytes and latency", analysis.KernelFact{Name: "k", DurationNs: 5000, DRAMBytes: 3e6, SMClockHz: 1e9},
			3000, 0, 4000, ProjLatency, 4272.0018, 4272.0018},
		// At the attainable rate: all DRAM; 2 TB/s halves it.
		{"streaming", analysis.KernelFact{Name: "copy", DurationNs: 2000, DRAMBytes: 2e6, SMClockHz: 1e9},
			2000, 0, 0, ProjBandwidth, 1000, 1000},
		// 1.6e9 bf16 FLOPs at 1 PFLOP/s scaled to the 800 MHz it ran at:
		// 1.6e9 / 0.8e15 = 2000 ns, all of its time: same roof, same clock
		// on the target: 2000 ns; at the target's 1000 MHz boost: 1600 ns.
		{"compute at its clock", analysis.KernelFact{Name: "gemm", DurationNs: 2000, SMClockHz: 0.8e9, FLOPs: map[string]float64{"tensor_bf16": 1.6e9}},
			0, 2000, 0, ProjCompute, 2000, 1600},
		// Nothing counted: latency-bound, kept at the same clock; at the
		// boost clock 3000 x 500/1000.
		{"nothing counted", analysis.KernelFact{Name: "sync", DurationNs: 3000, SMClockHz: 0.5e9},
			0, 0, 3000, ProjLatency, 3000, 1500},
	} {
		kp := m.kernel(tc.f)
		if !projNear(kp.DRAMNs, tc.dram, 1e-9) || !projNear(kp.ComputeNs, tc.compute, 1e-9) || !projNear(kp.OtherNs, tc.other, 1e-9) || kp.Class != tc.class {
			t.Errorf("%s: terms %g/%g/%g %s, want %g/%g/%g %s", tc.name, kp.DRAMNs, kp.ComputeNs, kp.OtherNs, kp.Class, tc.dram, tc.compute, tc.other, tc.class)
		}
		if !projNear(kp.ProjectedNs, tc.projected, 1e-7) || !projNear(kp.ProjectedBoostNs, tc.boostProjNs, 1e-7) {
			t.Errorf("%s: projected %g (boost %g), want %g (%g)", tc.name, kp.ProjectedNs, kp.ProjectedBoostNs, tc.projected, tc.boostProjNs)
		}
	}
	// Terms that exceed the measured time (a kernel faster than the
	// attainable bandwidth says) keep their proportion: 3000 and 4000 ns
	// of terms give 5000 for a 4000 ns kernel; on the target sqrt(1500^2 +
	// 4000^2) x 4000 / 5000 = 3417.6015 ns.
	kp := m.kernel(analysis.KernelFact{Name: "fast", DurationNs: 4000, DRAMBytes: 3e6, SMClockHz: 1e9, FLOPs: map[string]float64{"tensor_bf16": 4e9}})
	if kp.OtherNs != 0 || !projNear(kp.ProjectedNs, 3417.6015, 1e-7) {
		t.Errorf("terms above the time: other %g, projected %g, want 0, 3417.6015", kp.OtherNs, kp.ProjectedNs)
	}
	// A FLOP class the target has no roof for is named, not counted.
	noFP8 := projGPU("C", 2e12, 1e15)
	kp = projector{src: gpu.Spec{SMs: 100, BoostMHz: 1000, DRAMBW: 1e12, FP8: 2e15, CC: "9.0"}, dst: noFP8, n: 2, attain: 1}.kernel(
		analysis.KernelFact{Name: "fp8", DurationNs: 1000, FLOPs: map[string]float64{"tensor_fp8": 1e9}})
	if len(kp.NoTargetRoof) != 1 || kp.NoTargetRoof[0] != "tensor fp8" || kp.ComputeNs != 0 {
		t.Errorf("fp8 onto a GPU without fp8: %+v", kp)
	}
}

// Occupancy by the CUDA rules for compute capability 9.0 (65536 registers,
// 2048 threads, 32 blocks and 228 KiB of shared memory per SM; registers
// allocated per warp in 256s; 1 KiB of shared memory reserved per block).
func TestBlocksPerSMAndWaves(t *testing.T) {
	for _, tc := range []struct {
		l    analysis.Launch
		want int64
	}{
		// 128 threads, 32 registers: 4 warps x 1024 registers = 4096 per
		// block -> 16 by registers, 16 by threads.
		{analysis.Launch{GridBlocks: 65536, BlockThreads: 128, Registers: 32}, 16},
		// 384 threads, 168 registers (5376 per warp), 213188 B of shared
		// memory: 214212 B with the reserve, one block in 233472 B.
		{analysis.Launch{GridBlocks: 132, BlockThreads: 384, Registers: 168, SharedBytes: 213188}, 1},
		// 256 threads, 255 registers: 8160 per warp x 8 warps = 65280 -> 1.
		{analysis.Launch{GridBlocks: 832, BlockThreads: 256, Registers: 255}, 1},
		// 64 threads, 16 registers: 2 warps x 512 = 1024 -> 64 by
		// registers, 32 by threads; the 32-block limit.
		{analysis.Launch{GridBlocks: 10, BlockThreads: 64, Registers: 16}, 32},
		{analysis.Launch{GridBlocks: 10}, 0}, // block size unknown
	} {
		if got := analysis.BlocksPerSM(tc.l, "9.0"); got != tc.want {
			t.Errorf("BlocksPerSM(%+v) = %d, want %d", tc.l, got, tc.want)
		}
	}
	// 65536 blocks of 16 per SM on 132 SMs: ceil(65536 / 2112) = 32 waves.
	if w := analysis.Waves(analysis.Launch{GridBlocks: 65536, BlockThreads: 128, Registers: 32}, "9.0", 132); w != 32 {
		t.Errorf("waves %d, want 32", w)
	}
	if analysis.BlocksPerSM(analysis.Launch{BlockThreads: 128}, "1.0") != 0 {
		t.Error("an unknown compute capability gives an occupancy")
	}
}

// A grid of more than one wave on the source takes more waves on a GPU of
// fewer SMs: its latency term scales by the waves' ratio. 2000 blocks of 16
// per SM: 2 waves on 100 SMs, 3 on 50 SMs.
func TestProjectWaves(t *testing.T) {
	src := projGPU("A", 1e12, 1e15)
	dst := src
	dst.SMs = 50
	kp := projector{src: src, dst: dst, n: 2, attain: 1}.kernel(analysis.KernelFact{Name: "k", DurationNs: 1000, SMClockHz: 1e9,
		Launch: analysis.Launch{GridBlocks: 2000, BlockThreads: 128, Registers: 32}})
	if kp.Waves != 2 || kp.TargetWaves != 3 || !projNear(kp.ProjectedNs, 1500, 1e-9) || kp.UnderOneWave {
		t.Errorf("waves %d -> %d, projected %g, under one wave %v; want 2 -> 3, 1500, false", kp.Waves, kp.TargetWaves, kp.ProjectedNs, kp.UnderOneWave)
	}
	kp = projector{src: src, dst: dst, n: 2, attain: 1}.kernel(analysis.KernelFact{Name: "scan", DurationNs: 1000, Launch: analysis.Launch{GridBlocks: 16, BlockThreads: 128}})
	if !kp.UnderOneWave || kp.ProjectedNs != 1000 {
		t.Errorf("16 blocks: under one wave %v, projected %g; want true, 1000", kp.UnderOneWave, kp.ProjectedNs)
	}
}

// Cells: the kernel sums project kernel by kernel, the nsys GPU time and
// the device time by their ratio; a host-bound cell's wall is not
// projected; Against states each measure's errors beside the naive ones.
func TestProjectCellsAndAgainst(t *testing.T) {
	src, dst := projGPU("A", 1e12, 1e15), projGPU("B", 2e12, 1e15)
	run := &analysis.Run{GPU: "A",
		Kernels: []analysis.KernelFact{
			// 2 MB in 2000 ns is the run's best DRAM rate: attainable 1.
			{Experiment: "e", Variant: "base", Shape: "s", Name: "k1", ShortName: "k1", DurationNs: 2000, DRAMBytes: 2e6, SMClockHz: 1e9}, // -> 1000
			{Experiment: "e", Variant: "base", Shape: "s", Name: "k2", ShortName: "k2", DurationNs: 2000},                                 // kept
			{Experiment: "e", Variant: "fused", Shape: "s", Name: "k3", ShortName: "k3", DurationNs: 2000, DRAMBytes: 2e6},                // -> 1000
		},
		Cells: []analysis.CellFact{
			// kernel sum 4000 -> 3000 ns (ratio 0.75); nsys 4000 ns, device
			// 0.0042 ms, wall 0.005 ms: overhead 0.0008, projected wall
			// 0.0042 x 0.75 + 0.0008 = 0.00395 ms.
			{Experiment: "e", Variant: "base", Role: "baseline", Shape: "s", GPUTimeNs: 4000,
				Device: analysis.Interval{Center: 0.0042, N: 5}, Wall: analysis.Interval{Center: 0.005, N: 5}},
			// no nsys timeline (its GPU time came from ncu), wall 0.0031 ms
			// over the ncu sum 0.002 ms: 1.55x, host-bound.
			{Experiment: "e", Variant: "fused", Role: "candidate", Shape: "s", GPUTimeNs: 2000, Wall: analysis.Interval{Center: 0.0031, N: 5},
				Warnings: []analysis.Warning{{Code: analysis.WarnMissing, Metric: "gpu_time_ns", Msg: "no nsys timeline"}}},
			{Experiment: "e", Variant: "none", Role: "candidate", Shape: "s", Wall: analysis.Interval{Center: 0.003, N: 5}}, // no kernels: left out
		},
		Comparisons: []analysis.Comparison{{Experiment: "e", Shape: "s", Baseline: "base", Candidate: "fused"}},
	}
	p := Run(run, src, dst, Options{})
	if p.Model.DRAMAttainable != 1 || len(p.Cells) != 2 {
		t.Fatalf("attainable %g, %d cells; want 1, 2", p.Model.DRAMAttainable, len(p.Cells))
	}
	b, f := p.Cells[0], p.Cells[1]
	if !projNear(b.ProjectedKernelMs, 0.003, 1e-9) || !projNear(b.ProjectedGPUMs, 0.003, 1e-9) || !projNear(b.ProjectedDeviceMs, 0.00315, 1e-9) ||
		!projNear(b.ProjectedWallMs, 0.00395, 1e-9) || b.WallNote != "" {
		t.Errorf("base: kernels %g, GPU %g, device %g, wall %g (%s); want 0.003, 0.003, 0.00315, 0.00395", b.ProjectedKernelMs, b.ProjectedGPUMs, b.ProjectedDeviceMs, b.ProjectedWallMs, b.WallNote)
	}
	if f.SourceGPUMs != 0 || f.ProjectedWallMs != 0 || f.WallNote == "" {
		t.Errorf("fused: GPU %g, wall %g (%q); want no nsys GPU time and a host-bound wall left unprojected", f.SourceGPUMs, f.ProjectedWallMs, f.WallNote)
	}
	if b.ClassShares[ProjBandwidth] != 0.5 || b.ClassShares[ProjLatency] != 0.5 {
		t.Errorf("base class shares %v, want half bandwidth-, half latency-bound", b.ClassShares)
	}
	// Speedup on kernel sums: 4000/2000 = 2 measured, 3000/1000 = 3 projected.
	if len(p.Speedups) != 1 || !projNear(p.Speedups[0].Source, 2, 1e-9) || !projNear(p.Speedups[0].Projected, 3, 1e-9) {
		t.Errorf("speedups %+v, want source 2, projected 3", p.Speedups)
	}
	measured := &analysis.Run{GPU: "B",
		Kernels: []analysis.KernelFact{
			{Experiment: "e", Variant: "base", Shape: "s", ShortName: "k1", DurationNs: 1250, SMClockHz: 1.1e9},
			{Experiment: "e", Variant: "base", Shape: "s", ShortName: "k2", DurationNs: 1750},
			{Experiment: "e", Variant: "fused", Shape: "s", ShortName: "k9", DurationNs: 1250},
		},
		Cells: []analysis.CellFact{
			{Experiment: "e", Variant: "base", Shape: "s", KernelPassTimeNs: 3000, GPUTimeNs: 2500, Wall: analysis.Interval{Center: 0.004, N: 5}},
			{Experiment: "e", Variant: "fused", Shape: "s", KernelPassTimeNs: 1250, Wall: analysis.Interval{Center: 0.002, N: 5}},
		}}
	p.Against("m", measured)
	// Kernel sums: base 3000/3000 - 1 = 0 (naive 4000/3000 - 1 = +1/3),
	// fused 1000/1250 - 1 = -0.2 (naive +0.6): median -0.1, worst -0.2 at
	// e/fused/s, naive median |error| (1/3 + 0.6) / 2.
	e := p.Error(ErrKernels)
	if e == nil || e.N != 2 || !projNear(e.Median, -0.1, 1e-9) || !projNear(e.Worst, -0.2, 1e-9) || e.WorstCell != "e/fused/s" ||
		!projNear(e.NaiveMedianAbs, (1.0/3+0.6)/2, 1e-9) || !projNear(e.NaiveWorst, 0.6, 1e-9) {
		t.Errorf("kernel-sum error %+v", e)
	}
	if e.WorstNote == "" {
		t.Error("the fused cell ran another kernel on the target (k9): no note")
	}
	// nsys: only base has a timeline on both: 0.003 / 0.0025 - 1 = +0.2.
	if g := p.Error(ErrGPU); g == nil || g.N != 1 || !projNear(g.Worst, 0.2, 1e-9) {
		t.Errorf("GPU-time error %+v, want one cell at +0.2", g)
	}
	// Wall: base only (fused host-bound): 0.00395 / 0.004 - 1.
	if w := p.Error(ErrWall); w == nil || w.N != 1 || !projNear(w.Worst, 0.00395/0.004-1, 1e-9) {
		t.Errorf("wall error %+v", w)
	}
	// Kernels by class: k1 projected 1000 vs 1250 (-0.2, bandwidth-bound),
	// k2 2000 vs 1750 (+1/7, latency-bound); the clock check: k1 ran at
	// 1100 MHz on the target, 1000 MHz on the source.
	if len(p.KernelErrors) != 3 || p.KernelErrors[0].Measure != ProjBandwidth || !projNear(p.KernelErrors[0].Worst, -0.2, 1e-9) ||
		p.KernelErrors[1].Measure != ProjLatency || !projNear(p.KernelErrors[1].Worst, 2000.0/1750-1, 1e-9) || p.KernelErrors[2].N != 2 {
		t.Errorf("kernel errors %+v", p.KernelErrors)
	}
	if c := p.TargetClock; c == nil || c.N != 1 || !projNear(c.Median, 1.1, 1e-9) || c.Assumed != 1 {
		t.Errorf("clock check %+v, want one kernel at 1.1, assumed 1", c)
	}
	if !projNear(p.Speedups[0].Measured, 2.4, 1e-9) {
		t.Errorf("measured speedup %g, want 3000/1250 = 2.4", p.Speedups[0].Measured)
	}
	p2 := Run(run, src, dst, Options{})
	p2.Against("empty", &analysis.Run{})
	if len(p2.Errors) != 0 || len(p2.Warnings) == 0 {
		t.Errorf("against a run with no common cell: errors %+v, warnings %v", p2.Errors, p2.Warnings)
	}
}

// The attainable DRAM fraction comes from the run: its best kernel, or
// its measured ceiling where higher; under one half the datasheet stands.
func TestDRAMAttainable(t *testing.T) {
	g := projGPU("A", 1e12, 1e15)
	run := &analysis.Run{Kernels: []analysis.KernelFact{{ShortName: "a", DurationNs: 1000, DRAMBytes: 8e5}, {ShortName: "b", DurationNs: 1000, DRAMBytes: 9e5}}}
	if a, _ := dramAttainable(run, g); !projNear(a, 0.9, 1e-12) {
		t.Errorf("attainable %g, want 0.9 (kernel b)", a)
	}
	run.Ceilings = gpu.Ceilings{Items: []gpu.Ceiling{{Name: gpu.CeilDRAM, Value: 0.95e12, Source: "measured: rooftool ceilings"}}}
	if a, from := dramAttainable(run, g); !projNear(a, 0.95, 1e-12) || from == "" {
		t.Errorf("attainable %g (%s), want 0.95 (measured)", a, from)
	}
	if a, _ := dramAttainable(&analysis.Run{Kernels: []analysis.KernelFact{{DurationNs: 1000, DRAMBytes: 1e5}}}, g); a != 1 {
		t.Errorf("attainable %g with no streaming kernel, want 1", a)
	}
}
