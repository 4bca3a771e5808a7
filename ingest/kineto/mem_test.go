package kineto

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/callindex"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// writeKinetoTrace writes a Kineto trace of n kernels, each launched by a
// cudaLaunchKernel call on one thread inside one of n/1000+1 user
// annotations, kernels on two streams: the shape of a PyTorch profile.
func writeKinetoTrace(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"schemaVersion":1,"traceEvents":[` + "\n")
	for a := 0; a <= n/1000; a++ {
		fmt.Fprintf(w, `{"ph":"X","cat":"user_annotation","name":"step%d","pid":1,"tid":1,"ts":%d,"dur":%d},`+"\n", a, a*10000, 9999)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d.5,"dur":2,"args":{"correlation":%d}},`+"\n", i*10, i)
		fmt.Fprintf(w, `{"ph":"X","cat":"kernel","name":"void gemm_kernel<float, %d>(float const*, float*)","pid":0,"tid":%d,"ts":%d,"dur":3.25,"args":{"device":0,"stream":%d,"correlation":%d,"registers per thread":64,"shared memory":4096,"grid":[128,1,1],"block":[256,1,1]}}`,
			i%7, 7+i%2, i*10+5, 7+i%2, i)
		if i < n-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// peakHeap runs f and returns the most heap in use seen while it ran
// (sampled every 2 ms) above the heap in use before it.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		peak := base
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				done <- peak - base
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	return <-done
}

// kinetoPeak ingests a generated trace of n kernels into Parquet (rows
// written as they are read) and returns the peak heap it took.
func kinetoPeak(tb testing.TB, n int) uint64 {
	dir := tb.TempDir()
	p := filepath.Join(dir, "trace.json")
	writeKinetoTrace(tb, p, n)
	var err error
	var w *ingest.Written
	peak := peakHeap(func() {
		w, err = ingesttest.WriteFiles(Parse, []ingest.Input{{Path: p}}, filepath.Join(dir, "tables"), ingest.FormatParquet, nil)
	})
	if err != nil {
		tb.Fatal(err)
	}
	if got := w.Rows[ingest.TableKernels]; got != int64(n) {
		tb.Fatalf("%d kernels written, want %d", got, n)
	}
	return peak
}

// A Kineto trace is ingested in bounded memory: 4 times the kernels (and
// their calls) cost less than 16 MiB more peak heap, where holding each
// kernel (about 1.5 KB a kernel before) would cost 180 MiB more for the
// 120000 kernels added. The calls' index is kept in memory up to
// callindex.Chunk calls, lowered here so that it goes to a file as a trace of
// millions of calls does, and so is the row group (the rows a table
// gathers before they are written: bounded, 131072 rows, but more than
// these traces' kernels).
func TestKinetoBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests traces of 40000 and 160000 kernels")
	}
	defer func(c int, r int64) { callindex.Chunk, knob.RowGroupRows = c, r }(callindex.Chunk, knob.RowGroupRows)
	callindex.Chunk, knob.RowGroupRows = 1<<14, 1<<13
	small := kinetoPeak(t, 40000)
	large := kinetoPeak(t, 160000)
	t.Logf("peak heap: %d MiB for 40000 kernels, %d MiB for 160000", small>>20, large>>20)
	if large > small+16<<20 {
		t.Errorf("peak heap grew from %d MiB to %d MiB for 120000 more kernels (%d bytes a kernel), want bounded (under 16 MiB more)",
			small>>20, large>>20, (large-small)/120000)
	}
}

// BenchmarkKinetoMemory ingests a generated trace of
// $ROOFTOOL_KINETO_KERNELS kernels (default 1000000; 3000000 is the case
// of a long profile) and reports the peak heap and the process's peak
// RSS (VmHWM) per kernel. Measured on a 2-core machine: 1M kernels, peak
// heap 325 MiB and RSS 310 MiB; 3M kernels, 289 MiB and 270 MiB (101 bytes
// a kernel, the memory of one row group and one chunk of the call index,
// not of the kernels).
func BenchmarkKinetoMemory(b *testing.B) {
	n := 1000000
	if v, err := strconv.Atoi(os.Getenv("ROOFTOOL_KINETO_KERNELS")); err == nil && v > 0 {
		n = v
	}
	for i := 0; i < b.N; i++ {
		peak := kinetoPeak(b, n)
		b.ReportMetric(float64(peak)/float64(n), "peak-heap-B/kernel")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}
	if s, err := os.ReadFile("/proc/self/status"); err == nil {
		var kb int64
		for _, l := range splitLines(string(s)) {
			if _, err := fmt.Sscanf(l, "VmHWM: %d kB", &kb); err == nil {
				b.ReportMetric(float64(kb)/1024, "peak-RSS-MiB")
			}
		}
	}
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
