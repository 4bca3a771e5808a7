//go:build cgo

package nsys

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// The tables a mutation may touch, and how: what the nsys parser reads.
var nsysFuzzTables = []string{
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "StringIds",
	"TARGET_INFO_GPU", "ThreadNames",
}

// nsysMutation is one change to a copy of a real export: a value of a
// column set to NULL, an integer or a text in the rows selected by rowid
// modulo, those rows deleted, the table dropped, or bytes of the file
// overwritten (a damaged file).
type nsysMutation struct {
	table, column, mod, rest, kind int
	ival                           int64
	sval                           string
}

func (m nsysMutation) apply(tb testing.TB, path string) {
	if m.kind%6 == 5 {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		off := int(uint64(m.ival) % uint64(len(data)))
		copy(data[off:], m.sval)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	table := nsysFuzzTables[abs(m.table)%len(nsysFuzzTables)]
	var cols []string
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			tb.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if len(cols) == 0 {
		return
	}
	col := cols[abs(m.column)%len(cols)]
	mod := abs(m.mod)%7 + 1
	where := fmt.Sprintf("rowid %% %d = %d", mod, abs(m.rest)%mod)
	var q string
	var args []any
	switch m.kind % 6 {
	case 0:
		q = fmt.Sprintf(`UPDATE %s SET "%s" = NULL WHERE %s`, table, col, where)
	case 1:
		q, args = fmt.Sprintf(`UPDATE %s SET "%s" = ? WHERE %s`, table, col, where), []any{m.ival}
	case 2:
		q, args = fmt.Sprintf(`UPDATE %s SET "%s" = ? WHERE %s`, table, col, where), []any{m.sval}
	case 3:
		q = fmt.Sprintf(`DELETE FROM %s WHERE %s`, table, where)
	default:
		q = fmt.Sprintf(`DROP TABLE %s`, table)
	}
	// A mutation SQLite itself refuses (a constraint) is no test of the parser.
	_, _ = db.Exec(q, args...)
}

func abs(i int) int {
	if i < 0 {
		return -(i + 1)
	}
	return i
}

// FuzzNsysSQLite mutates a copy of a real nsys export (the DLProf one in
// testdata/realdata) and ingests it both ways, in memory (File) and
// streamed (WriteFiles): neither may panic, and the two must agree: both
// refuse it, or both give the same number of rows in every table.
func FuzzNsysSQLite(f *testing.F) {
	src := nsysRealdata + "DLProf/nsys_profile.sqlite"
	for _, m := range []nsysMutation{
		{table: 0, column: 0, kind: 0},                      // kernel start NULL
		{table: 0, column: 1, kind: 1, ival: -5},            // kernel end before its start
		{table: 0, column: 5, kind: 1, ival: 1 << 40},       // correlation ids no call has
		{table: 0, column: 7, kind: 1, ival: 99999},         // a name id StringIds lacks
		{table: 0, column: 13, kind: 2, sval: "wide"},       // text in gridX
		{table: 1, column: 0, mod: 2, kind: 3},              // half the runtime calls gone
		{table: 2, column: 0, kind: 4},                      // no NVTX_EVENTS table
		{table: 2, column: 2, kind: 0},                      // NVTX text NULL
		{table: 3, column: 1, kind: 2, sval: "\x00\xff"},    // odd bytes in names
		{table: 4, column: 0, kind: 4},                      // no TARGET_INFO_GPU
		{kind: 5, ival: 200000, sval: "garbage!"},           // a damaged page
		{kind: 5, ival: 0, sval: "not sqlite"},              // a damaged header
		{table: 0, column: 0, kind: 1, ival: math.MinInt64}, // kernel start -2^63, not NULL
	} {
		f.Add(m.table, m.column, m.mod, m.rest, m.kind, m.ival, m.sval)
	}
	f.Fuzz(func(t *testing.T, table, column, mod, rest, kind int, ival int64, sval string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.sqlite")
		ingesttest.CopyFile(t, src, path, -1)
		nsysMutation{table, column, mod, rest, kind, ival, sval}.apply(t, path)
		mem := memory.NewGoAllocator()
		inMem, err1 := ingesttest.File(parseExport, path, ingest.Options{}, mem)
		w, err2 := ingesttest.WriteFiles(parseExport, []ingest.Input{{Path: path}}, filepath.Join(dir, "tables"), ingest.FormatParquet, mem)
		var we *ingest.WriteError
		if errors.As(err2, &we) {
			t.Fatalf("streamed write failed on a readable input: %v", err2)
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("the two paths disagree: in memory %v, streamed %v", err1, err2)
		}
		if err1 != nil {
			t.Logf("refused both ways: %v", err1)
			return
		}
		defer inMem.Release()
		t.Logf("%d kernels both ways", inMem.NumRows(ingest.TableKernels))
		for _, n := range ingest.TableNames {
			if inMem.NumRows(n) != w.Rows[n] {
				t.Errorf("table %s: %d rows in memory, %d streamed", n, inMem.NumRows(n), w.Rows[n])
			}
		}
	})
}
