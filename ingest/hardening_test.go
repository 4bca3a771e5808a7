package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Writing one format over a directory that holds the other replaces the
// whole table set: no table of the old format is left for readers.
func TestWriteReplacesOtherFormat(t *testing.T) {
	for _, c := range [][2]string{{FormatParquet, FormatArrow}, {FormatArrow, FormatParquet}} {
		t.Run(c[0]+"-then-"+c[1], func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := filepath.Join(t.TempDir(), "out")
			old := sampleTables(t, mem)
			defer old.Release()
			if err := old.Write(dir, c[0]); err != nil {
				t.Fatal(err)
			}
			// The second set differs: one kernel only.
			b := NewBuilder(mem)
			b.AddKernel(Kernel{Source: SourceNCU, File: "new.csv", Pass: PassKernel, Name: "new", ShortName: "new"})
			nt := b.Finish()
			b.Release()
			defer nt.Release()
			if err := nt.Write(dir, c[1]); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
				if strings.HasSuffix(e.Name(), "."+c[0]) {
					t.Errorf("stale %s left in %s", e.Name(), dir)
				}
			}
			if len(ents) != len(TableNames) {
				t.Errorf("dir holds %v, want the %d tables only", names, len(TableNames))
			}
			if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
				t.Errorf("parent holds %d entries, want only %s (temp dir left behind?)", len(ents), dir)
			}
			got, err := ReadDir(dir, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if n := got.NumRows(TableKernels); n != 1 {
				t.Errorf("read %d kernels, want the 1 of the new set", n)
			}
		})
	}
}

// A directory holding both formats of one table is refused, naming both.
func TestReadDirBothFormats(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := sampleTables(t, mem)
	defer tb.Release()
	dir, other := t.TempDir(), t.TempDir()
	if err := tb.Write(dir, FormatParquet); err != nil {
		t.Fatal(err)
	}
	if err := tb.Write(other, FormatArrow); err != nil {
		t.Fatal(err)
	}
	arrowFile, err := os.ReadFile(filepath.Join(other, "metrics.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.arrow"), arrowFile, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(dir, mem)
	if err == nil {
		got.Release()
		t.Fatal("ReadDir read a directory with metrics.parquet and metrics.arrow")
	}
	for _, want := range []string{filepath.Join(dir, "metrics.parquet"), filepath.Join(dir, "metrics.arrow")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to name %s", err, want)
		}
	}
}
