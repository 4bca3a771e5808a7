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

// A kernel row whose start or end is NULL has no duration: an error naming
// the table, the row id and the column, never a 0 ns kernel.
func TestNsysKernelNullTimes(t *testing.T) {
	for _, col := range []string{"end", "start"} {
		t.Run(col, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "null.sqlite")
			synthDB(t, p, true)
			db, err := sql.Open("sqlite3", p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "` + col + `" = NULL WHERE rowid = 3`); err != nil {
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
			if !errors.As(err, &ie) || ie.File != p || ie.Table != tabKernel {
				t.Fatalf("err = %v, want an InputError naming %s and table %s", err, p, tabKernel)
			}
			for _, w := range []string{"row id 3", `"` + col + `" is NULL`} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}
