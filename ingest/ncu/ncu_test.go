package ncu

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

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

const realdata = ingesttest.Realdata

// ncuString parses CSV text held in memory.
func ncuString(t *testing.T, name, text string, opts ingest.Options) (*ingest.Tables, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	b := ingest.NewBuilder(mem)
	defer b.Release()
	if err := parseNCU(b, name, strings.NewReader(text), opts); err != nil {
		return nil, err
	}
	tb := b.Finish()
	t.Cleanup(tb.Release)
	return tb, nil
}

// metricOf returns the metric of kernel id (and section, when not "*").
func metricOf(t *testing.T, ms []ingest.Metric, kid int64, section, name string) ingest.Metric {
	t.Helper()
	for _, m := range ms {
		if m.KernelID == kid && m.Name == name && (section == "*" || m.Section == section) {
			return m
		}
	}
	t.Fatalf("no metric %q (section %q) for kernel %d", name, section, kid)
	return ingest.Metric{}
}

func sumMetric(ms []ingest.Metric, name string) (sum float64, n int) {
	for _, m := range ms {
		if m.Name == name && m.Valid {
			sum += m.Value
			n++
		}
	}
	return
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// nvtxCol is the NVTX column header of ncu's raw page.
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
	_, err := ncuString(t, "x.csv", csv, ingest.Options{})
	if err == nil {
		t.Fatal("a grid of (1,024, 1, 1) parsed; want an error: ncu prints dimensions without separators")
	}
	csv = strings.Replace(csv, "(1,024, 1, 1)", "(1024, 1, 1)", 1)
	tb, err := ncuString(t, "x.csv", csv, ingest.Options{})
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
	if k.ShortName != "vectorized_elementwise_kernel" || k.GridX != 1024 || k.Registers != 32 || k.DurationNs != 2250 || k.Pass != ingest.PassKernel {
		t.Errorf("kernel 0 = %+v", k)
	}
	// A range name holding ':' survives; two components: no cell.
	if k := ks[1]; k.RangePath != "outer/mod:layer.0" || k.Experiment != "" || k.Shape != "" {
		t.Errorf("kernel 1 ranges %q exp %q shape %q", k.RangePath, k.Experiment, k.Shape)
	}
	if k := ks[2]; k.Pass != ingest.PassRange || k.Range != "" || k.GridX != 0 {
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
	tb, err = ncuString(t, "x.csv", csv, ingest.Options{Experiment: "e", Variant: "v", Shape: "s=1", Pass: ingest.PassRange})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range tb.Kernels() {
		if k.Experiment != "e" || k.Variant != "v" || k.Shape != "s=1" || k.Pass != ingest.PassRange {
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
	tb, err := ncuString(t, "r.csv", csv, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := tb.Kernels()[0]
	if k.Pass != ingest.PassRange || k.Shape != "B=2" || k.DurationNs != 434000 {
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
		{"text in byte column", hdr + units + good + `"1","1","k","(1, 1, 1)","(1, 1, 1)","10","lots"` + "\n", 4, `column 7 "dram__bytes.sum" (unit "byte"): "lots" is not a number`},
		{"bad id", hdr + units + `"x","1","k","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 3, `"x" is not an integer kernel id`},
		{"empty id", hdr + units + good + `"","1","k","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 4, `empty "ID"`},
		{"bad grid", hdr + units + `"0","1","k","(1, 1)","(1, 1, 1)","10","20"` + "\n", 3, `"(1, 1)" is not a dimension`},
		{"bad pid", hdr + units + `"0","p","k","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 3, `column "Process ID": "p" is not an integer`},
		{"header only", hdr + units, 2, "no kernel rows"},
		{"bad quote", hdr + units + `"0","1","k"x,"(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 3, "malformed CSV"},
		{"long truncated", long + `"0","k","s","m"` + "\n", 2, "truncated row: 4 fields"},
		{"long overlong", long + `"0","k","s","m","byte","1","x"` + "\n", 2, "row has 7 fields, header has 6"},
		{"long text in byte metric", long + `"0","k","s","m","byte","1"` + "\n" + `"0","k","s","m2","Kbyte","12abc"` + "\n", 3, `metric "m2" (unit "Kbyte"), column 6 "Metric Value": "12abc" is not a number`},
		{"long no rows", "==PROF== a\n" + long, 2, "no metric rows"},
		{"name without value", `"ID","Kernel Name","Metric Name"` + "\n", 1, `"Metric Name" without "Metric Value"`},
		{"two kernels one id", hdr + units + good + `"0","1","other(int)","(1, 1, 1)","(1, 1, 1)","10","20"` + "\n", 4, `kernel ID 0 names another kernel ("other(int)") than at line 3`},
		{"one id other values", hdr + units + good + `"0","1","k(int)","(1, 1, 1)","(1, 1, 1)","12","20"` + "\n", 4, `kernel ID 0 ("k(int)") appears again with other values than at line 3`},
		{"long two kernels one id", long + `"0","k","s","m","byte","1"` + "\n" + `"0","other","s","m2","byte","2"` + "\n", 3, `kernel ID 0 names another kernel ("other") than at line 2 ("k")`},
		{"long metric twice", long + `"0","k","s","gpu__time_duration.sum","ns","10"` + "\n" + `"0","k","s","gpu__time_duration.sum","ns","12"` + "\n", 2, `metric "gpu__time_duration.sum" (section s) given twice with different values (10 ns and 12 ns)`},
		{"bad rule speedup", long[:len(long)-1] + `,"Rule Name","Estimated Speedup"` + "\n" + `"0","k","s","","","","R","fast"` + "\n", 2, `rule "R": "fast"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ncuString(t, "bad.csv", c.text, ingest.Options{})
			var ie *ingest.InputError
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
		if got := ingest.ShortName(in); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", in, got, want)
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
	b := ingest.NewBuilder(mem)
	defer b.Release()
	// Strings the batch path will meet again, put there by the plain path.
	b.AddMetric(ingest.Metric{KernelID: 99, Name: "gpu__time_duration.sum", Unit: "ns", Value: 1, Valid: true, Text: "SIMT"})
	for _, f := range []string{"Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", "llm-perf-opt/kernel_0001.ncu.details.csv"} {
		if err := Parse(b, ingest.Input{Path: realdata + f}); err != nil {
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
	if err := tb.Write(dir, ingest.FormatParquet); err != nil {
		t.Fatal(err)
	}
	got, err := ingest.ReadDir(dir, mem)
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
	_, err := ingesttest.File(parseExport, rep, ingest.Options{NCU: filepath.Join(dir, "no-such-ncu")}, mem)
	var ie *ingest.InputError
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
	tb, err := ingesttest.File(parseExport, rep, ingest.Options{NCU: fake}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if n := tb.NumRows(ingest.TableKernels); n != 9 {
		t.Errorf("kernels via fake ncu = %d, want 9", n)
	}
	if ks := tb.Kernels(); ks[0].File != "r.ncu-rep" {
		t.Errorf("file = %q, want the report's name", ks[0].File)
	}
	// ncu failing: its stderr is quoted.
	failing := filepath.Join(dir, "ncu-fail")
	os.WriteFile(failing, []byte("#!/bin/sh\necho 'report version too new' >&2\nexit 1\n"), 0o755)
	_, err = ingesttest.File(parseExport, rep, ingest.Options{NCU: failing}, mem)
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
	_, err := ncuString(t, "edge.csv", csv, ingest.Options{})
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.Line != 8 || !strings.Contains(err.Error(), `metric "bad"`) {
		t.Fatalf("err = %v, want the bad value on line 8 (lines counted across the split field)", err)
	}
	tb, err := ncuString(t, "edge.csv", strings.TrimSuffix(csv, `"1","k2","S","bad","byte","x"`+"\r\n"), ingest.Options{})
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
	tb, err := ncuString(t, "app.csv", b.String(), ingest.Options{})
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

// TestNCUDuplicateRows: a raw page with every row written twice, and a long
// export with every metric row twice, count each kernel and metric once
// and say so in a warning; the hand count is 2 kernels of 20 + 30 ns.
func TestNCUDuplicateRows(t *testing.T) {
	hdr := `"ID","Process ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum","dram__bytes.sum"` + "\n"
	units := `"","","","","","ns","byte"` + "\n"
	r0 := `"0","1","k(int)","(1, 1, 1)","(1, 1, 1)","20","200"` + "\n"
	r1 := `"1","1","j(int)","(1, 1, 1)","(1, 1, 1)","30","300"` + "\n"
	long := `"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n"
	l0 := `"0","k","s","gpu__time_duration.sum","ns","20"` + "\n"
	l1 := `"1","j","s","gpu__time_duration.sum","ns","30"` + "\n"
	for _, c := range []struct{ name, text, warn string }{
		{"raw", hdr + units + r0 + r1 + r0 + r1, "2 rows repeat an earlier row of the same kernel ID exactly (the first at line 5 repeats line 3)"},
		{"long", long + l0 + l0 + l1 + l1, "2 metric rows repeat an earlier row of the same kernel and metric exactly"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb, err := ncuString(t, "dup.csv", c.text, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ks := tb.Kernels()
			if len(ks) != 2 || ks[0].DurationNs+ks[1].DurationNs != 50 {
				t.Errorf("kernels %+v, want 2 of 20 + 30 ns", ks)
			}
			var warned bool
			for _, m := range tb.Metas() {
				warned = warned || m.Key == "warning" && strings.Contains(m.Value, c.warn)
			}
			if !warned {
				t.Errorf("no warning %q in %+v", c.warn, tb.Metas())
			}
			if n := len(tb.Metrics()); c.name == "long" && n != 2 {
				t.Errorf("%d metric rows, want 2", n)
			}
		})
	}
}

// parseExport parses an ncu export as the dispatcher (ingest/detect) does:
// an .ncu-rep through ParseRep, a CSV (plain or gzipped) through Parse.
func parseExport(b *ingest.Builder, in ingest.Input) error {
	if strings.EqualFold(filepath.Ext(in.Path), ".ncu-rep") {
		return ParseRep(b, in)
	}
	return Parse(b, in)
}
