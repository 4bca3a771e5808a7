// Package ingesttest holds what the tests of the packages under ingest
// share: paths of the committed exports, tables rendered for golden files,
// file helpers, and a parse of exports by one format's parser as the
// dispatcher (ingest/detect) would run it. Only tests import it.
package ingesttest

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/callindex"
	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// Realdata is the folder of real exports from public repositories
// (testdata/realdata), as a test of a package under ingest sees it.
const Realdata = "../../testdata/realdata/"

// Runs is the folder of committed runs (testdata/runs), as a test of a
// package under ingest sees it.
const Runs = "../../testdata/runs/"

// Parse is one format's parser (ncu.Parse, nsys.Parse, ...).
type Parse func(*ingest.Builder, ingest.Input) error

// File parses one export with parse into tables of its own, as
// detect.File does for an export of parse's format.
func File(parse Parse, path string, opts ingest.Options, mem memory.Allocator) (*ingest.Tables, error) {
	return Files(parse, []ingest.Input{{Path: path, Options: opts}}, mem)
}

// Files parses every input with parse into one set of tables, as
// detect.Files does for exports of parse's format: on any error nothing is
// returned.
func Files(parse Parse, inputs []ingest.Input, mem memory.Allocator) (*ingest.Tables, error) {
	b := ingest.NewBuilder(mem)
	defer b.Release()
	if err := Fill(parse, inputs)(b); err != nil {
		return nil, err
	}
	return b.Finish(), nil
}

