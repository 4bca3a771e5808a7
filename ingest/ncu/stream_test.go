//go:build cgo

package ncu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

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
	ingesttest.SmallBatches(t)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.csv"), filepath.Join(dir, "bad.csv")
	os.WriteFile(good, []byte(longNCU(0, 1, 2, 3, 4)), 0o644)
	// Kernel 0's rows again after kernels 1 to 3 (12 rows, past 7): the
	// first row of the second run of kernel 0 is line 1 + 4*4 + 1 = 18.
	os.WriteFile(bad, []byte(longNCU(0, 1, 2, 3, 0)), 0o644)
	want, err := ingesttest.File(parseExport, good, ingest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if n := want.NumRows(ingest.TableKernels); n != 5 {
		t.Fatalf("%d kernels, want 5", n)
	}
	out := filepath.Join(dir, "tables")
	if _, err := ingesttest.WriteFiles(parseExport, []ingest.Input{{Path: good}}, out, ingest.FormatParquet, nil); err != nil {
		t.Fatal(err)
	}
	got, err := ingest.ReadDir(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	ingesttest.SameTables(t, good, want, got)
	tb, err := ingesttest.File(parseExport, bad, ingest.Options{}, nil)
	if err != nil {
		t.Fatalf("in memory: %v", err)
	}
	tb.Release()
	_, err = ingesttest.WriteFiles(parseExport, []ingest.Input{{Path: bad}}, filepath.Join(dir, "t2"), ingest.FormatParquet, nil)
	if err == nil || !strings.Contains(err.Error(), "bad.csv:18: rows of kernel 0 come back") {
		t.Errorf("streamed: %v, want an error at line 18", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "t2")); serr == nil {
		t.Error("a failed WriteFiles left its directory")
	}
}
