//go:build cgo

package ingest

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nsys1MPath is where BenchmarkNsys1M keeps its generated export (not
// committed; about 100 MB). NSYS1M overrides it.
func nsys1MPath() string {
	if p := os.Getenv("NSYS1M"); p != "" {
		return p
	}
	return filepath.Join(os.TempDir(), "rooftool-bench", "nsys1m.sqlite")
}

const nsys1MKernels = 1_000_000

// makeNsys1M builds an nsys export with 1,000,000 kernel rows by
// replicating the 46 kernels (and their runtime calls, with fresh
// correlation ids) of the DLProf export, NVTX ranges included.
func makeNsys1M(tb testing.TB, path string) {
	tb.Helper()
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
		if err == nil {
			var n int
			err = db.QueryRow(`SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL`).Scan(&n)
			db.Close()
			if err == nil && n == nsys1MKernels {
				return
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp := path + ".tmp"
	copyFile(tb, nsysRealdata+"DLProf/nsys_profile.sqlite", tmp, -1)
	db, err := sql.Open("sqlite3", tmp)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	cols := func(table string) []string {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			tb.Fatal(err)
		}
		defer rows.Close()
		var c []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			c = append(c, n)
		}
		return c
	}
	sel := func(table string) string {
		var out []string
		for _, c := range cols(table) {
			if c == "correlationId" {
				out = append(out, `t.correlationId + n.i * 1000000`)
			} else {
				out = append(out, `t."`+c+`"`)
			}
		}
		return strings.Join(out, ", ")
	}
	var base int
	db.QueryRow(`SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL`).Scan(&base)
	reps := (nsys1MKernels - base + base - 1) / base
	for _, q := range []string{
		`PRAGMA journal_mode=OFF`, `PRAGMA synchronous=OFF`,
		`CREATE TEMP TABLE k0 AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL`,
		`CREATE TEMP TABLE r0 AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IN (SELECT correlationId FROM k0)`,
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d)
			INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT %s FROM n, k0 t ORDER BY n.i LIMIT %d`, reps, sel("CUPTI_ACTIVITY_KIND_KERNEL"), nsys1MKernels-base),
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d)
			INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT %s FROM n, r0 t`, reps, sel("CUPTI_ACTIVITY_KIND_RUNTIME")),
	} {
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkNsys1M ingests an nsys export with 1,000,000 kernels and writes
// the tables as Parquet. Compare with the sqlite3 CLI running the
// kernels-join-StringIds query (see nsys1MCLIQuery) to /dev/null.
func BenchmarkNsys1M(b *testing.B) {
	path := nsys1MPath()
	makeNsys1M(b, path)
	out := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tb, err := File(path, Options{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n := tb.NumRows(TableKernels); n != nsys1MKernels {
			b.Fatalf("%d kernels", n)
		}
		if err := tb.Write(out, FormatParquet); err != nil {
			b.Fatal(err)
		}
		tb.Release()
	}
}

// nsys1MCLIQuery is the reference query timed with the sqlite3 CLI:
//
//	time sqlite3 -readonly /tmp/rooftool-bench/nsys1m.sqlite "$(cat q.sql)" > /dev/null
const nsys1MCLIQuery = `SELECT k.start, k.end, k.deviceId, k.contextId, k.streamId, k.correlationId, k.globalPid,
 d.value, s.value, m.value, k.registersPerThread, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ,
 k.staticSharedMemory, k.dynamicSharedMemory, k.graphNodeId
FROM CUPTI_ACTIVITY_KIND_KERNEL k
LEFT JOIN StringIds d ON d.id = k.demangledName
LEFT JOIN StringIds s ON s.id = k.shortName
LEFT JOIN StringIds m ON m.id = k.mangledName;`

// TestNsys1MQuery writes the CLI reference query next to the generated
// export when NSYS1M_QUERY names a file (used to time the sqlite3 CLI).
func TestNsys1MQuery(t *testing.T) {
	p := os.Getenv("NSYS1M_QUERY")
	if p == "" {
		t.Skip("set NSYS1M_QUERY=file to write the sqlite3 CLI reference query")
	}
	if err := os.WriteFile(p, []byte(nsys1MCLIQuery+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