// Fill is the fill of ingest.Stream that parses every input with parse,
// each watched for its Options.Progress.
func Fill(parse Parse, inputs []ingest.Input) func(*ingest.Builder) error {
	return func(b *ingest.Builder) error {
		for _, in := range inputs {
			done := b.Watch(in.Progress)
			err := parse(b, in)
			done()
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// WriteFiles parses every input with parse and persists the tables under
// dir, as detect.WriteFiles does.
func WriteFiles(parse Parse, inputs []ingest.Input, dir, format string, mem memory.Allocator) (*ingest.Written, error) {
	return ingest.Stream(dir, format, mem, nil, Fill(parse, inputs))
}

// Ingest parses one export with parse and a checked allocator, failing the
// test on an error; the tables are released, and the allocator checked,
// when the test ends.
func Ingest(t *testing.T, parse Parse, path string, opts ingest.Options) *ingest.Tables {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	tb, err := File(parse, path, opts, mem)
	if err != nil {
		t.Fatalf("ingest %s: %v", path, err)
	}
	t.Cleanup(tb.Release)
	return tb
}

// CopyFile copies the first n bytes of src (all of it where n < 0) to dst.
func CopyFile(t testing.TB, src, dst string, n int64) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if n >= 0 && n < int64(len(b)) {
		b = b[:n]
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// RepeatReader yields Head, then N bytes of C, then Tail, without holding
// the N bytes: an export of any size at no cost to the test.
type RepeatReader struct {
	Head, Tail []byte
	C          byte
	N          int64
}

// Read reads the next bytes.
func (r *RepeatReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		switch {
		case len(r.Head) > 0:
			m := copy(p[k:], r.Head)
			r.Head = r.Head[m:]
			k += m
		case r.N > 0:
			m := int64(len(p) - k)
			if m > r.N {
				m = r.N
			}
			b := p[k : k+int(m)]
			for i := range b {
				b[i] = r.C
			}
			r.N -= m
			k += int(m)
		case len(r.Tail) > 0:
			m := copy(p[k:], r.Tail)
			r.Tail = r.Tail[m:]
			k += m
		default:
			if k == 0 {
				return 0, io.EOF
			}
			return k, nil
		}
	}
	return k, nil
}

// AllocDuring is the bytes the Go heap handed out while f ran.
func AllocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// GzipFile writes src gzipped to dst.
func GzipFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(out)
	if _, err := io.Copy(zw, in); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// KernelLine renders a kernel row for golden files.
func KernelLine(k ingest.Kernel) string {
	g := "null"
	if k.GraphNodeID != nil {
		g = fmt.Sprint(*k.GraphNodeID)
	}
	return fmt.Sprintf("%d corr=%d pid=%d tid=%d %s/%s mangled=%q range=%q path=%q cell=%q/%q/%q grid=%dx%dx%d block=%dx%dx%d regs=%d smem=%d/%d t=%d+%d graph=%s",
		k.ID, k.CorrelationID, k.PID, k.TID, k.ShortName, k.Name, k.Mangled, k.Range, k.RangePath, k.Experiment, k.Variant, k.Shape,
		k.GridX, k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ, k.Registers, k.StaticSharedBytes, k.DynSharedBytes, k.StartNs, k.DurationNs, g)
}

// RangeLine renders a range row for golden files.
func RangeLine(r ingest.Range) string {
	p := "null"
	if r.ParentID != nil {
		p = fmt.Sprint(*r.ParentID)
	}
	return fmt.Sprintf("%d %s domain=%q text=%q path=%q depth=%d parent=%s pid=%d tid=%d t=[%d,%d]",
		r.ID, r.Kind, r.Domain, r.Text, r.Path, r.Depth, p, r.PID, r.TID, r.StartNs, r.EndNs)
}

// DumpTables renders the kernels, ranges, GPUs and meta rows of tb for
// golden files (meta rows sorted).
func DumpTables(tb *ingest.Tables) string {
	var b strings.Builder
	for _, k := range tb.Kernels() {
		b.WriteString("kernel " + KernelLine(k) + "\n")
	}
	for _, r := range tb.Ranges() {
		b.WriteString("range " + RangeLine(r) + "\n")
	}
	for _, g := range tb.GPUs() {
		fmt.Fprintf(&b, "gpu %+v\n", g)
	}
	var m []string
	for _, x := range tb.Metas() {
		m = append(m, "meta "+x.Key+"="+x.Value)
	}
	sort.Strings(m)
	b.WriteString(strings.Join(m, "\n") + "\n")
	return b.String()
}

// SmallBatches makes WriteFiles hand on every 7 rows of a table as a row
// group, and the nsys runtime-call index go to disk past 5 calls, in blocks
// of 3 records, for the rest of the test.
func SmallBatches(t *testing.T) {
	rg, cc, cb := knob.RowGroupRows, callindex.Chunk, callindex.Block
	knob.RowGroupRows, callindex.Chunk, callindex.Block = 7, 5, 3
	t.Cleanup(func() { knob.RowGroupRows, callindex.Chunk, callindex.Block = rg, cc, cb })
}

// SameTables fails unless a and b hold the same rows in every table.
func SameTables(t *testing.T, what string, a, b *ingest.Tables) {
	t.Helper()
	for _, c := range []struct {
		table string
		x, y  any
	}{
		{ingest.TableKernels, a.Kernels(), b.Kernels()},
		{ingest.TableMetrics, a.Metrics(), b.Metrics()},
		{ingest.TableRanges, a.Ranges(), b.Ranges()},
		{ingest.TableGPUs, a.GPUs(), b.GPUs()},
		{ingest.TableMeta, a.Metas(), b.Metas()},
		{ingest.TableTimings, a.Timings(), b.Timings()},
	} {
		if d := cmp.Diff(c.x, c.y); d != "" {
			t.Errorf("%s: table %s differs (-in memory +streamed):\n%s", what, c.table, d)
		}
	}
}

// RealExports lists every export under testdata/realdata (Realdata).
func RealExports(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(Realdata, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.HasSuffix(p, ".tsv") && !strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	if len(out) < 10 {
		t.Fatalf("only %d exports under %s", len(out), Realdata)
	}
	return out
}

// KinetoArrayTrace is a Kineto trace in the JSON-array form (the events
// without the {"traceEvents": ...} object) whose runtime call states its
// stream as a pointer string, as ROCm traces do: one kernel of dur 2.5 us
// = 2500 ns, launched by the call of correlation 7.
const KinetoArrayTrace = `[
 {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 2, "ts": 9, "dur": 1, "args": {"correlation": 7, "stream": "0x0", "kernel": {"a": [1]}}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 2.5, "args": {"correlation": 7, "device": 0, "stream": 7, "grid": [1, 1, 1], "block": [32, 1, 1]}}
]`
