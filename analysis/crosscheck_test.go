package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/spec"
)

// The cross-pass checks on the committed H100 run 2026-11-22-h100-003504.
// The figures were read from the raw exports without rooftool:
//   - ncu CSVs (raw/ncu and raw/ncu-range, gated_ssm/<variant>/<shape>.csv)
//     with Python's csv module, summing gpu__time_duration.sum and
//     lts__t_bytes.sum over the kernel rows;
//   - the nsys SQLite (raw/nsys/gated_ssm/part-1.sqlite.gz) with the
//     sqlite3 CLI: kernels joined to CUPTI_ACTIVITY_KIND_RUNTIME by
//     correlationId, inside the NVTX range variant > shape on the same
//     thread, grouped by StringIds.value of shortName;
//   - the timing JSON's samples_ms, median with Python's statistics module.
func TestCrossChecksOnCommittedRun(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	runs := realRunTables(t, mem)
	defer func() {
		for _, tb := range runs {
			tb.Release()
		}
	}()
	tb := runs["2026-11-22-h100-003504"]
	if tb == nil {
		t.Skip("run 2026-11-22-h100-003504 not committed")
	}
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	run, err := Analyze(tb, exps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const d2048, mve = "B=16,T=2048,d=2048,H=16,dk=128,n=16", "B=16,T=512,d=768,H=12,dk=64,n=16"
	cell := func(v, s string) *CellFact {
		for i := range run.Cells {
			c := &run.Cells[i]
			if c.Experiment == "gated_ssm" && c.Variant == v && c.Shape == s {
				return c
			}
		}
		t.Fatalf("no cell gated_ssm/%s/%s", v, s)
		return nil
	}
	warning := func(c *CellFact, code string) *Warning {
		for i := range c.Warnings {
			if c.Warnings[i].Code == code {
				return &c.Warnings[i]
			}
		}
		return nil
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Abs(want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}

	// compiled at d=2048: the range (668,384 ns; 1,976,931,520 L2 bytes)
	// against its 6 kernels (2,051,776 ns; 12,406,452,288 L2 bytes).
	c := cell("compiled", d2048)
	near("compiled d2048 range time", c.RangeTimeNs, 668384)
	near("compiled d2048 kernel-pass time", c.KernelPassTimeNs, 2051776)
	near("compiled d2048 range L2", c.RangeL2Bytes, 1976931520)
	near("compiled d2048 kernel-pass L2", c.L2Bytes, 12406452288)
	// 668384/2051776 = 0.32576 and 1976931520/12406452288 = 0.15935, cut
	// (never rounded up) to one decimal of a percent.
	if w := warning(c, WarnRangePartial); !c.RangePartial || w == nil || !strings.Contains(w.Msg, "32.5%") || !strings.Contains(w.Msg, "15.9%") {
		t.Errorf("compiled d2048: want range-partial at 32.5%% of the time and 15.9%% of the L2 bytes, got %+v", c.Warnings)
	}
	// eager at d=2048: 1,913,920 ns / 9,359,136,352 B against 2,205,312 ns / 13,412,115,840 B (70% of L2).
	if c := cell("eager", d2048); !c.RangePartial {
		t.Errorf("eager d2048: range covers %.2f of L2 bytes, want range-partial", c.RangeCoverage.L2Bytes)
	}
	// triton-epilogue at d=2048 covers its kernels (2,453,568 ns >= 2,223,232 ns;
	// 15,166,818,592 >= 15,136,434,752 L2 bytes): complete.
	if c := cell("triton-epilogue", d2048); c.RangePartial {
		t.Errorf("triton-epilogue d2048: complete range flagged partial: %+v", c.RangeCoverage)
	}

	// triton-epilogue at d=2048: ncu profiled _mm_epi_kernel twice, nsys
	// saw _mm_epi_kernel and _mm_epi_tma_kernel once each.
	w := warning(cell("triton-epilogue", d2048), WarnPassesDiffer)
	if w == nil || !strings.Contains(w.Msg, "only in ncu: _mm_epi_kernel;") || !strings.Contains(w.Msg, "only in nsys: _mm_epi_tma_kernel") {
		t.Errorf("triton-epilogue d2048: want passes-differ naming _mm_epi_kernel vs _mm_epi_tma_kernel, got %v", w)
	}
	// eager: ncu and nsys spell the same 8 kernels differently; not a difference.
	if w := warning(cell("eager", d2048), WarnPassesDiffer); w != nil {
		t.Errorf("eager d2048: same kernels spelled two ways flagged: %s", w.Msg)
	}

	// compiled at the MVE shape: wall median 0.363728 ms against 6 kernels
	// summing to 105,091 ns on the nsys timeline: 3.46x.
	c = cell("compiled", mve)
	near("compiled mve wall", c.Wall.Center, 0.36372800171375275)
	near("compiled mve host ratio", c.HostRatio, 0.36372800171375275/0.105091)
	if hostBoundWarning(c) == nil {
		t.Errorf("compiled mve: want host-bound, got %+v", c.Warnings)
	}
	// eager at the MVE shape is not host-bound (162.7 us of wall, 120.9 us of kernels).
	if warning(cell("eager", mve), WarnHostBound) != nil {
		t.Errorf("eager mve flagged host-bound")
	}
}

// ncu and nsys demangle the same PyTorch kernel differently.
func TestNormalizeKernelName(t *testing.T) {
	ncu := "void at::vectorized_elementwise_kernel<8, at::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, binary_internal::MulFunctor<float>>, std::array<char *, 3>>(int, T2, T3)"
	nsys := "void at::native::vectorized_elementwise_kernel<(int)8, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>, std::array<char *, (unsigned long)3>>(int, T2, T3)"
	if a, b := NormalizeKernelName(ncu), NormalizeKernelName(nsys); a != b {
		t.Errorf("normalised names differ:\n%s\n%s", a, b)
	}
	ncu = "void at::vectorized_elementwise_kernel<8, at::<unnamed>::silu_kernel(at::TensorIteratorBase &)::[lambda() (instance 1)]>(int, T2, T3)"
	nsys = "void at::native::vectorized_elementwise_kernel<(int)8, at::native::<unnamed>::silu_kernel(at::TensorIteratorBase &)::[lambda() (instance 1)]>(int, T2, T3)"
	if a, b := NormalizeKernelName(ncu), NormalizeKernelName(nsys); a != b {
		t.Errorf("normalised names differ:\n%s\n%s", a, b)
	}
	// Tiles in CUTLASS names stay apart.
	a := NormalizeKernelName("cutlass3x_sm90_tensorop_s0x0x0gemm_bf16_bf16_f32_bf16_bf16_256x128x64_1x2x1_0_ttt_align8")
	b := NormalizeKernelName("cutlass3x_sm90_tensorop_s0x0x0gemm_bf16_bf16_f32_bf16_bf16_128x256x64_2x1x1_0_ttt_align8")
	if a == b {
		t.Error("two CUTLASS tiles normalised to one name")
	}
}

// Two groups of wall-time samples: the swiglu_fp8 unfused baseline at
// M=256 in run 022317 (8 samples at 74-96 us, 42 at 117-174 us).
func TestBimodal(t *testing.T) {
	opts := Options{}.withDefaults()
	c := &CellFact{}
	two := append(repeat(0.075, 8), repeat(0.126, 42)...)
	checkBimodal(c, two, "wall-time", opts)
	if len(c.Warnings) != 1 || c.Warnings[0].Code != WarnBimodal {
		t.Fatalf("two groups: got %+v", c.Warnings)
	}
	c = &CellFact{}
	one := []float64{}
	for i := 0; i < 50; i++ {
		one = append(one, 0.100+0.0004*float64(i)) // 100-119.6 us, evenly spread
	}
	checkBimodal(c, one, "wall-time", opts)
	if len(c.Warnings) != 0 {
		t.Errorf("one group flagged: %+v", c.Warnings)
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// A host-bound cell judged on its CUDA-graph launch, and one whose graph
// capture failed: the figures of the d=768 quack cell (wall 162.5 us,
// device 95.8 us: 1.70x > 1.5).
func TestHostBoundLaunchMethod(t *testing.T) {
	opts := Options{}.withDefaults()
	c := &CellFact{Variant: "quack-epilogue", Wall: Interval{Center: 0.1625, N: 50}, Device: Interval{Center: 0.0958, N: 50}}
	checkHostBound(c, opts)
	w := hostBoundWarning(c)
	if c.LaunchMethod != LaunchGraph || w == nil || !strings.Contains(w.Msg, "judged on the call launched as a CUDA graph") {
		t.Errorf("graph-timed host-bound cell: launch %q, warning %v", c.LaunchMethod, w)
	}
	c = &CellFact{Variant: "quack-epilogue", Wall: Interval{Center: 0.1625, N: 50}, GPUTimeNs: 95800,
		LaunchError: "capture or replay failed: RuntimeError: operation not permitted when stream is capturing"}
	checkHostBound(c, opts)
	w = hostBoundWarning(c)
	if c.LaunchMethod != LaunchEager || w == nil || !strings.Contains(w.Msg, "no CUDA-graph launch could be timed: capture or replay failed: RuntimeError: operation not permitted") {
		t.Errorf("capture failed: launch %q, warning %v", c.LaunchMethod, w)
	}
	c = &CellFact{Variant: "eager", Wall: Interval{Center: 0.12, N: 50}, Device: Interval{Center: 0.1, N: 50}}
	checkHostBound(c, opts)
	if c.LaunchMethod != LaunchEager || hostBoundWarning(c) != nil {
		t.Errorf("1.2x: launch %q, warnings %v", c.LaunchMethod, c.Warnings)
	}
}

func hostBoundWarning(c *CellFact) *Warning {
	for i := range c.Warnings {
		if c.Warnings[i].Code == WarnHostBound {
			return &c.Warnings[i]
		}
	}
	return nil
}
