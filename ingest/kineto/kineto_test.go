package kineto

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/testgz"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
	"github.com/rooftool/rooftool/internal/golden"
)

const htaTrace = ingesttest.Realdata + "HolisticTraceAnalysis/critical_path__benchmark_result_2869224_1695835535_trace.json.gz"

// TestKinetoReal pins the HolisticTraceAnalysis trace. Figures checked with
// python3 (json.load(gzip.open(f))['traceEvents']):
//
//	k = [e for e in ev if e.get('cat') == 'kernel']          -> 79 kernels
//	len({e['name'] for e in k}), sum(e['dur'] for e in k)    -> 16, 10692 us
//	user_annotation events                                   -> 8
//	kernels by the user_annotations on the launching cuda_runtime call's
//	thread (same correlation) enclosing the call, outermost first:
//	  [param|cuda] alone: 1; .../warmup|forward (nested twice): 39; .../measure|forward: 39
//	deviceProperties: 8 x "NVIDIA A100-PG509-200", numSms 108, cc 8.0
func TestKinetoReal(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingesttest.File(Parse, htaTrace, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	ks := tb.Kernels()
	names := map[string]bool{}
	paths := map[string]int{}
	var total int64
	for _, k := range ks {
		names[k.Name] = true
		total += k.DurationNs
		paths[k.RangePath]++
		if k.Source != ingest.SourceKineto || k.Pass != ingest.PassTimeline {
			t.Fatalf("source/pass %s/%s", k.Source, k.Pass)
		}
	}
	if len(ks) != 79 || len(names) != 16 || total != 10692000 {
		t.Errorf("kernels %d names %d total %d ns; want 79 16 10692000", len(ks), len(names), total)
	}
	const (
		cuda    = "[param|cuda]"
		model   = "[param|pytorch.model.alex_net|0|0|0]"
		warm    = "[param|pytorch.model.alex_net|0|0|0|warmup|forward]"
		measure = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
	)
	want := map[string]int{
		cuda: 1,
		strings.Join([]string{cuda, model, warm, warm}, "/"):       39,
		strings.Join([]string{cuda, model, measure, measure}, "/"): 39,
	}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Errorf("range paths %v, want %v", paths, want)
	}
	k := ks[0]
	if k.GridX != 864 || k.GridY != 1 || k.BlockX != 256 || k.Registers != 47 || k.Device != 0 || k.Stream != 7 ||
		k.CorrelationID != 218 || k.PID != 2869224 || k.TID != 2869224 || k.Context != 1 || k.StartNs != 1695835573023613000 ||
		k.ShortName != "distribution_elementwise_grid_stride_kernel" {
		t.Errorf("first kernel %s", ingesttest.KernelLine(k))
	}
	if n := tb.NumRows(ingest.TableRanges); n != 8 {
		t.Errorf("%d ranges, want 8", n)
	}
	g := tb.GPUs()
	if len(g) != 8 || g[0].Name != "NVIDIA A100-PG509-200" || g[0].SMCount != 108 || g[0].CCMajor != 8 || g[0].MemoryBytes != 42297524224 {
		t.Errorf("gpus %d, first %+v", len(g), g[0])
	}
	meta := map[string]string{}
	for _, m := range tb.Metas() {
		meta[m.Key] = m.Value
	}
	if meta["schemaVersion"] != "1" || meta["traceName"] != "benchmark_result_2869224_1695835535_trace.json" {
		t.Errorf("meta %v", meta)
	}
}

const synthKineto = `{
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85028569088, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "swiglu", "pid": 10, "tid": 11, "ts": 1000.5, "dur": 500},
    {"ph": "X", "cat": "user_annotation", "name": "fused", "pid": 10, "tid": 11, "ts": 1001, "dur": 200},
    {"ph": "X", "cat": "user_annotation", "name": "M=64,N=128", "pid": 10, "tid": 11, "ts": 1002, "dur": 100.25},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 1010.125, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "Kernel", "name": "void ns::gemm<float>(float*, int)", "pid": 0, "tid": 7, "ts": 1020.0015, "dur": 3.5,
     "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [8, 4, 1], "block": [128, 1, 1], "registers per thread": 96, "shared memory": 4096}},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "phase2", "pid": 0, "tid": 7, "ts": 1300, "dur": 100},
    {"ph": "X", "cat": "kernel", "name": "elementwise_kernel", "pid": 0, "tid": 7, "ts": 1310, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 99}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 12, "ts": 1012, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "other_thread", "pid": 0, "tid": 7, "ts": 1400, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 2}},
    {"ph": "i", "name": "marker", "pid": "Traces", "tid": "x", "ts": 5},
    {"ph": "M", "name": "process_name", "pid": 10, "args": {"name": "python"}}
  ],
  "traceName": "synthetic"
}`

