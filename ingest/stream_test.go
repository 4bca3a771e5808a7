//go:build cgo

package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/google/go-cmp/cmp"
	"github.com/rooftool/rooftool/ingest/internal/callindex"
	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// realExports lists every export under testdata/realdata.
func realExports(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(nsysRealdata, func(p string, d os.DirEntry, err error) error {
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
		t.Fatalf("only %d exports under %s", len(out), nsysRealdata)
	}
	return out
}

// smallBatches makes WriteFiles hand on every 7 rows of a table as a row
// group, and the nsys runtime-call index go to disk past 5 calls, in blocks
// of 3 records, for the rest of the test.
func smallBatches(t *testing.T) {
	rg, cc, cb := knob.RowGroupRows, callindex.Chunk, callindex.Block
	knob.RowGroupRows, callindex.Chunk, callindex.Block = 7, 5, 3
	t.Cleanup(func() { knob.RowGroupRows, callindex.Chunk, callindex.Block = rg, cc, cb })
}

// sameTables fails unless a and b hold the same rows in every table.
func sameTables(t *testing.T, what string, a, b *Tables) {
	t.Helper()
	for _, c := range []struct {
		table string
		x, y  any
	}{
		{TableKernels, a.Kernels(), b.Kernels()},
		{TableMetrics, a.Metrics(), b.Metrics()},
		{TableRanges, a.Ranges(), b.Ranges()},
		{TableGPUs, a.GPUs(), b.GPUs()},
		{TableMeta, a.Metas(), b.Metas()},
		{TableTimings, a.Timings(), b.Timings()},
	} {
		if d := cmp.Diff(c.x, c.y); d != "" {
			t.Errorf("%s: table %s differs (-in memory +streamed):\n%s", what, c.table, d)
		}
	}
}

// parquetRowGroups counts the row groups of a Parquet file.
func parquetRowGroups(t *testing.T, path string) int {
	t.Helper()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.NumRowGroups()
}

// With row groups of 7 rows and the runtime-call index on disk, WriteFiles
// writes, for every real export in testdata and for all of them in one
// ingest, the tables that File builds in memory: every row of every table,
// read back. Tables with more than 7 rows are written in several row
// groups, so the batched path is the one compared. An export that File
// refuses (of the 12, 3: no kernel table, or a trace of profiler events
// only) gives the same error.
func TestWriteFilesMatchesInMemory(t *testing.T) {
	smallBatches(t)
	exports := realExports(t)
	var all []Input
	check := func(name string, inputs []Input) {
		want, werr := Files(inputs, nil)
		dir := filepath.Join(t.TempDir(), "tables")
		w, gerr := WriteFiles(inputs, dir, FormatParquet, nil)
		if werr != nil || gerr != nil {
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Errorf("%s: in memory: %v; streamed: %v", name, werr, gerr)
			}
			if werr == nil {
				want.Release()
			}
			return
		}
		defer want.Release()
		got, err := ReadDir(dir, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer got.Release()
		sameTables(t, name, want, got)
		for _, n := range TableNames {
			if w.Rows[n] != want.NumRows(n) {
				t.Errorf("%s: WriteFiles counts %d rows of %s, the table has %d", name, w.Rows[n], n, want.NumRows(n))
			}
			rows := want.NumRows(n)
			// At most 7 rows a group (a batch that grew past 7 rows
			// in one append is split by the writer).
			groups := parquetRowGroups(t, filepath.Join(dir, n+".parquet"))
			if least := max(1, int((rows+6)/7)); groups < least {
				t.Errorf("%s: %s: %d rows in %d row groups, want %d or more", name, n, rows, groups, least)
			}
		}
		if d := cmp.Diff(warnings(want.Metas()), w.Warnings); d != "" {
			t.Errorf("%s: warnings (-meta table +WriteFiles):\n%s", name, d)
		}
	}
	for _, p := range exports {
		in := []Input{{Path: p}}
		check(p, in)
		if _, err := File(p, Options{}, nil); err == nil {
			all = append(all, in...)
		}
	}
	if len(all) < 9 {
		t.Fatalf("only %d readable exports", len(all))
	}
	check("all exports together", all)
}

// A table set too small for a second row group is written byte for byte as
// Tables.Write writes it.
func TestWriteFilesSmallSameBytes(t *testing.T) {
	for _, p := range []string{nsysRealdata + "DLProf/nsys_profile.sqlite", nsysRealdata + "ESMM-Research/metrics.csv"} {
		tb, err := File(p, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		if err := tb.Write(a, FormatParquet); err != nil {
			t.Fatal(err)
		}
		tb.Release()
		if _, err := WriteFiles([]Input{{Path: p}}, b, FormatParquet, nil); err != nil {
			t.Fatal(err)
		}
		for _, n := range TableNames {
			x, _ := os.ReadFile(filepath.Join(a, n+".parquet"))
			y, _ := os.ReadFile(filepath.Join(b, n+".parquet"))
			if len(x) == 0 || string(x) != string(y) {
				t.Errorf("%s: %s.parquet: Write gave %d bytes, WriteFiles %d, not the same", p, n, len(x), len(y))
			}
		}
	}
}

// A string a source does not give is null in the file, not "". The
// cutlass_benchmark export has 6 kernels and no NVTX_EVENTS table, every
// kernel a mangledName (sqlite3: SELECT count(*), sum(mangledName IS NULL)
// FROM CUPTI_ACTIVITY_KIND_KERNEL gives 6|0), so experiment, variant,
// shape, range and range_path are null on all 6 rows and mangled on none.
func TestUnknownStringsNull(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tables")
	if _, err := WriteFiles([]Input{{Path: nsysRealdata + "cutlass_benchmark/report1.sqlite.gz"}}, dir, FormatParquet, nil); err != nil {
		t.Fatal(err)
	}
	rec := readParquetRecord(t, filepath.Join(dir, "kernels.parquet"))
	defer rec.Release()
	if rec.NumRows() != 6 {
		t.Fatalf("%d kernels, want 6", rec.NumRows())
	}
	want := map[string]int{"experiment": 6, "variant": 6, "shape": 6, "range": 6, "range_path": 6, "mangled": 0, "name": 0, "short_name": 0}
	for c, n := range want {
		if got := rec.Column(colIndex(rec, c)).NullN(); got != n {
			t.Errorf("kernels.%s: %d nulls, want %d", c, got, n)
		}
	}
	// No nullable string column of any table holds "" in any real export.
	for _, p := range realExports(t) {
		d := filepath.Join(t.TempDir(), "t")
		if _, err := WriteFiles([]Input{{Path: p}}, d, FormatParquet, nil); err != nil {
			continue
		}
		for _, n := range TableNames {
			r := readParquetRecord(t, filepath.Join(d, n+".parquet"))
			for i, c := range Columns(n) {
				if !c.Nullable || r.Column(i).DataType().ID() != arrow.DICTIONARY {
					continue
				}
				a := r.Column(i).(*array.Dictionary)
				for j := 0; j < a.Len(); j++ {
					if a.IsValid(j) && a.Dictionary().(*array.String).Value(a.GetValueIndex(j)) == "" {
						t.Errorf("%s: %s.%s row %d holds \"\", want null", p, n, c.Name, j)
						break
					}
				}
			}
			r.Release()
		}
	}
}

// readParquetRecord reads a table file written by rooftool as one record,
// as the file holds it (no conversion).
func readParquetRecord(t *testing.T, path string) arrow.RecordBatch {
	t.Helper()
	rec, err := readTable(os.DirFS(filepath.Dir(path)), ".", filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".parquet"), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// longNCU is a long-form ncu export: kernels IDs in the order given, four
// metric rows each (the duration among them).
func longNCU(ids ...int) string {
	var b strings.Builder
	b.WriteString(`"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n")
	for _, id := range ids {
		for j, m := range []string{"gpu__time_duration.sum", "dram__bytes.sum", "launch__registers_per_thread", "sm__throughput.avg.pct_of_peak_sustained_elapsed"} {
			unit := [...]string{"nsecond", "byte", "register/thread", "%"}[j]
			fmt.Fprintf(&b, "\"%d\",\"k%d(int)\",\"S\",\"%s\",\"%s\",\"%d\"\n", id, id, m, unit, 100*id+j+1)
		}
	}
	return b.String()
}

// A long-form ncu export streams kernel by kernel: with 7-row batches,
// WriteFiles hands kernels on before the end of the file and still gives
// File's tables; a kernel whose rows come back after it was handed on is
// an error naming the line (File, which holds the whole export, reads it).
func TestWriteFilesNCULong(t *testing.T) {
	smallBatches(t)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.csv"), filepath.Join(dir, "bad.csv")
	os.WriteFile(good, []byte(longNCU(0, 1, 2, 3, 4)), 0o644)
	// Kernel 0's rows again after kernels 1 to 3 (12 rows, past 7): the
	// first row of the second run of kernel 0 is line 1 + 4*4 + 1 = 18.
	os.WriteFile(bad, []byte(longNCU(0, 1, 2, 3, 0)), 0o644)
	want, err := File(good, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if n := want.NumRows(TableKernels); n != 5 {
		t.Fatalf("%d kernels, want 5", n)
	}
	out := filepath.Join(dir, "tables")
	if _, err := WriteFiles([]Input{{Path: good}}, out, FormatParquet, nil); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	sameTables(t, good, want, got)
	tb, err := File(bad, Options{}, nil)
	if err != nil {
		t.Fatalf("in memory: %v", err)
	}
	tb.Release()
	_, err = WriteFiles([]Input{{Path: bad}}, filepath.Join(dir, "t2"), FormatParquet, nil)
	if err == nil || !strings.Contains(err.Error(), "bad.csv:18: rows of kernel 0 come back") {
		t.Errorf("streamed: %v, want an error at line 18", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "t2")); serr == nil {
		t.Error("a failed WriteFiles left its directory")
	}
}

// scanSplit, reading rowid ranges of 3 rows on two connections, gives the
// rows of one plain scan in the same order, for the kernel and runtime
// tables of every real nsys export and of a 4600-kernel replica.
func TestScanSplitOrder(t *testing.T) {
	old := splitRows
	splitRows = 3
	defer func() { splitRows = old }()
	replica := filepath.Join(t.TempDir(), "replica.sqlite")
	makeNsysReplica(t, replica, 4600)
	paths := []string{replica}
	for _, p := range realExports(t) {
		switch {
		case strings.HasSuffix(p, ".sqlite"):
			paths = append(paths, p)
		case strings.HasSuffix(p, ".sqlite.gz"): // committed gzipped
			plain := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(p), ".gz"))
			if err := os.WriteFile(plain, gunzip(t, p), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, plain)
		}
	}
	for _, p := range paths {
		db, err := openSQLite(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{tabKernel, tabRuntime} {
			if !db.has(table) {
				continue
			}
			q := `SELECT rowid, start, end, correlationId FROM "` + table + `" WHERE %s ORDER BY rowid`
			var whole, split []int64
			collect := func(dst *[]int64) func([]int64) error {
				return func(v []int64) error { *dst = append(*dst, v...); return nil }
			}
			if err := db.scanIntsNull(table, fmt.Sprintf(q, "1"), 4, sqlNull, collect(&whole)); err != nil {
				t.Fatal(err)
			}
			if err := db.scanSplit(table, q, 4, sqlNull, collect(&split)); err != nil {
				t.Fatal(err)
			}
			if len(whole) == 0 || !slices.Equal(whole, split) {
				t.Errorf("%s: %s: split scan gives %d values, one scan %d, or another order", p, table, len(split), len(whole))
			}
		}
		db.Close()
	}
}
