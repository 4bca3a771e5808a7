package roofline

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/golden"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/spec"
)

const goldenDir = "testdata/golden"

var swigluSweep = spec.Sweep{Name: "M", Var: "M", Shapes: []string{
	"M=128,N=4096,K=7168", "M=256,N=4096,K=7168", "M=512,N=4096,K=7168",
	"M=1024,N=4096,K=7168", "M=2048,N=4096,K=7168", "M=4096,N=4096,K=7168"}}

// synthRun is a hand-made run of the swiglu experiment on an H100: catalog
// roofs, device L2/L1 roofs, measured ceilings, three variants. Its numbers
// are invented for drawing, not measurements.
func synthRun() *analysis.Run {
	meas := &gpu.Measured{Version: 1, Device: "NVIDIA H100 80GB HBM3", Items: []gpu.MeasuredCeiling{
		{Name: "DRAM", Kind: "bandwidth", Value: 3.0e12, Method: "copy"},
		{Name: "L2", Kind: "bandwidth", Value: 9.5e12, Method: "sweep"},
		{Name: "tensor bf16", Kind: "compute", Value: 7.9e14, Method: "matmul"},
		{Name: "fp32", Kind: "compute", Value: 5.0e13, Method: "fma"},
	}}
	c := gpu.CeilingsFor(gpu.Ceilings{}, "NVIDIA H100 80GB HBM3", meas)
	c.Items = append([]gpu.Ceiling{
		{Name: "L2", Kind: "bandwidth", Value: 1.2e13, Source: "device: ncu lts__t_bytes.sum.peak_sustained x lts__cycles_elapsed.avg.per_second"},
		{Name: "L1", Kind: "bandwidth", Value: 3.3e13, Source: "device: ncu l1tex__t_bytes.sum.peak_sustained x l1tex__cycles_elapsed.avg.per_second"},
	}, c.Items...)
	run := &analysis.Run{GPU: "NVIDIA H100 80GB HBM3", Ceilings: c}
	shape := swigluSweep.Shapes[2]
	k := func(variant, name string, dur, flops, dram, l2, l1 float64, tensor bool) analysis.KernelFact {
		f := analysis.KernelFact{Experiment: "swiglu", Variant: variant, Shape: shape, Name: name, ShortName: name,
			DurationNs: dur, TotalFLOPs: flops, DRAMBytes: dram, L2Bytes: l2, L1Bytes: l1,
			FLOPs: map[string]float64{}, AI: map[string]float64{}, ByteRate: map[string]float64{}, Elementwise: !tensor, FLOPsKnown: true}
		if tensor {
			f.FLOPs["tensor_bf16"] = flops
			f.TensorFLOPs = flops
		} else if flops > 0 {
			f.FLOPs["fp32"] = flops
		}
		f.FLOPRate = flops / (dur / 1e9)
		for lv, b := range map[string]float64{"dram": dram, "l2": l2, "l1": l1} {
			f.ByteRate[lv] = b / (dur / 1e9)
			if flops > 0 {
				f.AI[lv] = flops / b
			}
		}
		return f
	}
	gemm := 2 * 512.0 * 4096 * 7168
	run.Kernels = []analysis.KernelFact{
		k("unfused", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 68000, gemm, 7.6e7, 3.1e8, 1.2e9, true),
		k("unfused", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_2", 69000, gemm, 7.6e7, 3.1e8, 1.2e9, true),
		k("unfused", "silu_mul_kernel", 9000, 3*512*4096, 1.26e7, 1.3e7, 1.3e7, false),
		k("unfused", "copy_kernel", 3000, 0, 4e6, 4e6, 4e6, false),
		k("gemm2-epilogue", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 68000, gemm, 7.6e7, 3.1e8, 1.2e9, true),
		k("gemm2-epilogue", "triton_gemm_silu_mul_epilogue", 74000, gemm, 8.0e7, 3.3e8, 1.3e9, true),
		k("dual-acc", "dual_acc_swiglu_kernel", 121000, 2*gemm, 6.6e7, 5.5e8, 2.2e9, true),
	}
	wall := func(ms float64) analysis.Interval {
		return analysis.Interval{Center: ms, Lo: ms * 0.985, Hi: ms * 1.02, N: 30}
	}
	for i, s := range swigluSweep.Shapes {
		scale := float64(int(1)<<i) / 4
		cell := func(variant, role string, times []float64, ew []bool, ms, dram float64) analysis.CellFact {
			var names []string
			tot := 0.0
			for j := range times {
				times[j] *= scale
				tot += times[j]
				names = append(names, fmt.Sprintf("k%d", j))
			}
			return analysis.CellFact{Experiment: "swiglu", Variant: variant, Role: role, Shape: s, Status: "ok",
				Kernels: len(times), KernelNames: names, KernelTimesNs: times, KernelElementwise: ew, GPUTimeNs: tot,
				Wall: wall(ms * scale), FLOPs: 2 * gemm * scale, DRAMBytesRange: dram * scale, DRAMBytesKernels: dram * scale * 1.1}
		}
		run.Cells = append(run.Cells,
			cell("unfused", "baseline", []float64{68000, 69000, 9000, 3000}, []bool{false, false, true, true}, 0.156, 3.6e8),
			cell("gemm2-epilogue", "candidate", []float64{68000, 74000}, []bool{false, false}, 0.146, 2.2e8),
			cell("dual-acc", "candidate", []float64{121000}, []bool{false}, 0.125, 1.1e8),
		)
		for j, cand := range []string{"gemm2-epilogue", "dual-acc"} {
			sp := []float64{1.12, 1.29 - 0.09*float64(i)}[j]
			run.Comparisons = append(run.Comparisons, analysis.Comparison{Experiment: "swiglu", Shape: s,
				Baseline: "unfused", Candidate: cand, Speedup: analysis.Interval{Center: sp, Lo: sp - 0.04, Hi: sp + 0.05, N: 30},
				P: 1e-6, Significant: sp > 1.02})
		}
	}
	return run
}

// checkGolden compares each plot with its golden file in goldenDir by
// what it draws (golden.Plot).
func checkGolden(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		golden.Plot(t, goldenDir, f)
	}
}

