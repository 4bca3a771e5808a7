//go:build cgo

package detect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

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
	ingesttest.SmallBatches(t)
	exports := ingesttest.RealExports(t)
	var all []ingest.Input
	check := func(name string, inputs []ingest.Input) {
		want, werr := Files(inputs, nil)
		dir := filepath.Join(t.TempDir(), "tables")
		w, gerr := WriteFiles(inputs, dir, ingest.FormatParquet, nil)
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
		got, err := ingest.ReadDir(dir, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer got.Release()
		ingesttest.SameTables(t, name, want, got)
		for _, n := range ingest.TableNames {
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
		var warns []ingest.Meta
		for _, m := range want.Metas() {
			if m.Key == "warning" {
				warns = append(warns, m)
			}
		}
		if d := cmp.Diff(warns, w.Warnings); d != "" {
			t.Errorf("%s: warnings (-meta table +WriteFiles):\n%s", name, d)
		}
	}
	for _, p := range exports {
		in := []ingest.Input{{Path: p}}
		check(p, in)
		if _, err := File(p, ingest.Options{}, nil); err == nil {
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
	for _, p := range []string{ingesttest.Realdata + "DLProf/nsys_profile.sqlite", ingesttest.Realdata + "ESMM-Research/metrics.csv"} {
		tb, err := File(p, ingest.Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
		if err := tb.Write(a, ingest.FormatParquet); err != nil {
			t.Fatal(err)
		}
		tb.Release()
		if _, err := WriteFiles([]ingest.Input{{Path: p}}, b, ingest.FormatParquet, nil); err != nil {
			t.Fatal(err)
		}
		for _, n := range ingest.TableNames {
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
	if _, err := WriteFiles([]ingest.Input{{Path: ingesttest.Realdata + "cutlass_benchmark/report1.sqlite.gz"}}, dir, ingest.FormatParquet, nil); err != nil {
		t.Fatal(err)
	}
	rec := readParquetRecord(t, filepath.Join(dir, "kernels.parquet"))
	defer rec.Release()
	if rec.NumRows() != 6 {
		t.Fatalf("%d kernels, want 6", rec.NumRows())
	}
	want := map[string]int{"experiment": 6, "variant": 6, "shape": 6, "range": 6, "range_path": 6, "mangled": 0, "name": 0, "short_name": 0}
	for c, n := range want {
		if got := rec.Column(rec.Schema().FieldIndices(c)[0]).NullN(); got != n {
			t.Errorf("kernels.%s: %d nulls, want %d", c, got, n)
		}
	}
	// No nullable string column of any table holds "" in any real export.
	for _, p := range ingesttest.RealExports(t) {
		d := filepath.Join(t.TempDir(), "t")
		if _, err := WriteFiles([]ingest.Input{{Path: p}}, d, ingest.FormatParquet, nil); err != nil {
			continue
		}
		for _, n := range ingest.TableNames {
			r := readParquetRecord(t, filepath.Join(d, n+".parquet"))
			for i, c := range ingest.Columns(n) {
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
// as ingest.ReadDir reads it; the caller releases it.
func readParquetRecord(t *testing.T, path string) arrow.RecordBatch {
	t.Helper()
	table := strings.TrimSuffix(filepath.Base(path), ".parquet")
	var skip []string
	for _, n := range ingest.TableNames {
		if n != table {
			skip = append(skip, n)
		}
	}
	tb, err := ingest.ReadDirExcept(filepath.Dir(path), skip, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	rec := tb.Record(table)
	rec.Retain()
	return rec
}
