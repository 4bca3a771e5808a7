//go:build cgo

package nsys

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
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

// makeNsys1M builds (or reuses) the 1,000,000-kernel export at path.
func makeNsys1M(tb testing.TB, path string) { makeNsysReplica(tb, path, nsys1MKernels) }

// makeNsysReplica builds an nsys export with n kernel rows by replicating
// the 46 kernels (and their runtime calls, with fresh correlation ids) of
// the DLProf export, NVTX ranges included. An export already at path with n
// kernels is kept.
func makeNsysReplica(tb testing.TB, path string, n int) {
	tb.Helper()
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
		if err == nil {
			var have int
			err = db.QueryRow(`SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL`).Scan(&have)
			db.Close()
			if err == nil && have == n {
				return
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp := path + ".tmp"
	ingesttest.CopyFile(tb, nsysRealdata+"DLProf/nsys_profile.sqlite", tmp, -1)
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
	if n <= base {
		tb.Fatalf("makeNsysReplica: %d kernels asked, the DLProf export alone has %d", n, base)
	}
	reps := (n - base + base - 1) / base
	for _, q := range []string{
		`PRAGMA journal_mode=OFF`, `PRAGMA synchronous=OFF`,
		`CREATE TEMP TABLE k0 AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL`,
		`CREATE TEMP TABLE r0 AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IN (SELECT correlationId FROM k0)`,
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d)
			INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT %s FROM n, k0 t ORDER BY n.i LIMIT %d`, reps, sel("CUPTI_ACTIVITY_KIND_KERNEL"), n-base),
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
// the tables as Parquet (WriteFiles, as rooftool ingest does). BenchmarkNsys1MQuery reads the same kernels with
// the plain kernels-join-StringIds query (nsysKernelQuery).
func BenchmarkNsys1M(b *testing.B) {
	path := nsys1MPath()
	makeNsys1M(b, path)
	out := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := ingesttest.WriteFiles(parseExport, []ingest.Input{{Path: path}}, out, ingest.FormatParquet, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n := w.Rows[ingest.TableKernels]; n != nsys1MKernels {
			b.Fatalf("%d kernels", n)
		}
	}
}

// nsysKernelQuery is the reference query: the kernel table joined with
// StringIds, the plain SQL that the ingest's packed kernel query has to
// agree with (TestNsysReplicaMatchesQuery) and to be compared with for speed
// (BenchmarkNsys1MQuery; from a shell the same text runs as
// sqlite3 -readonly nsys1m.sqlite "<query>" > /dev/null).
const nsysKernelQuery = `SELECT k.start, k.end, k.deviceId, k.contextId, k.streamId, k.correlationId, k.globalPid,
 d.value, s.value, m.value, k.registersPerThread, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ,
 k.staticSharedMemory, k.dynamicSharedMemory, k.graphNodeId
FROM CUPTI_ACTIVITY_KIND_KERNEL k
LEFT JOIN StringIds d ON d.id = k.demangledName
LEFT JOIN StringIds s ON s.id = k.shortName
LEFT JOIN StringIds m ON m.id = k.mangledName;`

// queryRows runs nsysKernelQuery over the export at path and returns its
// rows as Kernels (the fields the query selects; the rest left zero).
func queryRows(tb testing.TB, path string) []ingest.Kernel {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(nsysKernelQuery)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []ingest.Kernel
	for rows.Next() {
		var k ingest.Kernel
		var end, gpid int64
		var dev, regs, gx, gy, gz, bx, by, bz int64
		var name, short, mangled sql.NullString
		var graph sql.NullInt64
		if err := rows.Scan(&k.StartNs, &end, &dev, &k.Context, &k.Stream, &k.CorrelationID, &gpid,
			&name, &short, &mangled, &regs, &gx, &gy, &gz, &bx, &by, &bz,
			&k.StaticSharedBytes, &k.DynSharedBytes, &graph); err != nil {
			tb.Fatal(err)
		}
		k.DurationNs = end - k.StartNs
		k.Device, k.Registers = int32(dev), int32(regs)
		k.GridX, k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ = int32(gx), int32(gy), int32(gz), int32(bx), int32(by), int32(bz)
		k.Name, k.ShortName, k.Mangled = name.String, short.String, mangled.String
		if graph.Valid && graph.Int64 != 0 {
			g := graph.Int64
			k.GraphNodeID = &g
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// The ingest of a replicated export (the generator BenchmarkNsys1M uses, at
// 100 copies of the DLProf export's 46 kernels) gives exactly the rows the
// plain reference query gives: every kernel, with the same name, times,
// launch configuration and stream, keyed by its correlation id. Every copy
// of a kernel is tied to its own runtime call, so it carries the thread and
// NVTX range of the original kernel.
func TestNsysReplicaMatchesQuery(t *testing.T) {
	const n = 4600
	path := filepath.Join(t.TempDir(), "replica.sqlite")
	makeNsysReplica(t, path, n)
	want := queryRows(t, path)
	if len(want) != n {
		t.Fatalf("reference query: %d kernels, want %d", len(want), n)
	}
	tb, err := ingesttest.File(parseExport, path, ingest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	got := tb.Kernels()
	if len(got) != n {
		t.Fatalf("ingest: %d kernels, want %d", len(got), n)
	}
	byCorr := map[int64]ingest.Kernel{}
	for _, k := range got {
		if _, dup := byCorr[k.CorrelationID]; dup {
			t.Fatalf("ingest: correlation id %d twice", k.CorrelationID)
		}
		byCorr[k.CorrelationID] = k
	}
	var sumWant, sumGot int64
	bad := 0
	for _, w := range want {
		g, ok := byCorr[w.CorrelationID]
		if !ok {
			t.Fatalf("ingest lacks the kernel with correlation id %d", w.CorrelationID)
		}
		sumWant += w.DurationNs
		sumGot += g.DurationNs
		same := g.Name == w.Name && g.ShortName == w.ShortName && g.Mangled == w.Mangled &&
			g.StartNs == w.StartNs && g.DurationNs == w.DurationNs && g.Device == w.Device &&
			g.Context == w.Context && g.Stream == w.Stream && g.Registers == w.Registers &&
			g.GridX == w.GridX && g.GridY == w.GridY && g.GridZ == w.GridZ &&
			g.BlockX == w.BlockX && g.BlockY == w.BlockY && g.BlockZ == w.BlockZ &&
			g.StaticSharedBytes == w.StaticSharedBytes && g.DynSharedBytes == w.DynSharedBytes &&
			(g.GraphNodeID == nil) == (w.GraphNodeID == nil)
		if !same {
			if bad++; bad <= 3 {
				t.Errorf("correlation id %d:\n  query:  %s\n  ingest: %s", w.CorrelationID, ingesttest.KernelLine(w), ingesttest.KernelLine(g))
			}
		}
	}
	if bad > 3 {
		t.Errorf("... %d kernels differ in all", bad)
	}
	if sumGot != sumWant {
		t.Errorf("total kernel time: ingest %d ns, reference query %d ns", sumGot, sumWant)
	}
	// Copy i of a kernel has correlation id original + i*1e6: it must sit on
	// the original's thread and in the original's range.
	orig := map[int64]ingest.Kernel{}
	for _, k := range got {
		if k.CorrelationID < 1_000_000 {
			orig[k.CorrelationID] = k
		}
	}
	if len(orig) == 0 {
		t.Fatal("no original kernel (correlation id < 1e6) in the replica")
	}
	tied := 0
	for _, k := range got {
		o, ok := orig[k.CorrelationID%1_000_000]
		if !ok {
			t.Fatalf("kernel with correlation id %d has no original", k.CorrelationID)
		}
		if k.TID != o.TID || k.RangePath != o.RangePath {
			t.Fatalf("copy %d of kernel %d: thread %d range %q, the original's: thread %d range %q",
				k.CorrelationID/1_000_000, o.CorrelationID, k.TID, k.RangePath, o.TID, o.RangePath)
		}
		if k.TID != 0 {
			tied++
		}
	}
	if tied != n {
		t.Errorf("%d of %d kernels tied to a runtime call (thread id set), want all", tied, n)
	}
}

// BenchmarkNsys1MQuery runs the reference query over the 1,000,000-kernel
// export and reads every row into a Kernel through database/sql: the plain
// way of reading what BenchmarkNsys1M ingests (and writes as Parquet).
func BenchmarkNsys1MQuery(b *testing.B) {
	path := nsys1MPath()
	makeNsys1M(b, path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n := len(queryRows(b, path)); n != nsys1MKernels {
			b.Fatalf("%d kernels", n)
		}
	}
}
