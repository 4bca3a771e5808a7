package ingest

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
)

const realdata = "../testdata/realdata/"

// ingestNCU parses one ncu export with a checked allocator; the caller's
// t.Cleanup asserts that nothing leaked.
func ingestNCU(t *testing.T, path string, opts Options) *Tables {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	tb, err := File(path, opts, mem)
	if err != nil {
		t.Fatalf("ingest %s: %v", path, err)
	}
	t.Cleanup(tb.Release)
	return tb
}

// ncuString parses CSV text held in memory.
func ncuString(t *testing.T, name, text string, opts Options) (*Tables, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	b := NewBuilder(mem)
	defer b.Release()
	if err := parseNCU(b, name, strings.NewReader(text), opts); err != nil {
		return nil, err
	}
	tb := b.Finish()
	t.Cleanup(tb.Release)
	return tb, nil
}

// metricOf returns the metric of kernel id (and section, when not "*").
func metricOf(t *testing.T, ms []Metric, kid int64, section, name string) Metric {
	t.Helper()
	for _, m := range ms {
		if m.KernelID == kid && m.Name == name && (section == "*" || m.Section == section) {
			return m
		}
	}
	t.Fatalf("no metric %q (section %q) for kernel %d", name, section, kid)
	return Metric{}
}

func sumMetric(ms []Metric, name string) (sum float64, n int) {
	for _, m := range ms {
		if m.Name == name && m.Valid {
			sum += m.Value
			n++
		}
	}
	return
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The expected figures below were read off the files by hand with Python's
// csv module (float(v.replace(",", "")) per cell, summed per metric name),
// independently of this parser; the commands are quoted per file.

func TestNCURealESMMLongMetrics(t *testing.T) {
	// ESMM-Research/metrics.csv: ncu --metrics long export, 9 kernels x 5
	// metrics, values with thousands separators, units byte/nsecond/inst.
	// python: rows=list(csv.reader(open(f))); len(set(r[0] for r in rows[1:])) -> 9;
	// sum(dram__bytes.sum) -> 184823296; sum(gpu__time_duration.sum) -> 14690304;
	// kernel 3: Block Size (512, 1, 1), Grid Size (16, 16, 1), 430,592 ns.
	tb := ingestNCU(t, realdata+"ESMM-Research/metrics.csv", Options{})
	ks := tb.Kernels()
	if len(ks) != 9 {
		t.Fatalf("kernels = %d, want 9", len(ks))
	}
	wantShort := []string{"basic", "gmem_coalesce", "smem_blocking", "one_blocktiling", "two_blocktiling",
		"vectorized_blocktiling", "warptiling", "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn"}
	for i, k := range ks {
		if k.ShortName != wantShort[i] {
			t.Errorf("kernel %d short name %q, want %q", i, k.ShortName, wantShort[i])
		}
		if k.CorrelationID != int64(i) || k.Source != SourceNCU || k.Pass != PassKernel || k.File != "metrics.csv" {
			t.Errorf("kernel %d: corr %d source %q pass %q file %q", i, k.CorrelationID, k.Source, k.Pass, k.File)
		}
		if k.PID != 17333 || k.Context != 1 || k.Stream != 7 || k.Device != 0 {
			t.Errorf("kernel %d: pid %d ctx %d stream %d dev %d", i, k.PID, k.Context, k.Stream, k.Device)
		}
	}
	k3 := ks[3]
	if k3.Name != "void one_blocktiling<(int)64, (int)64, (int)8, (int)8>(int, int, int, const float *, const float *, float *)" {
		t.Errorf("kernel 3 name %q", k3.Name)
	}
	if k3.BlockX != 512 || k3.BlockY != 1 || k3.BlockZ != 1 || k3.GridX != 16 || k3.GridY != 16 || k3.GridZ != 1 {
		t.Errorf("kernel 3 block (%d,%d,%d) grid (%d,%d,%d)", k3.BlockX, k3.BlockY, k3.BlockZ, k3.GridX, k3.GridY, k3.GridZ)
	}
	if k3.DurationNs != 430592 {
		t.Errorf("kernel 3 duration %d ns, want 430592", k3.DurationNs)
	}
	ms := tb.Metrics()
	if len(ms) != 45 {
		t.Errorf("metrics = %d, want 45", len(ms))
	}
	if s, n := sumMetric(ms, "dram__bytes.sum"); n != 9 || s != 184823296 {
		t.Errorf("sum dram__bytes.sum = %v over %d, want 184823296 over 9", s, n)
	}
	if s, _ := sumMetric(ms, "gpu__time_duration.sum"); s != 14690304 {
		t.Errorf("sum gpu__time_duration.sum = %v ns, want 14690304", s)
	}
	var durs int64
	for _, k := range ks {
		durs += k.DurationNs
	}
	if durs != 14690304 {
		t.Errorf("sum of kernel durations %d, want 14690304", durs)
	}
	m := metricOf(t, ms, 7, "Command line profiler metrics", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum")
	if m.Unit != "inst" || m.Value != 1094713344 {
		t.Errorf("kernel 7 ffma = %v %s, want 1094713344 inst", m.Value, m.Unit)
	}
	gs := tb.GPUs()
	if len(gs) != 1 || gs[0].CCMajor != 8 || gs[0].CCMinor != 6 || gs[0].Device != 0 {
		t.Errorf("gpus = %+v, want one device 0 with CC 8.6", gs)
	}
}

func TestNCURealB200Raw(t *testing.T) {
	// Roofline-Analysis/torch_sdpa_flash_*.csv: --page raw --print-units base
	// on a B200; 2 ==PROF== lines, header (475 columns) on line 3, units row,
	// 16 kernels. python: h=rows[2]; data=rows[4:]; 475-11 identity columns =
	// 464 metric columns, 7408 non-empty cells (launch__kernel_name is empty
	// for all 16); sum(gpu__time_duration.sum) = 3262944 ns; registers 36/222;
	// sum(launch__shared_mem_per_block_dynamic) = 655360;
	// sum(profiler__replayer_bytes_mem_accessible.sum) = 190862513248.
	tb := ingestNCU(t, realdata+"Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", Options{})
	ks := tb.Kernels()
	if len(ks) != 16 {
		t.Fatalf("kernels = %d, want 16", len(ks))
	}
	var durs int64
	for i, k := range ks {
		durs += k.DurationNs
		want := "flash_fwd_splitkv_combine_kernel"
		if i%2 == 1 {
			want = "flash_fwd_splitkv_kernel"
		}
		if k.ShortName != want {
			t.Errorf("kernel %d short %q, want %q", i, k.ShortName, want)
		}
	}
	if durs != 3262944 {
		t.Errorf("sum duration %d ns, want 3262944", durs)
	}
	k0, k1 := ks[0], ks[1]
	if k0.DurationNs != 11904 || k1.DurationNs != 395680 {
		t.Errorf("durations %d, %d; want 11904, 395680", k0.DurationNs, k1.DurationNs)
	}
	if k0.Registers != 36 || k1.Registers != 222 || k0.StaticSharedBytes != 80 || k1.DynSharedBytes != 81920 {
		t.Errorf("regs %d/%d static %d dyn %d", k0.Registers, k1.Registers, k0.StaticSharedBytes, k1.DynSharedBytes)
	}
	if k1.GridX != 1 || k1.GridY != 4 || k1.GridZ != 64 || k1.BlockX != 128 {
		t.Errorf("kernel 1 grid (%d,%d,%d) block %d", k1.GridX, k1.GridY, k1.GridZ, k1.BlockX)
	}
	ms := tb.Metrics()
	if len(ms) != 7408 {
		t.Errorf("metrics = %d, want 7408", len(ms))
	}
	if s, n := sumMetric(ms, "launch__shared_mem_per_block_dynamic"); n != 16 || s != 655360 {
		t.Errorf("sum dynamic smem = %v over %d", s, n)
	}
	if s, _ := sumMetric(ms, "profiler__replayer_bytes_mem_accessible.sum"); s != 190862513248 {
		t.Errorf("sum replayer bytes = %v", s)
	}
	m := metricOf(t, ms, 1, "", "sm__inst_executed_pipe_tensor_subpipe_hmma.avg.pct_of_peak_sustained_active")
	if m.Unit != "%" || m.Value != 65.93 {
		t.Errorf("hmma pct = %v %q", m.Value, m.Unit)
	}
	m = metricOf(t, ms, 0, "", "launch__execution_model")
	if m.Valid || m.Text != "SIMT" {
		t.Errorf("launch__execution_model = %+v, want text SIMT", m)
	}
	m = metricOf(t, ms, 0, "", "launch__shared_mem_per_block_static")
	if m.Unit != "byte/block" || m.Value != 80 {
		t.Errorf("static smem metric = %+v", m)
	}
	want := []GPU{{Source: SourceNCU, File: "torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", Device: 0,
		Name: "NVIDIA B200", CCMajor: 10, CCMinor: 0, SMCount: 148, MemoryBytes: 191503138816,
		L2Bytes: 132644864, SMClockHz: 1.965e9, MemClockHz: 3.996e9, Bus: "0000:18:00"}}
	if d := cmp.Diff(want, tb.GPUs()); d != "" {
		t.Errorf("gpus (-want +got):\n%s", d)
	}
	var prof []string
	for _, m := range tb.Metas() {
		if m.Key == "PROF" {
			prof = append(prof, m.Value)
		}
	}
	if d := cmp.Diff([]string{"Connected to process 234883 (/usr/bin/python3.12)", "Disconnected from process 234883"}, prof); d != "" {
		t.Errorf("PROF meta rows (-want +got):\n%s", d)
	}
}

func TestNCURealDetailsPage(t *testing.T) {
	// llm-perf-opt/kernel_0001.ncu.details.csv: --page details, one kernel,
	// 48 rows: 44 metric rows of 16 fields (ragged: header has 20) and 4 rule
	// rows of 20. python: sum(1 for r in rows[1:] if r[12]) -> 44; rules with
	// r[15] set -> 4. Values: dram__bytes_read.sum 2.33 Mbyte = 2330000 byte,
	// Duration 6.75 us = 6750 ns, Memory Throughput 345.14 Gbyte/s, SM
	// Frequency 1.99 Ghz, IssueSlotUtilization estimated speedup 80.34 (local).
	tb := ingestNCU(t, realdata+"llm-perf-opt/kernel_0001.ncu.details.csv", Options{})
	ks := tb.Kernels()
	if len(ks) != 1 {
		t.Fatalf("kernels = %d, want 1", len(ks))
	}
	k := ks[0]
	if k.ShortName != "kernel" || !strings.HasPrefix(k.Name, "enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16") {
		t.Errorf("name %q short %q", k.Name, k.ShortName)
	}
	if k.DurationNs != 6750 || k.BlockX != 32 || k.BlockY != 4 || k.GridX != 224 || k.PID != 1740670 {
		t.Errorf("kernel = %+v", k)
	}
	ms := tb.Metrics()
	if len(ms) != 48 {
		t.Errorf("metrics = %d, want 48 (44 metrics + 4 rules)", len(ms))
	}
	check := func(section, name, unit string, v float64) {
		t.Helper()
		m := metricOf(t, ms, 0, section, name)
		if !m.Valid || m.Unit != unit || !near(m.Value, v) {
			t.Errorf("%s/%s = %v %q (valid %v), want %v %q", section, name, m.Value, m.Unit, m.Valid, v, unit)
		}
	}
	check("Command line profiler metrics", "dram__bytes_read.sum", "byte", 2.33e6)
	check("Command line profiler metrics", "gpu__time_duration.sum", "ns", 6750)
	check("GPU Speed Of Light Throughput", "Duration", "ns", 6750)
	check("GPU Speed Of Light Throughput", "SM Frequency", "Hz", 1.99e9)
	check("GPU Speed Of Light Throughput", "Elapsed Cycles", "cycle", 13485)
	check("Memory Workload Analysis", "Memory Throughput", "byte/s", 345.14e9)
	check("GPU Speed Of Light Throughput", "Memory Throughput", "%", 19.66)
	na := metricOf(t, ms, 0, "*", "flop_count_hp.sum")
	if na.Valid || na.Text != "n/a" {
		t.Errorf("flop_count_hp.sum = %+v, want null n/a", na)
	}
	r := metricOf(t, ms, 0, "SchedulerStats", "rule:IssueSlotUtilization")
	if !r.Valid || r.Value != 80.34 || r.Unit != "%" || !strings.HasPrefix(r.Text, "OPT (local): Every scheduler") {
		t.Errorf("rule row = %+v", r)
	}
	r = metricOf(t, ms, 0, "SpeedOfLight", "rule:SOLBottleneck")
	if r.Valid || !strings.HasPrefix(r.Text, "OPT: This kernel grid is too small") {
		t.Errorf("rule without speedup = %+v", r)
	}
	if gs := tb.GPUs(); len(gs) != 1 || gs[0].CCMajor != 12 || gs[0].CCMinor != 0 {
		t.Errorf("gpus = %+v", gs)
	}
}

func TestNCUReal2020Layout(t *testing.T) {
	// gene-paper-artifacts-pop2020: ncu 2020 long layout with "Kernel Time"
	// (a launch timestamp such as "2020-Aug-27 18:57:25", not a duration)
	// and no Block/Grid/Device/CC columns. 24 rows, 8 kernels, 3 metrics
	// each; python: sum(dram__bytes.sum) -> 6331344288; units byte, cycle,
	// cycle/second. No duration metric: duration_ns stays 0 (unknown).
	tb := ingestNCU(t, realdata+"gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv", Options{})
	ks := tb.Kernels()
	if len(ks) != 8 {
		t.Fatalf("kernels = %d, want 8", len(ks))
	}
	for i, k := range ks {
		want := "ij_deriv_kernel"
		if i%2 == 1 {
			want = "add_i_col_times_ij_block_kernel"
		}
		if k.ShortName != want || k.DurationNs != 0 || k.GridX != 0 || k.Stream != 7 {
			t.Errorf("kernel %d = %q dur %d grid %d stream %d", i, k.ShortName, k.DurationNs, k.GridX, k.Stream)
		}
	}
	ms := tb.Metrics()
	if len(ms) != 32 {
		t.Errorf("metrics = %d, want 24 + 8 Kernel Time rows", len(ms))
	}
	if s, n := sumMetric(ms, "dram__bytes.sum"); n != 8 || s != 6331344288 {
		t.Errorf("sum dram__bytes.sum = %v over %d", s, n)
	}
	m := metricOf(t, ms, 0, "*", "sm__cycles_elapsed.avg.per_second")
	if m.Unit != "Hz" || !near(m.Value, 1309471763.30) {
		t.Errorf("clock = %+v", m)
	}
	m = metricOf(t, ms, 0, "*", "sm__cycles_elapsed.avg")
	if m.Unit != "cycle" || !near(m.Value, 1209826.20) {
		t.Errorf("cycles = %+v", m)
	}
	m = metricOf(t, ms, 7, "*", "Kernel Time")
	if m.Valid || m.Text != "2020-Aug-27 18:57:28" {
		t.Errorf("Kernel Time = %+v", m)
	}
	if gs := tb.GPUs(); len(gs) != 0 {
		t.Errorf("gpus = %+v, want none (no CC, no device attributes)", gs)
	}
}

func TestNCURealErrorLog(t *testing.T) {
	// Roofline-Analysis/flashinfer_*: ncu's log of a failed run, no table.
	path := realdata + "Roofline-Analysis/flashinfer_paged_decode__gqa_bf16_b128_ctx8k_p64.ncu.csv"
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, err := File(path, Options{}, mem)
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want *InputError", err)
	}
	if ie.Line != 3 || !strings.Contains(err.Error(), "==ERROR== The application returned an error code (1).") {
		t.Errorf("err = %v (line %d), want line 3 quoting the ==ERROR== line", err, ie.Line)
	}
}

// rawHeader builds a small raw-page CSV.
const nvtxCol = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"

func TestNCUNVTXAndRanges(t *testing.T) {
	csv := `==PROF== Connected to process 7 (/usr/bin/python3)
==WARNING== Backing up device memory in system memory. Kernel replay might be slow.
"ID","Process ID","Process Name","Host Name","` + nvtxCol + `","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","gpu__time_duration.sum","launch__registers_per_thread"
"","","","","","","","","","","","","Mbyte","usecond","register/thread"
"0","7","python3","h","12  ""<default domain>:swiglu:none:none:none:none:none:none""  ""<default domain>:fused:none:none:none:none:none:none""  ""<default domain>:M=4096,N=2048:none:none:none:none:none:none"" ","void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char *, 1>>(int, T2, T3)","1","7","(128, 1, 1)","(1,024, 1, 1)","0","9.0","1.5","2.25","32"
"1","7","python3","h","12  ""<default domain>:outer:none:none:none:none:none:none""  ""<default domain>:mod:layer.0:none:none:none:none:none:none"" ","k2(int)","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","176,064","0.5","n/a"
"2","7","python3","h","","range","1","7","","","0","9.0","3","4","n/a"
==PROF== Disconnected from process 7
`
	_, err := ncuString(t, "x.csv", csv, Options{})
	if err == nil {
		t.Fatal("a grid of (1,024, 1, 1) parsed; want an error: ncu prints dimensions without separators")
	}
	csv = strings.Replace(csv, "(1,024, 1, 1)", "(1024, 1, 1)", 1)
	tb, err := ncuString(t, "x.csv", csv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks := tb.Kernels()
	if len(ks) != 3 {
		t.Fatalf("kernels = %d", len(ks))
	}
	k := ks[0]
	if k.RangePath != "swiglu/fused/M=4096,N=2048" || k.Range != "M=4096,N=2048" ||
		k.Experiment != "swiglu" || k.Variant != "fused" || k.Shape != "M=4096,N=2048" {
		t.Errorf("kernel 0 ranges: %q %q %q/%q/%q", k.RangePath, k.Range, k.Experiment, k.Variant, k.Shape)
	}
	if k.ShortName != "vectorized_elementwise_kernel" || k.GridX != 1024 || k.Registers != 32 || k.DurationNs != 2250 || k.Pass != PassKernel {
		t.Errorf("kernel 0 = %+v", k)
	}
	// A range name holding ':' survives; two components: no cell.
	if k := ks[1]; k.RangePath != "outer/mod:layer.0" || k.Experiment != "" || k.Shape != "" {
		t.Errorf("kernel 1 ranges %q exp %q shape %q", k.RangePath, k.Experiment, k.Shape)
	}
	if k := ks[2]; k.Pass != PassRange || k.Range != "" || k.GridX != 0 {
		t.Errorf("range row = %+v, want pass range", k)
	}
	ms := tb.Metrics()
	if m := metricOf(t, ms, 1, "", "dram__bytes_read.sum"); m.Unit != "byte" || m.Value != 176064e6 {
		t.Errorf("176,064 Mbyte = %+v", m)
	}
	if m := metricOf(t, ms, 0, "", "dram__bytes_read.sum"); m.Value != 1.5e6 {
		t.Errorf("1.5 Mbyte = %+v", m)
	}
	if m := metricOf(t, ms, 1, "", "launch__registers_per_thread"); m.Valid || m.Text != "n/a" {
		t.Errorf("n/a registers = %+v", m)
	}
	var kinds []string
	for _, m := range tb.Metas() {
		if m.Key == "PROF" || m.Key == "WARNING" {
			kinds = append(kinds, m.Key+": "+m.Value)
		}
	}
	want := []string{"PROF: Connected to process 7 (/usr/bin/python3)",
		"WARNING: Backing up device memory in system memory. Kernel replay might be slow.",
		"PROF: Disconnected from process 7"}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("meta (-want +got):\n%s", d)
	}

	// Options override what the NVTX path says, and name the pass.
	tb, err = ncuString(t, "x.csv", csv, Options{Experiment: "e", Variant: "v", Shape: "s=1", Pass: PassRange})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range tb.Kernels() {
		if k.Experiment != "e" || k.Variant != "v" || k.Shape != "s=1" || k.Pass != PassRange {
			t.Errorf("with options: %q/%q/%q pass %q", k.Experiment, k.Variant, k.Shape, k.Pass)
		}
	}
}

func TestNCURangeReplayByName(t *testing.T) {
	// ncu --replay-mode range prints the range (or "range") as Kernel Name.
	csv := `"ID","Process ID","` + nvtxCol + `","Kernel Name","gpu__time_duration.sum"
"","","","","ns"
"0","1","1  ""<default domain>:e:none:none:none:none:none:none""  ""<default domain>:v:none:none:none:none:none:none""  ""<default domain>:B=2:none:none:none:none:none:none""","B=2","434000"
`
	tb, err := ncuString(t, "r.csv", csv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := tb.Kernels()[0]
	if k.Pass != PassRange || k.Shape != "B=2" || k.DurationNs != 434000 {
		t.Errorf("kernel = %+v", k)
	}
}

func TestNCUBadInput(t *testing.T) {
	hdr := `"ID","Process ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum","dram__bytes.sum"` + "\n"
	units := `"","","","","","ns","byte"` + "\n"
	good := `"0","1","k(int)","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n"
	long := `"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n"
	cases := []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty", "", 0, "empty file"},
		{"only prof", "==PROF== Connected to process 1\n", 1, "no CSV table"},
		{"no ID", `"Kernel Name","x"` + "\n" + `"k","1"` + "\n", 1, `no "ID" column`},
		{"no kernel name", "==PROF== x\n" + `"ID","x"` + "\n", 2, `no "Kernel Name" column`},
		{"truncated row", hdr + units + good + `"1","1","k(int)","(1, 1, 1)","(1, 1, 1)","10"` + "\n", 4, "truncated raw-page row: 6 fields, header has 7"},
		{"overlong row", hdr + units + `"1","1","k(int)","(1, 1, 1)","(1, 1, 1)","10","1","2"` + "\n", 3, "overlong raw-page row"},
		{"units mismatch", hdr + `"","","","","","ns"` + "\n" + good, 2, "units row has 6 fields, header has 7"},
		{"text in byte column", hdr + units + good + `"1","1","k","(1, 1, 1)","(1, 1, 1)","10","lots"` + "\n", 4, `column "dram__bytes.sum" (unit "byte"): "lots" is not a number`},
		{"bad id", hdr + units + `"x","1","k","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 3, `"x" is not an integer kernel id`},
		{"empty id", hdr + units + good + `"","1","k","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 4, `empty "ID"`},
		{"bad grid", hdr + units + `"0","1","k","(1, 1)","(1, 1, 1)","10","20"` + "\n", 3, `"(1, 1)" is not a dimension`},
		{"bad pid", hdr + units + `"0","p","k","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 3, `column "Process ID": "p" is not an integer`},
		{"header only", hdr + units, 2, "no kernel rows"},
		{"bad quote", hdr + units + `"0","1","k"x,"(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 3, "malformed CSV"},
		{"long truncated", long + `"0","k","s","m"` + "\n", 2, "truncated row: 4 fields"},
		{"long overlong", long + `"0","k","s","m","byte","1","x"` + "\n", 2, "row has 7 fields, header has 6"},
		{"long text in byte metric", long + `"0","k","s","m","byte","1"` + "\n" + `"0","k","s","m2","Kbyte","12abc"` + "\n", 3, `metric "m2" (unit "Kbyte"): "12abc" is not a number`},
		{"long no rows", "==PROF== a\n" + long, 2, "no metric rows"},
		{"name without value", `"ID","Kernel Name","Metric Name"` + "\n", 1, `"Metric Name" without "Metric Value"`},
		{"bad rule speedup", long[:len(long)-1] + `,"Rule Name","Estimated Speedup"` + "\n" + `"0","k","s","","","","R","fast"` + "\n", 2, `rule "R": "fast"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ncuString(t, "bad.csv", c.text, Options{})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *InputError", err)
			}
			if ie.File != "bad.csv" || ie.Line != c.line || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %q (line %d), want line %d containing %q", err, ie.Line, c.line, c.want)
			}
		})
	}
}

func TestNCUKernelShortName(t *testing.T) {
	// Names from the real files under testdata/realdata and from PyTorch,
	// CUTLASS and Triton kernels as ncu/nsys print them.
	cases := map[string]string{
		"basic(int, int, int, const float *, const float *, float *)":                                                                                "basic",
		"void gmem_coalesce<(int)32>(int, int, int, const float *, const float *, float *)":                                                          "gmem_coalesce",
		"void warptiling<(int)128, (int)128, (int)16, (int)64, (int)64, (int)4, (int)8, (int)4, (int)128>(int, int, int, float *, float *, float *)": "warptiling",
		"ampere_sgemm_128x64_nn": "ampere_sgemm_128x64_nn",
		"enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, 0, 1, 1, 0, 7, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>>(T13)": "kernel",
		"void flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, 0, 0, bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, bfloat16_t>>, 4, 2, 1>(Flash_fwd_params)":                                                                                                                                  "flash_fwd_splitkv_combine_kernel",
		"ij_deriv_kernel(int, int, int, thrust::complex<double> const*, int, double const*, thrust::complex<double> const*, thrust::complex<double>*)":                                                                                                                                                                    "ij_deriv_kernel",
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char *, 1>>(int, T2, T3)":                                                                                                                                                                                    "vectorized_elementwise_kernel",
		"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 12)]::operator ()() const::[lambda(float) (instance 1)], at::detail::Array<char *, 2>>(int, T1, T2, T3, T4, T5)":                   "unrolled_elementwise_kernel",
		"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(T2 *, const T1 *, int, int, int, const bool *, int, bool)":                                                                                                                                                               "softmax_warp_forward",
		"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x10_tn_align8>(T1::Params)":                                                                                                                                                                                                          "Kernel2",
		"cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<int>>(T1::Params)":                                                                                                                                                                                                                                   "device_kernel",
		"triton_poi_fused_add_mul_sigmoid_silu_0": "triton_poi_fused_add_mul_sigmoid_silu_0",
		"range":                    "range",
		"  spaced_kernel()  ":      "spaced_kernel",
		"Functor::operator()(int)": "operator()",
		"broken<(int":              "broken<(int",
	}
	for in, want := range cases {
		if got := kernelShortName(in); got != want {
			t.Errorf("kernelShortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNCUNVTXStack(t *testing.T) {
	cases := []struct {
		v        string
		trailing int
		want     []string
	}{
		{`183740  "<default domain>:64x32x4x3 causal=False:none:none:none:none:none:none"`, 6, []string{"64x32x4x3 causal=False"}},
		{`1  "<default domain>:a:none:none:none:none:none:none"  "<default domain>:gemma_module:model.layers.0.self_attn:none:none:none:none:none:none" `, 6, []string{"a", "gemma_module:model.layers.0.self_attn"}},
		{`7  "<default domain>:r:none:none:none:none:none"`, 5, []string{"r"}},
		{`7  "mydomain:r:none:none:none:none:none:none"`, 6, []string{"r"}},
		{``, 6, nil},
		{`7  "unterminated`, 6, nil},
	}
	for _, c := range cases {
		if got := ncuNVTXStack(c.v, c.trailing); !cmp.Equal(got, c.want) {
			t.Errorf("ncuNVTXStack(%q) = %q, want %q", c.v, got, c.want)
		}
	}
	if n := ncuNVTXTrailing(nvtxCol); n != 6 {
		t.Errorf("trailing fields of %q = %d, want 6", nvtxCol, n)
	}
}

// Rows appended through the batched path and through AddMetric share the
// dictionaries, survive a Parquet round trip and leak nothing.
func TestNCUTablesRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := NewBuilder(mem)
	defer b.Release()
	// Strings the batch path will meet again, put there by the plain path.
	b.AddMetric(Metric{KernelID: 99, Name: "gpu__time_duration.sum", Unit: "ns", Value: 1, Valid: true, Text: "SIMT"})
	for _, f := range []string{"Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", "llm-perf-opt/kernel_0001.ncu.details.csv"} {
		if err := parseNCUFile(b, Input{Path: realdata + f}); err != nil {
			t.Fatal(err)
		}
	}
	tb := b.Finish()
	defer tb.Release()
	ms := tb.Metrics()
	if ms[0].Name != "gpu__time_duration.sum" || ms[0].Text != "SIMT" || ms[0].KernelID != 99 {
		t.Errorf("first row = %+v", ms[0])
	}
	if m := metricOf(t, ms, 1, "", "gpu__time_duration.sum"); m.Value != 395680 || m.Unit != "ns" {
		t.Errorf("kernel 1 duration metric = %+v", m)
	}
	if m := metricOf(t, ms, 0, "", "launch__execution_model"); m.Text != "SIMT" {
		t.Errorf("text through the batch path = %+v", m)
	}
	if m := metricOf(t, ms, 16, "GPU Speed Of Light Throughput", "Duration"); m.Value != 6750 {
		t.Errorf("details kernel after raw kernels = %+v", m)
	}
	dir := t.TempDir()
	if err := tb.Write(dir, FormatParquet); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(dir, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if d := cmp.Diff(tb.Kernels(), got.Kernels()); d != "" {
		t.Errorf("kernels differ after Parquet:\n%s", d)
	}
	if d := cmp.Diff(ms, got.Metrics()); d != "" {
		t.Errorf("metrics differ after Parquet:\n%s", d)
	}
}

func TestNCURep(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.ncu-rep")
	if err := os.WriteFile(rep, []byte("binary report"), 0o644); err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	// No ncu at the given path: a clear InputError that says how to export.
	_, err := File(rep, Options{NCU: filepath.Join(dir, "no-such-ncu")}, mem)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--csv --page raw --print-units base") {
		t.Fatalf("err = %v, want an InputError explaining the manual export", err)
	}
	if runtime.GOOS == "windows" {
		t.Skip("fake ncu is a shell script")
	}
	// A stand-in ncu that checks its arguments and prints a raw page.
	csvPath, _ := filepath.Abs(realdata + "ESMM-Research/metrics.csv")
	script := "#!/bin/sh\n" +
		`[ "$# $1 $3 $4 $5 $6 $7" = "7 -i --csv --page raw --print-units base" ] || { echo "bad args: $*" >&2; exit 3; }` + "\n" +
		`[ "$2" = "` + rep + `" ] || { echo "bad file $2" >&2; exit 4; }` + "\n" +
		"echo '==PROF== imported'\ncat '" + csvPath + "'\n"
	fake := filepath.Join(dir, "ncu")
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tb, err := File(rep, Options{NCU: fake}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if n := tb.NumRows(TableKernels); n != 9 {
		t.Errorf("kernels via fake ncu = %d, want 9", n)
	}
	if ks := tb.Kernels(); ks[0].File != "r.ncu-rep" {
		t.Errorf("file = %q, want the report's name", ks[0].File)
	}
	// ncu failing: its stderr is quoted.
	failing := filepath.Join(dir, "ncu-fail")
	os.WriteFile(failing, []byte("#!/bin/sh\necho 'report version too new' >&2\nexit 1\n"), 0o755)
	_, err = File(rep, Options{NCU: failing}, mem)
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "report version too new") {
		t.Errorf("err = %v, want ncu's stderr quoted", err)
	}
}

// Lines longer than the reader's buffer, a quoted field spanning lines, a
// ==PROF== line inside the table, CRLF line ends and unquoted fields.
func TestNCUReaderEdges(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // a 200 KiB kernel name
	csv := "==PROF== Connected to process 1\r\n" +
		`"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description"` + "\r\n" +
		`"0","void ` + long + `<int>(int)","S","m","byte","1,024"` + "\r\n" +
		"==PROF== a message between rows\r\n" +
		`"0","void ` + long + `<int>(int)","S","","","","R","OPT","first line` + "\r\n" + `second ""quoted"" line"` + "\r\n" +
		`1,k2,S,m,Kbyte,2` + "\r\n" +
		`"1","k2","S","bad","byte","x"` + "\r\n"
	_, err := ncuString(t, "edge.csv", csv, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 8 || !strings.Contains(err.Error(), `metric "bad"`) {
		t.Fatalf("err = %v, want the bad value on line 8 (lines counted across the split field)", err)
	}
	tb, err := ncuString(t, "edge.csv", strings.TrimSuffix(csv, `"1","k2","S","bad","byte","x"`+"\r\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks := tb.Kernels()
	if len(ks) != 2 || ks[0].ShortName != long || ks[1].Name != "k2" {
		t.Fatalf("kernels: %d, short name of %d bytes, second %q", len(ks), len(ks[0].ShortName), ks[1].Name)
	}
	ms := tb.Metrics()
	if m := metricOf(t, ms, 0, "S", "m"); m.Value != 1024 {
		t.Errorf("m = %+v", m)
	}
	if m := metricOf(t, ms, 0, "S", "rule:R"); m.Text != "OPT: first line\nsecond \"quoted\" line" {
		t.Errorf("rule text = %q", m.Text)
	}
	if m := metricOf(t, ms, 1, "S", "m"); m.Value != 2000 || m.Unit != "byte" {
		t.Errorf("unquoted row = %+v", m)
	}
	var notes []string
	for _, m := range tb.Metas() {
		if m.Key == "PROF" {
			notes = append(notes, m.Value)
		}
	}
	if d := cmp.Diff([]string{"Connected to process 1", "a message between rows"}, notes); d != "" {
		t.Errorf("PROF notes (-want +got):\n%s", d)
	}
}

// Application output before the table is kept as meta rows, up to a cap.
func TestNCUApplicationOutput(t *testing.T) {
	var b strings.Builder
	b.WriteString("==PROF== Connected to process 9\n")
	for i := 0; i < maxOutputNotes+5; i++ {
		b.WriteString("epoch 1, loss 0.5\n")
	}
	b.WriteString(`"ID","Kernel Name","m"` + "\n" + `"","",""` + "\n" + `"0","k","1"` + "\n")
	tb, err := ncuString(t, "app.csv", b.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var dropped string
	for _, m := range tb.Metas() {
		counts[m.Key]++
		if m.Key == "output_dropped" {
			dropped = m.Value
		}
	}
	if counts["output"] != maxOutputNotes || dropped != "5" || counts["PROF"] != 1 {
		t.Errorf("meta counts %v, dropped %q; want %d output rows and 5 dropped", counts, dropped, maxOutputNotes)
	}
}

// TestNCURunCaptures ingests every ncu CSV of the runs committed under
// testdata/runs (raw/ncu/<exp>/... kernel pass, raw/ncu-range/<exp>/...
// range pass; see kernels/launch/manifest.go) and checks what must hold
// for any capture: it parses, it has rows, kernel rows inside an
// experiment > variant > shape NVTX path name that experiment, and every
// row with gpu__time_duration.sum has a positive duration.
func TestNCURunCaptures(t *testing.T) {
	files := ncuRunCaptures()
	if len(files) == 0 {
		t.Skip("no committed run holds an ncu CSV yet (testdata/runs/*/raw/ncu*/)")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			parts := strings.Split(filepath.ToSlash(f), "/")
			var exp string
			for i, p := range parts {
				if (p == "ncu" || p == "ncu-range") && i > 0 && parts[i-1] == "raw" && i+1 < len(parts) {
					exp = parts[i+1]
				}
			}
			isRange := strings.Contains(filepath.ToSlash(f), "/raw/ncu-range/")
			tb := ingestNCU(t, f, Options{})
			ks := tb.Kernels()
			if len(ks) == 0 {
				t.Fatal("no rows")
			}
			durs := map[int64]bool{}
			for _, m := range tb.Metrics() {
				if m.Name == "gpu__time_duration.sum" && m.Valid {
					durs[m.KernelID] = true
				}
			}
			for _, k := range ks {
				if k.Experiment != "" && exp != "" && k.Experiment != exp {
					t.Errorf("kernel %d (%s) in NVTX path %q names experiment %q, file is under %q", k.CorrelationID, k.ShortName, k.RangePath, k.Experiment, exp)
				}
				if durs[k.ID] && k.DurationNs <= 0 {
					t.Errorf("kernel %d (%s) has gpu__time_duration.sum but duration %d", k.CorrelationID, k.ShortName, k.DurationNs)
				}
				if isRange && k.Pass != PassRange && k.Name == "range" {
					t.Errorf("range-pass row %d has pass %q", k.CorrelationID, k.Pass)
				}
			}
		})
	}
}

// ncuRunCaptures lists the ncu CSVs of the runs under testdata/runs.
func ncuRunCaptures() []string {
	var files []string
	root := filepath.Join("..", "testdata", "runs")
	runs, _ := os.ReadDir(root)
	for _, r := range runs {
		for _, pass := range []string{"ncu", "ncu-range"} {
			filepath.WalkDir(filepath.Join(root, r.Name(), "raw", pass), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".csv") {
					files = append(files, p)
				}
				return nil
			})
		}
	}
	return files
}