func TestWriteRooflineGolden(t *testing.T) {
	dir := t.TempDir()
	run := synthRun()
	files, ws, err := WriteRoofline(dir, run, "swiglu", swigluSweep.Shapes[2])
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "swiglu-M=512,N=4096,K=7168-roofline.png" || !strings.HasSuffix(files[1], ".svg") {
		t.Errorf("files %v", files)
	}
	if len(ws) != 1 || ws[0].Code != analysis.WarnZeroOnLog || !strings.HasPrefix(ws[0].Msg, "3 kernel points") {
		t.Errorf("warnings %v: want the copy kernel's 3 zero-FLOP points counted", ws)
	}
	checkGolden(t, files)
	// Deterministic: a second rendering is byte-identical.
	dir2 := t.TempDir()
	files2, _, err := WriteRoofline(dir2, run, "swiglu", swigluSweep.Shapes[2])
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		a, _ := os.ReadFile(files[i])
		b, _ := os.ReadFile(files2[i])
		if !bytes.Equal(a, b) {
			t.Errorf("%s is not deterministic", filepath.Base(files[i]))
		}
	}
	if _, _, err := WriteRoofline(dir, run, "swiglu", "M=9,N=9,K=9"); !errors.Is(err, ErrNoData) {
		t.Errorf("empty selection: err = %v", err)
	}
}

func TestWriteSweepGolden(t *testing.T) {
	dir := t.TempDir()
	files, ws, err := WriteSweep(dir, synthRun(), "swiglu", swigluSweep)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 || len(ws) != 0 {
		t.Errorf("files %v warnings %v", files, ws)
	}
	checkGolden(t, files)
}

func TestWriteSweepPartial(t *testing.T) {
	run := synthRun()
	run.Comparisons = nil // e.g. no timing pass: no speedups, kernel times only
	files, ws, err := WriteSweep(t.TempDir(), run, "swiglu", swigluSweep)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || !strings.Contains(files[0], "-kernels.") {
		t.Errorf("files %v", files)
	}
	if len(ws) != 1 || ws[0].Code != analysis.WarnMissing {
		t.Errorf("warnings %v", ws)
	}
	run.Cells = nil
	if _, _, err := WriteSweep(t.TempDir(), run, "swiglu", swigluSweep); !errors.Is(err, ErrNoData) {
		t.Errorf("no data at all: %v", err)
	}
}

// An experiment with two baselines (gla_proj's forward and forward+backward) must not
// title its sweep with whichever baseline came last: each candidate names its own.
func TestSweepPlotTwoBaselines(t *testing.T) {
	run := synthRun()
	one, _, err := SweepPlot(run, "swiglu", swigluSweep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(one.Title.Text, "speedup over unfused along M") {
		t.Errorf("one baseline: title %q", one.Title.Text)
	}
	for _, s := range swigluSweep.Shapes {
		run.Comparisons = append(run.Comparisons, analysis.Comparison{Experiment: "swiglu", Shape: s,
			Baseline: "unfused-fwdbwd", Candidate: "fused-fwdbwd", Speedup: analysis.Interval{Center: 1.2, Lo: 1.1, Hi: 1.3, N: 30},
			P: 1e-6, Significant: true})
	}
	p, _, err := SweepPlot(run, "swiglu", swigluSweep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "speedup over each candidate's baseline along M") {
		t.Errorf("two baselines: title %q", p.Title.Text)
	}
	files, err := savePlot(p, sweepW, sweepH, t.TempDir(), "two")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dual-acc / unfused", "fused-fwdbwd / unfused-fwdbwd"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("legend lacks %q", want)
		}
	}
}
