//go:build cgo

package nsys

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// nsysRefusal ingests the synthetic export after the SQL in update and
// checks that it is refused as bad input naming the file, table and every
// text of want, and none of notWant.
func nsysRefusal(t *testing.T, update, table string, want []string, notWant ...string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hostile.sqlite")
	synthDB(t, p, true)
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(update); err != nil {
		t.Fatal(err)
	}
	db.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
	if err == nil {
		defer tb.Release()
		t.Fatalf("no error; kernels %v", tb.Kernels())
	}
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.File != p || ie.Table != table {
		t.Fatalf("err = %v, want an InputError naming %s and table %q", err, p, table)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %q, want it to contain %q", err, w)
		}
	}
	for _, w := range notWant {
		if strings.Contains(err.Error(), w) {
			t.Errorf("err = %q, want it not to contain %q", err, w)
		}
	}
}

// A kernel start SQLite holds as -2^63 (the reader's stand-in for NULL)
// or as a REAL that is no 64-bit integer (1e30) or not a whole number
// (273296630.9 ns) is refused, naming the value, not called NULL nor
// truncated to 273296630.
func TestNsysStartValues(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        []string
	}{
		{"min int64", "-9223372036854775808", []string{"column start", "-9223372036854775808", "-2^63"}},
		{"real 1e30", "1e30", []string{"column start", "REAL 1e+30", "out of the range of a 64-bit integer"}},
		{"real fraction", "273296630.9", []string{"column start", "REAL 273296630.9", "not a whole number"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			nsysRefusal(t, `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = `+c.value+` WHERE rowid = 3`, tabKernel, c.want, "is NULL")
		})
	}
	// A REAL that is a whole number (nsys never writes one, but SQLite
	// may hold 600.0 for 600) is that integer: kernel 3 starts at 600 as
	// synthDB writes it.
	p := filepath.Join(t.TempDir(), "real.sqlite")
	synthDB(t, p, true)
	db, _ := sql.Open("sqlite3", p)
	if _, err := db.Exec(`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = CAST(600 AS REAL) WHERE rowid = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tb := ingesttest.Ingest(t, parseExport, p, ingest.Options{})
	if k := tb.Kernels()[2]; k.StartNs != 600 || k.DurationNs != 10 {
		t.Errorf("kernel 3: start %d duration %d, want 600 and 10", k.StartNs, k.DurationNs)
	}
}

// A StringIds table (here without its primary key) that gives an id twice
// is refused: a kernel named by id 1 would be either name.
func TestNsysStringIdTwice(t *testing.T) {
	nsysRefusal(t, `ALTER TABLE StringIds RENAME TO s0; CREATE TABLE StringIds (id INT, value TEXT);
		INSERT INTO StringIds SELECT * FROM s0; INSERT INTO StringIds VALUES (1, 'another name'); DROP TABLE s0`,
		tabStrings, []string{"id 1 is given 2 times"})
}

// A StringIds value or an NVTX text past 1 MiB (1048578 bytes: hex of a
// 524289-byte blob) is refused naming the limit, without being read.
func TestNsysStringLimit(t *testing.T) {
	const big = `replace(hex(zeroblob(524289)), '0', 'x')`
	nsysRefusal(t, `UPDATE StringIds SET value = `+big+` WHERE id = 1`, tabStrings, []string{"id 1", "1048578 bytes", "limit of 1 MiB"})
	nsysRefusal(t, `UPDATE NVTX_EVENTS SET text = `+big+` WHERE text = 'fused'`, tabNVTX, []string{"1048578 bytes", "limit of 1 MiB"})
}

// NVTX ranges nested 1001 deep are refused at the depth limit (1000); a
// chain 1000 deep is read, its innermost range at depth 999.
func TestNsysNestDepth(t *testing.T) {
	const gA = int64(100)<<24 | 101
	chain := func(n int) string {
		return fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d)
			INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) SELECT 3000+i, 100000-i, 59, 'level', %d, 0 FROM c`, n-1, gA)
	}
	nsysRefusal(t, chain(1001), tabNVTX, []string{"nested 1001 deep", "limit of 1000 levels"})
	p := filepath.Join(t.TempDir(), "deep.sqlite")
	synthDB(t, p, true)
	db, _ := sql.Open("sqlite3", p)
	if _, err := db.Exec(chain(1000)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tb := ingesttest.Ingest(t, parseExport, p, ingest.Options{})
	deepest := int32(-1)
	for _, r := range tb.Ranges() {
		deepest = max(deepest, r.Depth)
	}
	if deepest != 999 {
		t.Errorf("deepest range at depth %d, want 999", deepest)
	}
}

// DLProf's own database (read_only_* tables, no nsys kernel table) is
// named as such, not called "not an Nsight Systems export".
func TestDLProfDatabase(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dlprof_dldb.sqlite")
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE read_only_kernels (id INT, name TEXT)`, `CREATE TABLE read_only_ops (id INT)`, `CREATE TABLE domains (id INT)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	_, err = ingesttest.File(parseExport, p, ingest.Options{}, memory.NewGoAllocator())
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.File != p || !strings.Contains(err.Error(), "a DLProf database (tables read_only_kernels, read_only_ops)") ||
		!strings.Contains(err.Error(), "ingest the nsys export") {
		t.Fatalf("err = %v, want an InputError naming a DLProf database", err)
	}
}

// A meta value past 1 MiB is refused naming the table, without being read.
func TestNsysMetaLimit(t *testing.T) {
	nsysRefusal(t, `UPDATE META_DATA_EXPORT SET value = replace(hex(zeroblob(524289)), '0', 'x')`, "META_DATA_EXPORT", []string{"row id 1", "1048578 bytes", "limit of 1 MiB"})
}
