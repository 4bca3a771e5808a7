//go:build cgo

package nsys

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// Negative kernel durations and counts in an nsys export are errors naming
// the table, the row id and the column.
func TestNsysImpossibleValues(t *testing.T) {
	for _, c := range []struct {
		name, update, col, table string
	}{
		{"end before start", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 5 WHERE rowid = 3`, `"end"`, tabKernel},
		{"negative grid", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = -1 WHERE rowid = 3`, `"gridX"`, tabKernel},
		{"negative block", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET blockY = -2 WHERE rowid = 3`, `"blockY"`, tabKernel},
		{"negative shared", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET dynamicSharedMemory = -1024 WHERE rowid = 3`, `"dynamicSharedMemory"`, tabKernel},
		{"negative registers", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET registersPerThread = -32 WHERE rowid = 3`, `"registersPerThread"`, tabKernel},
		{"nvtx end before start", `UPDATE NVTX_EVENTS SET end = start - 1 WHERE rowid = 3`, `"end"`, tabNVTX},
		{"graph end before start", `CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INT, end INT, correlationId INT, globalPid INT, graphId INT);
			INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (10, 20, 1, 0, 1), (30, 25, 2, 0, 1), (40, 50, 3, 0, 1)`, `"end"`, tabGraph},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "neg.sqlite")
			synthDB(t, p, true)
			db, err := sql.Open("sqlite3", p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(c.update); err != nil {
				t.Fatal(err)
			}
			db.Close()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
			if err == nil {
				tb.Release()
				t.Fatal("no error")
			}
			var ie *ingest.InputError
			if !errors.As(err, &ie) || ie.File != p || ie.Table != c.table {
				t.Fatalf("err = %v, want an InputError naming %s and table %s", err, p, c.table)
			}
			row := "row id 3"
			if c.table == tabGraph {
				row = "row id 2"
			}
			for _, w := range []string{row, c.col, "negative"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// A kernel whose name id has no StringIds row gets a name marked unknown
// (one per missing id) and a warning meta row, not an empty name.
func TestNsysMissingStringID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nostring.sqlite")
	synthDB(t, p, true)
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM StringIds WHERE id IN (4, 5)`); err != nil { // k2's demangled and short names
		t.Fatal(err)
	}
	db.Close()
	tb := ingesttest.Ingest(t, parseExport, p, ingest.Options{})
	var unknown int
	for _, k := range tb.Kernels() {
		if k.Name == "" || k.ShortName == "" {
			t.Errorf("kernel %d has an empty name: %+v", k.ID, k)
		}
		if strings.Contains(k.Name, "unknown") {
			unknown++
			if !strings.Contains(k.Name, "4") || !strings.Contains(k.ShortName, "5") {
				t.Errorf("kernel %d: name %q short %q, want them to carry the missing ids 4 and 5", k.ID, k.Name, k.ShortName)
			}
		}
	}
	if unknown != 5 {
		t.Errorf("%d kernels marked unknown, want 5", unknown)
	}
	var warned bool
	for _, m := range tb.Metas() {
		if m.Key == "warning" && strings.Contains(m.Value, tabStrings) && strings.Contains(m.Value, "4") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning meta row names the missing StringIds id; metas: %+v", tb.Metas())
	}
}
