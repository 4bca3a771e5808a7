package roofline

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/timing"
	"github.com/rooftool/rooftool/spec"
)

const nvtxHeader = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"

func nvtxCell(exp, variant, shape string) string {
	r := func(s string) string { return `""<default domain>:` + s + `:none:none:none:none:none:none""` }
	return "12  " + r(exp) + "  " + r(variant) + "  " + r(shape) + " "
}

// TestPipelineSyntheticExport runs a raw-page ncu CSV in the layout the
// profile runner asks for (NVTX cells, smsp__ counters, peak_sustained
// metrics, base units), a range-pass CSV and timing JSON through ingest,
// analysis and the plots. The numbers are made up; the point is that the
// packages agree on names and units.
func TestPipelineSyntheticExport(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	var sw *spec.Experiment
	for _, e := range exps {
		if e.Name == "swiglu" {
			sw = e
		}
	}
	if sw == nil {
		t.Skip("no swiglu experiment in kernels/")
	}
	shape := sw.Shapes[0]
	base, cand := sw.Baseline(), ""
	for _, v := range sw.Variants {
		if v.Role == spec.RoleCandidate {
			cand = v.Name
			break
		}
	}
	metrics := []string{"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
		"dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second",
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
		"device__attribute_display_name", "device__attribute_l2_cache_size"}
	units := []string{"nsecond", "byte", "byte", "byte", "", "inst", "byte/cycle", "cycle/second", "cycle/second", "", "%", "", "byte"}
	var b strings.Builder
	b.WriteString(`"ID","Process ID","Process Name","Host Name","` + nvtxHeader + `","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC"`)
	for _, m := range metrics {
		b.WriteString(`,"` + m + `"`)
	}
	b.WriteString("\n" + strings.Repeat(`"",`, 12))
	for i, u := range units {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + u + `"`)
	}
	b.WriteString("\n")
	// kernel: variant, name, ns, dram read, write, lts, tensor FLOPs, ffma, dram SOL %
	type k struct {
		variant, name                      string
		ns, rd, wr, lts, tensor, ffma, sol float64
	}
	rows := []k{
		{base, "gemm_one", 70000, 5.0e7, 8.4e6, 3e8, 3.0e10, 0, 25},
		{base, "gemm_two", 70000, 5.0e7, 8.4e6, 3e8, 3.0e10, 0, 25},
		{base, "silu_mul", 9000, 1.7e7, 8.4e6, 2.5e7, 0, 6.3e6, 84},
		{cand, "fused_kernel", 120000, 6.0e7, 8.4e6, 5e8, 6.0e10, 0, 18},
	}
	for i, r := range rows {
		vals := []string{fmt.Sprint(r.ns), fmt.Sprint(r.rd), fmt.Sprint(r.wr), fmt.Sprint(r.lts), fmt.Sprint(r.tensor), fmt.Sprint(r.ffma),
			"2048", "2619000000", "1755000000", "1013760", fmt.Sprint(r.sol), "NVIDIA H100 80GB HBM3", "52428800"}
		fmt.Fprintf(&b, `"%d","7","python3","h","%s","%s","1","7","(128, 1, 1)","(132, 1, 1)","0","9.0","%s"`+"\n",
			i, nvtxCell("swiglu", r.variant, shape), r.name, strings.Join(vals, `","`))
	}
	kpath := filepath.Join(dir, "kernel.csv")
	os.WriteFile(kpath, []byte(b.String()), 0o644)
	rangeCSV := func(v string, rd, wr float64) string {
		p := filepath.Join(dir, v+"-range.csv")
		os.WriteFile(p, []byte(`"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum"
"","","","","","","","","","byte","byte"
"0","7","python3","h","range","1","7","0","9.0","`+fmt.Sprint(rd)+`","`+fmt.Sprint(wr)+`"
`), 0o644)
		return p
	}
	timingJSON := func(v string, ms float64) string {
		var s []float64
		for i := 0; i < 30; i++ {
			s = append(s, ms*(1+0.001*float64(i%7)))
		}
		data, _ := json.Marshal(timing.File{Version: 1, Experiment: "swiglu", Variant: v, Shape: shape,
			Device: "NVIDIA H100 80GB HBM3", Method: "cuda-events", SamplesMs: s, Clocks: map[string]float64{"sm_mhz": 1755}})
		p := filepath.Join(dir, v+"-timing.json")
		os.WriteFile(p, data, 0o644)
		return p
	}
	inputs := []ingest.Input{
		{Path: kpath},
		{Path: rangeCSV(base, 1.1e8, 1.7e7), Options: ingest.Options{Experiment: "swiglu", Variant: base, Shape: shape, Pass: ingest.PassRange}},
		{Path: rangeCSV(cand, 6.0e7, 8.4e6), Options: ingest.Options{Experiment: "swiglu", Variant: cand, Shape: shape, Pass: ingest.PassRange}},
		{Path: timingJSON(base, 0.160)},
		{Path: timingJSON(cand, 0.130)},
	}
	tb, err := detect.Files(inputs, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	c := gpu.CeilingsFor(analysis.DeviceCeilings(tb), "", nil)
	dram, ok := c.Get(gpu.CeilDRAM, "device:")
	if !ok || math.Abs(dram.Value-2048*2.619e9) > 1 {
		t.Errorf("device DRAM roof %+v, want 2048 B/cycle x 2.619 GHz", dram)
	}
	if bf, ok := c.Get("tensor bf16", "device:"); !ok || math.Abs(bf.Value-1013760*1.755e9/2) > 1e3 {
		t.Errorf("device bf16 roof %+v", bf)
	}
	if fp16, ok := c.Get("tensor fp16", "device:"); !ok || fp16.Value != 1013760*1.755e9/2 {
		t.Errorf("fp16 roof %+v: want the device's bf16 rate (equal on the datasheet)", fp16)
	}
	if c.L2Bytes != 50<<20 || c.GPU != "NVIDIA H100 80GB HBM3" {
		t.Errorf("GPU %q L2 %d", c.GPU, c.L2Bytes)
	}
	run, err := analysis.Analyze(tb, exps, analysis.Options{Ceilings: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Kernels) != 4 {
		t.Fatalf("%d kernel facts", len(run.Kernels))
	}
	g := run.Kernels[0]
	if g.Experiment != "swiglu" || g.Variant != base || g.Shape != shape || g.FLOPs["tensor_bf16"] != 3e10 {
		t.Errorf("kernel 0: %+v", g)
	}
	// The computed % of the device DRAM roof against the SOL the row states (25%).
	wantPct := 100 * (5.0e7 + 8.4e6) / 70e-6 / (2048 * 2.619e9)
	if got := g.PctOfRoof[gpu.CeilDRAM]; math.Abs(got-wantPct) > 1e-9 {
		t.Errorf("%% DRAM %v, want %v", got, wantPct)
	}
	if s := run.Kernels[2]; s.FLOPs["fp32"] != 2*6.3e6 || !s.Elementwise || s.Class != analysis.ClassMemory {
		t.Errorf("silu_mul: FLOPs %v elementwise %v class %s", s.FLOPs, s.Elementwise, s.Class)
	}
	var cmp *analysis.Comparison
	for i := range run.Comparisons {
		if run.Comparisons[i].Candidate == cand && run.Comparisons[i].Shape == shape {
			cmp = &run.Comparisons[i]
		}
	}
	if cmp == nil {
		t.Fatalf("no comparison %s vs %s: %+v", cand, base, run.Comparisons)
	}
	if math.Abs(cmp.DRAMRatio-(6.84e7/1.27e8)) > 1e-9 || cmp.KernelDelta != -2 || !cmp.Significant || cmp.Speedup.Center < 1.2 {
		t.Errorf("comparison %+v", *cmp)
	}
	warned := false
	for _, w := range run.Warnings {
		warned = warned || w.Code == analysis.WarnClocks
	}
	if warned {
		t.Errorf("ncu at 1755 MHz and timing at 1755 MHz: clocks warning %v", run.Warnings)
	}
	plots := filepath.Join(dir, "plots")
	if keep := os.Getenv("ROOFTOOL_KEEP_PLOTS"); keep != "" {
		plots = keep // to look at the plot by eye
	}
	files, ws, err := WriteRoofline(plots, run, "swiglu", shape)
	if err != nil || len(files) != 2 {
		t.Fatalf("WriteRoofline: %v %v", files, err)
	}
	for _, w := range ws {
		if w.Code != analysis.WarnZeroOnLog {
			t.Errorf("unexpected plot warning %v", w)
		}
	}
}