func TestKinetoSynthetic(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := filepath.Join(t.TempDir(), "synth.json")
	if err := os.WriteFile(p, []byte(synthKineto), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := ingesttest.File(Parse, p, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	ks := tb.Kernels()
	if len(ks) != 3 {
		t.Fatalf("%d kernels", len(ks))
	}
	// ts 1020.0015 us -> 1020001.5 ns, rounded half up to 1020002.
	if k := ks[0]; k.StartNs != 1020002 || k.DurationNs != 3500 || k.Experiment != "swiglu" || k.Variant != "fused" ||
		k.Shape != "M=64,N=128" || k.ShortName != "gemm" || k.TID != 11 || k.StaticSharedBytes != 4096 || k.GridY != 4 {
		t.Errorf("kernel 0: %s", ingesttest.KernelLine(k))
	}
	if k := ks[1]; k.Range != "phase2" || k.RangePath != "phase2" || k.PID != 0 {
		t.Errorf("kernel 1 (gpu_user_annotation): %s", ingesttest.KernelLine(k))
	}
	if k := ks[2]; k.Range != "" || k.TID != 12 {
		t.Errorf("kernel 2 (launched on a thread without annotations): %s", ingesttest.KernelLine(k))
	}
	golden.Check(t, filepath.Join("testdata", "synthetic.golden"), []byte(ingesttest.DumpTables(tb)))

	// The same events as a bare Chrome-trace array.
	i := strings.Index(synthKineto, `"traceEvents": [`) + len(`"traceEvents": `)
	j := strings.Index(synthKineto, `],
  "traceName"`) + 1
	tb2 := mustKineto(t, synthKineto[i:j], mem)
	defer tb2.Release()
	if fmt.Sprint(tb2.Kernels()) != fmt.Sprint(ks) {
		t.Errorf("array form differs:\n%v\n%v", tb2.Kernels(), ks)
	}
}

func mustKineto(t *testing.T, js string, mem memory.Allocator) *ingest.Tables {
	t.Helper()
	b := ingest.NewBuilder(mem)
	defer b.Release()
	if err := parseKineto(b, ingest.Input{Path: "synth.json"}, strings.NewReader(js)); err != nil {
		t.Fatal(err)
	}
	return b.Finish()
}

func TestKinetoBadInput(t *testing.T) {
	real := testgz.Read(t, htaTrace)
	for _, c := range []struct {
		name, data, key, want string
	}{
		{"truncated", string(real[:len(real)/2]), "", "truncated JSON"},
		{"no trace", `{"name": "x", "version": 2}`, "traceEvents", "missing: not a Kineto"},
		{"events not array", `{"traceEvents": {"a": 1}}`, "traceEvents", "expected an array"},
		{"scalar", `42`, "", "expected a JSON object"},
		{"garbage after", `{"traceEvents": []} x`, "", "after the trace"},
		{"bad ts", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1e400, "dur": 1}]}`, "traceEvents", "ts"},
		{"no ts", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "dur": 1}]}`, "traceEvents", "has no ts"},
		{"bad grid", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"grid": [-1, 1, 1]}}]}`, "traceEvents", "args.grid[0]"},
		{"name type", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": 5, "ts": 1}]}`, "traceEvents", "name"},
		{"device props", `{"deviceProperties": 3, "traceEvents": []}`, "deviceProperties", "expected an array"},
		{"empty", ``, "", "empty file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			b := ingest.NewBuilder(mem)
			defer b.Release()
			err := parseKineto(b, ingest.Input{Path: "bad.json"}, strings.NewReader(c.data))
			var ie *ingest.InputError
			if !errors.As(err, &ie) || ie.Table != c.key || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.json") {
				t.Fatalf("err = %v, want an InputError for key %q saying %q", err, c.key, c.want)
			}
		})
	}
}

