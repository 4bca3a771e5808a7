package analysis

import (
	"math"
	"testing"

	"github.com/rooftool/rooftool/gpu"
)

func projRoofs(name string, dram, bf16 float64) gpu.Ceilings {
	return gpu.Ceilings{GPU: name, Items: []gpu.Ceiling{
		{Name: gpu.CeilDRAM, Kind: gpu.KindBandwidth, Value: dram, Source: "catalog: test"},
		{Name: "tensor bf16", Kind: gpu.KindCompute, Value: bf16, Source: "catalog: test"},
	}}
}

func projNear(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// A memory-bound kernel speeds up by the DRAM bandwidth ratio at the
// efficiency it reached; a compute-bound one keeps its time where the
// compute roofs are equal; a kernel with no counted work keeps its time.
func TestProjectKernel(t *testing.T) {
	src, dst := projRoofs("A", 1e12, 1e15), projRoofs("B", 2e12, 1e15)
	for _, tc := range []struct {
		name       string
		f          KernelFact
		want, eff  float64
		limitOnDst string
	}{
		{"memory-bound at half the roof", KernelFact{Name: "copy", DurationNs: 2000, DRAMBytes: 1e6}, 1000, 0.5, gpu.CeilDRAM},
		{"compute-bound", KernelFact{Name: "gemm", DurationNs: 1250, DRAMBytes: 1e5, FLOPs: map[string]float64{"tensor_bf16": 1e9}}, 1250, 0.8, "tensor bf16"},
		{"turns compute-bound on the target", KernelFact{Name: "mix", DurationNs: 2000, DRAMBytes: 1e6, FLOPs: map[string]float64{"tensor_bf16": 7.5e8}}, 1500, 0.5, "tensor bf16"},
		{"no counted work", KernelFact{Name: "empty", DurationNs: 3000}, 3000, 0, ""},
		{"class without a roof", KernelFact{Name: "fp64", DurationNs: 3000, FLOPs: map[string]float64{"fp64": 1e9}}, 3000, 0, ""},
	} {
		kp := ProjectKernel(tc.f, src, dst)
		if !projNear(kp.ProjectedNs, tc.want) || !projNear(kp.Efficiency, tc.eff) || kp.LimitTarget != tc.limitOnDst {
			t.Errorf("%s: projected %g ns, efficiency %g, limit %q; want %g, %g, %q", tc.name, kp.ProjectedNs, kp.Efficiency, kp.LimitTarget, tc.want, tc.eff, tc.limitOnDst)
		}
	}
}

// A cell's overhead (wall - GPU time) is carried over, its GPU time is
// scaled by its kernels' ratio, speedups follow, and Against states the
// errors.
func TestProjectCellsAndAgainst(t *testing.T) {
	src, dst := projRoofs("A", 1e12, 1e15), projRoofs("B", 2e12, 1e15)
	run := &Run{GPU: "A",
		Kernels: []KernelFact{
			{Experiment: "e", Variant: "base", Shape: "s", Name: "k1", DurationNs: 2000, DRAMBytes: 1e6},  // -> 1000
			{Experiment: "e", Variant: "base", Shape: "s", Name: "k2", DurationNs: 2000},                  // kept
			{Experiment: "e", Variant: "fused", Shape: "s", Name: "k3", DurationNs: 2000, DRAMBytes: 2e6}, // -> 1000
		},
		Cells: []CellFact{
			{Experiment: "e", Variant: "base", Role: "baseline", Shape: "s", GPUTimeNs: 4000, Wall: Interval{Center: 0.005}},
			{Experiment: "e", Variant: "fused", Role: "candidate", Shape: "s", Wall: Interval{Center: 0.003}}, // no nsys: the ncu sum
			{Experiment: "e", Variant: "none", Role: "candidate", Shape: "s", Wall: Interval{Center: 0.003}},  // no kernels: left out
		},
		Comparisons: []Comparison{{Experiment: "e", Shape: "s", Baseline: "base", Candidate: "fused"}},
	}
	p := Project(run, src, dst)
	if len(p.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(p.Cells))
	}
	b, f := p.Cells[0], p.Cells[1]
	// base: GPU 0.004 ms x 3000/4000 = 0.003, overhead 0.001 -> 0.004 ms.
	// fused: GPU 0.002 ms x 1/2 = 0.001, overhead 0.001 -> 0.002 ms.
	if !projNear(b.OverheadMs, 0.001) || !projNear(b.ProjectedWallMs, 0.004) || !projNear(f.ProjectedWallMs, 0.002) {
		t.Errorf("projected walls %g (overhead %g), %g; want 0.004 (0.001), 0.002", b.ProjectedWallMs, b.OverheadMs, f.ProjectedWallMs)
	}
	if len(p.Speedups) != 1 || !projNear(p.Speedups[0].Source, 5.0/3) || !projNear(p.Speedups[0].Projected, 2) {
		t.Errorf("speedups %+v, want source 5/3, projected 2", p.Speedups)
	}
	if len(p.Warnings) != 1 {
		t.Errorf("warnings %v, want one for the kernel with no counted work", p.Warnings)
	}
	measured := &Run{GPU: "B", Cells: []CellFact{
		{Experiment: "e", Variant: "base", Shape: "s", Wall: Interval{Center: 0.005}},
		{Experiment: "e", Variant: "fused", Shape: "s", Wall: Interval{Center: 0.002}},
	}}
	p.Against("m", measured)
	if p.Error == nil || p.Error.N != 2 || !projNear(p.Error.Median, -0.1) || !projNear(p.Error.Worst, -0.2) || p.Error.WorstCell != "e/base/s" {
		t.Errorf("error %+v, want n=2 median -0.1 worst -0.2 at e/base/s", p.Error)
	}
	if !projNear(p.Speedups[0].Measured, 2.5) {
		t.Errorf("measured speedup %g, want 2.5", p.Speedups[0].Measured)
	}
	p2 := Project(run, src, dst)
	p2.Against("empty", &Run{})
	if p2.Error != nil {
		t.Errorf("against a run with no common cell: error %+v, want none", p2.Error)
	}
}
