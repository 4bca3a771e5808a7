package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// kinetoArrayTrace is a Kineto trace in the JSON-array form (the events
// without the {"traceEvents": ...} object) whose runtime call states its
// stream as a pointer string, as ROCm traces do: one kernel of dur 2.5 us
// = 2500 ns, launched by the call of correlation 7.
const kinetoArrayTrace = `[
 {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 2, "ts": 9, "dur": 1, "args": {"correlation": 7, "stream": "0x0", "kernel": {"a": [1]}}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 2.5, "args": {"correlation": 7, "device": 0, "stream": 7, "grid": [1, 1, 1], "block": [32, 1, 1]}}
]`

// A gzipped Kineto trace is read in either JSON form, as the same file
// unzipped; a runtime call's args that rooftool does not read (a "0x0"
// stream, an object) are ignored whatever their type.
func TestKinetoGzipArrayAndArgs(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "trace.json")
	if err := os.WriteFile(plain, []byte(kinetoArrayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "trace.json.gz")
	gzipFile(t, plain, gz)
	for _, p := range []string{plain, gz} {
		tb, err := File(p, Options{}, nil)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		ks := tb.Kernels()
		if len(ks) != 1 || ks[0].DurationNs != 2500 || ks[0].CorrelationID != 7 || ks[0].Stream != 7 || ks[0].PID != 1 || ks[0].TID != 2 {
			t.Errorf("%s: kernels %+v; want one of 2500 ns, correlation 7, stream 7, launched from pid 1 tid 2", filepath.Base(p), ks)
		}
		tb.Release()
	}
}