func TestKinetoBaseName(t *testing.T) {
	for in, want := range map[string]string{
		"void at::native::(anonymous namespace)::k<float, 4>(int, float*)": "k",
		"ampere_sgemm_128x64_nn":                          "ampere_sgemm_128x64_nn",
		"void cutlass::Kernel<cutlass::G<1>>(T1::Params)": "Kernel",
		"vecAdd(double *, double *, double *, int)":       "vecAdd",
		"": "",
	} {
		if got := ingest.ShortName(in); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUsToNs(t *testing.T) {
	for in, want := range map[string]int64{
		"1695835542514261.123": 1695835542514261123, "1.5": 1500, "0.0004": 0, "0.0005": 1, "-2.25": -2250, "1e3": 1000000, "7": 7000,
	} {
		got, err := usToNs(jsonNumber(in))
		if err != nil || got != want {
			t.Errorf("usToNs(%s) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"1e400", "99999999999999999999", "1.x"} {
		if _, err := usToNs(jsonNumber(in)); err == nil {
			t.Errorf("usToNs(%s): no error", in)
		}
	}
}

// FuzzKineto feeds arbitrary bytes to the Kineto parser: it must return
// rows or an *InputError, never panic, and never leak Arrow memory.
func FuzzKineto(f *testing.F) {
	real := testgz.Read(f, htaTrace)
	// The whole real trace (1 MB) as a seed under go test; the fuzzing
	// engine stalls on inputs that large, so while fuzzing it starts from a
	// slice of the same trace instead.
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		f.Add(real)
	}
	f.Add(kinetoSlice(f, real, 12))
	f.Add([]byte(synthKineto))
	f.Add([]byte(`[{"ph":"X","cat":"kernel","name":"k","ts":1.5,"dur":2,"args":{"grid":[1,2,3]}}]`))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"a","ts":0,"dur":9},{"ph":"X","cat":"cuda_runtime","ts":1,"dur":1,"args":{"correlation":1}},{"ph":"X","cat":"kernel","ts":3,"args":{"correlation":1}}]}`))
	f.Add([]byte(`{"traceEvents":[`))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"dur":3}]}`))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}],"traceEvents":[]}`))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"a","ts":1,"dur":2}]}`))
	f.Add([]byte(`{"deviceProperties":[{"id":"x","name":3}],"traceEvents":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		b := ingest.NewBuilder(mem)
		defer b.Release()
		err := parseKineto(b, ingest.Input{Path: "fuzz.json"}, bytes.NewReader(data))
		if err != nil {
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is %T, not an *InputError", err, err)
			}
			return
		}
		tb := b.Finish()
		_ = tb.Kernels()
		_ = tb.Ranges()
		tb.Release()
	})
}

func jsonNumber(s string) json.Number { return json.Number(s) }

// kinetoSlice keeps a trace's top-level fields, its annotations and the
// first n events of every other category.
func kinetoSlice(t testing.TB, trace []byte, n int) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(trace, &doc); err != nil {
		t.Fatal(err)
	}
	var evs []json.RawMessage
	if err := json.Unmarshal(doc["traceEvents"], &evs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var keep []json.RawMessage
	for _, e := range evs {
		var h struct{ Cat string }
		json.Unmarshal(e, &h)
		if strings.HasSuffix(h.Cat, "user_annotation") || seen[h.Cat] < n {
			keep = append(keep, e)
		}
		seen[h.Cat]++
	}
	b, _ := json.Marshal(keep)
	doc["traceEvents"] = b
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkKinetoHTA parses the real HolisticTraceAnalysis trace (1,408
// events) from memory.
func BenchmarkKinetoHTA(b *testing.B) {
	data := testgz.Read(b, htaTrace)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		bl := ingest.NewBuilder(nil)
		if err := parseKineto(bl, ingest.Input{Path: "hta.json"}, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		bl.Finish().Release()
		bl.Release()
	}
}

const htaCuptiTrace = ingesttest.Realdata + "HolisticTraceAnalysis/cupti_profiler__benchmark_result_924719_1679055439_trace.json.gz"

// TestKinetoProfilerRangesOnly: HolisticTraceAnalysis's cupti_profiler trace
// holds 77 cuda_profiler_range events (CUPTI range-profiler FLOP counters per
// kernel) and no kernel events. It must be refused as bad input that names
// what the trace holds, not ingested as zero kernels.
func TestKinetoProfilerRangesOnly(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingesttest.File(Parse, htaCuptiTrace, ingest.Options{}, mem)
	if err == nil {
		n := len(tb.Kernels())
		tb.Release()
		t.Fatalf("ingested %d kernels without an error; want an InputError", n)
	}
	var ie *ingest.InputError
	if !errors.As(err, &ie) || !errors.Is(err, ingest.ErrNoKernels) {
		t.Fatalf("error %T %v; want *InputError that is ErrNoKernels", err, err)
	}
	for _, w := range []string{"cuda_profiler_range", "77", "no kernel events"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}
