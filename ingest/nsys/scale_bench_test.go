//go:build cgo

package nsys

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// BenchmarkNsysScale ingests and summarises the realistic NVTX replicas of
// the DLProf export (makeNVTXReplica: kernels, every runtime call and the
// NVTX ranges copied, each copy shifted in time) of about 1M and 10M
// kernels, and 100M with ROOFTOOL_BENCH_100M=1 (an export of about 80 GB made on
// demand; never in CI), with the rooftool binary, and sets beside each
// figure the same machine's reference in the same run. Each command is a
// child process: wall time, CPU time (user + system) and peak RSS from its
// rusage.
//
//	ingest     rooftool ingest FILE -o DIR
//	join       sqlite3 -readonly FILE < nsysJoinQuery > /dev/null: the joins
//	           ingest does (kernels x StringIds x runtime calls), rows out
//	stats      rooftool stats FILE --format csv (NVTX attribution included)
//	groupby    Python sqlite3: the same joins grouped by kernel name
//	           (count, sum, min, max, mean, sum of squares)
//	stats-dir  rooftool stats DIR --format csv over the ingested tables
//	duckdb     DuckDB's GROUP BY (range, name) with the same figures
//	           (median included) over kernels.parquet (python3 -m duckdb):
//	           duckdb-s is the query alone, the rest the whole process
//
// Ratios: ingest-cpu/join-cpu, stats/groupby (wall), stats-dir/duckdb
// (wall against the query alone). The exports are kept under
// NSYS_BENCH_DIR (default: the temporary directory's rooftool-bench); a
// missing sqlite3, python3 or duckdb leaves its figures out.
func BenchmarkNsysScale(b *testing.B) {
	bin := buildRooftool(b)
	dir := os.Getenv("NSYS_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "rooftool-bench")
	}
	for _, c := range []struct {
		name   string
		copies int
	}{{"1M", 21_700}, {"10M", 217_000}, {"100M", 2_170_000}} {
		b.Run(c.name, func(b *testing.B) {
			if c.copies > 217_000 && os.Getenv("ROOFTOOL_BENCH_100M") == "" {
				b.Skip("set ROOFTOOL_BENCH_100M=1 to make and ingest the export of about 80 GB")
			}
			path := filepath.Join(dir, "nvtx"+strings.ToLower(c.name)+".sqlite")
			makeNVTXReplica(b, path, c.copies)
			out := filepath.Join(b.TempDir(), "tables")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				os.RemoveAll(out)
				var line []string
				report := func(what string, r run) {
					b.ReportMetric(r.wall.Seconds(), what+"-s")
					b.ReportMetric(r.cpu.Seconds(), what+"-cpu-s")
					b.ReportMetric(float64(r.rss)/(1<<20), what+"-peak-MB")
					line = append(line, fmt.Sprintf("%s %.2f s (cpu %.2f s, peak %.0f MB)", what, r.wall.Seconds(), r.cpu.Seconds(), float64(r.rss)/(1<<20)))
				}
				ratio := func(what string, v float64) {
					b.ReportMetric(v, what)
					line = append(line, fmt.Sprintf("%s %.2f", what, v))
				}
				ingest := runTimed(b, "", bin, "ingest", path, "-o", out)
				report("ingest", ingest)
				if _, err := exec.LookPath("sqlite3"); err == nil {
					join := runTimed(b, nsysJoinQuery, "sqlite3", "-readonly", path)
					report("join", join)
					ratio("ingest-cpu/join-cpu", ingest.cpu.Seconds()/join.cpu.Seconds())
				}
				stats := runTimed(b, "", bin, "stats", path, "--format", "csv")
				report("stats", stats)
				if _, err := exec.LookPath("python3"); err == nil {
					gb := runTimed(b, "", "python3", "-c", pyGroupBy, path)
					report("groupby", gb)
					ratio("stats/groupby", stats.wall.Seconds()/gb.wall.Seconds())
				}
				sd := runTimed(b, "", bin, "stats", out, "--format", "csv")
				report("stats-dir", sd)
				if q, r, ok := duckdbStats(b, filepath.Join(out, "kernels.parquet")); ok {
					report("duckdb", r)
					b.ReportMetric(q.Seconds(), "duckdb-query-s")
					line = append(line, fmt.Sprintf("duckdb query %.2f s", q.Seconds()))
					ratio("stats-dir/duckdb", sd.wall.Seconds()/q.Seconds())
				}
				b.Log(c.name + " NVTX replica: " + strings.Join(line, "; "))
			}
		})
	}
}

// makeNVTXReplica builds (or reuses) an export of the DLProf export and
// copies more of its kernels, runtime calls and NVTX events: copy i
// shifted by i times the span
// of the source (at least 0.1 s) and its correlation ids by i*1e6, so that
// each copy's kernels fall inside its own copy of the ranges, the copies
// one after another (the tables stay in start order, as nsys writes them).
// 21,700 copies give 998,246 kernels, 6.05M runtime calls and 1.78M NVTX
// events.
func makeNVTXReplica(tb testing.TB, path string, copies int) {
	tb.Helper()
	src := nsysRealdata + "DLProf/nsys_profile.sqlite"
	want := 46 * (copies + 1)
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		if db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro"); err == nil {
			var have int
			err = db.QueryRow(`SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL`).Scan(&have)
			db.Close()
			if err == nil && have == want {
				return
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp := path + ".tmp"
	ingesttest.CopyFile(tb, src, tmp, -1)
	db, err := sql.Open("sqlite3", tmp)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the TEMP tables live on one connection
	exec := func(q string) {
		tb.Helper()
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	exec(`PRAGMA journal_mode=OFF`)
	exec(`PRAGMA synchronous=OFF`)
	tables := []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"}
	var lo, hi int64
	for i, t := range tables {
		var a, z int64
		if err := db.QueryRow(`SELECT min(start), max(coalesce(end, start)) FROM `+t).Scan(&a, &z); err != nil {
			tb.Fatal(err)
		}
		if i == 0 || a < lo {
			lo = a
		}
		hi = max(hi, z)
	}
	step := max(int64(100_000_000), hi-lo+1_000_000)
	for _, t := range tables {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, t)
		if err != nil {
			tb.Fatal(err)
		}
		var cols, sel []string
		for rows.Next() {
			var c string
			rows.Scan(&c)
			cols = append(cols, `"`+c+`"`)
			switch c {
			case "start", "end":
				sel = append(sel, fmt.Sprintf(`"%s" + i * %d`, c, step))
			case "correlationId":
				sel = append(sel, `correlationId + i * 1000000`)
			default:
				sel = append(sel, `"`+c+`"`)
			}
		}
		rows.Close()
		exec(`CREATE TEMP TABLE base_` + t + ` AS SELECT * FROM ` + t)
		exec(fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d)
			INSERT INTO %s (%s) SELECT %s FROM s CROSS JOIN base_%s`, copies, t, strings.Join(cols, ", "), strings.Join(sel, ", "), t))
	}
	db.Close()
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
}

// nsysJoinQuery is the ingest reference: the joins ingest makes, the
// kernels with their three names and their launching runtime call (same
// correlation id, same process), every row printed.
const nsysJoinQuery = `SELECT k.start, k.end, k.deviceId, k.contextId, k.streamId, k.correlationId, k.globalPid,
 d.value, s.value, m.value, k.registersPerThread, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ,
 k.staticSharedMemory, k.dynamicSharedMemory, k.graphNodeId, r.globalTid
FROM CUPTI_ACTIVITY_KIND_KERNEL k
LEFT JOIN StringIds d ON d.id = k.demangledName
LEFT JOIN StringIds s ON s.id = k.shortName
LEFT JOIN StringIds m ON m.id = k.mangledName
LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId
 AND r.globalTid / 16777216 % 16777216 = k.globalPid / 16777216 % 16777216;`

// pyGroupBy is the stats reference: the same joins in Python's sqlite3,
// grouped by kernel name.
const pyGroupBy = `import sqlite3, sys
con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
rows = con.execute("""SELECT d.value, count(*), sum(k.end - k.start), min(k.end - k.start), max(k.end - k.start),
 avg(k.end - k.start), sum((k.end - k.start) * (k.end - k.start)), count(r.globalTid)
FROM CUPTI_ACTIVITY_KIND_KERNEL k
JOIN StringIds d ON d.id = k.demangledName
LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId
 AND r.globalTid / 16777216 % 16777216 = k.globalPid / 16777216 % 16777216
GROUP BY d.value""").fetchall()
assert rows`

// buildRooftool builds the rooftool binary into a temporary directory.
func buildRooftool(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "rooftool")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/rooftool")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// run is what a child process took: wall time, CPU time (user + system)
// and peak resident set in bytes.
type run struct {
	wall, cpu time.Duration
	rss       int64
}

// runTimed runs a command with stdin (if any) and stdout to /dev/null.
func runTimed(b *testing.B, stdin, name string, args ...string) run {
	b.Helper()
	r, _ := runOut(b, stdin, false, name, args...)
	return r
}

// runOut is runTimed, with the command's output when keep is set.
func runOut(b *testing.B, stdin string, keep bool, name string, args ...string) (run, string) {
	b.Helper()
	cmd := exec.Command(name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr strings.Builder
	if keep {
		cmd.Stdout = &stdout
	}
	cmd.Stderr = &stderr
	// The child starts as a copy of this process, whose resident set its
	// peak would count: hand freed memory back first.
	debug.FreeOSMemory()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	r := run{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return r, stdout.String()
}

// duckdbStatsQuery is the summary stats prints, in DuckDB's SQL: per range
// path (else innermost range) and name (else short name, else mangled),
// the kernels' total, count, mean, median, min, max and sample standard
// deviation of duration_ns, over the timeline rows.
const duckdbStatsQuery = `SELECT coalesce(nullif(range_path, ''), nullif("range", ''), '') AS rng,
 coalesce(nullif(name, ''), nullif(short_name, ''), nullif(mangled, ''), '') AS nm,
 sum(duration_ns), count(*), avg(duration_ns), median(duration_ns), min(duration_ns), max(duration_ns),
 stddev_samp(duration_ns)
FROM read_parquet(?) WHERE pass = 'timeline' GROUP BY 1, 2`

// duckdbStats runs duckdbStatsQuery over the kernels file in a Python with
// the duckdb module and returns the query's time and the whole process's
// figures; false when there is no duckdb.
func duckdbStats(b *testing.B, kernels string) (time.Duration, run, bool) {
	b.Helper()
	script := `import sys, time, duckdb
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
t = time.perf_counter()
rows = con.execute(sys.argv[2], [sys.argv[1]]).fetchall()
print(time.perf_counter() - t, len(rows))`
	if exec.Command("python3", "-c", "import duckdb").Run() != nil {
		return 0, run{}, false
	}
	r, out := runOut(b, "", true, "python3", "-c", script, kernels, duckdbStatsQuery)
	var secs float64
	var rows int
	if _, err := fmt.Sscan(out, &secs, &rows); err != nil || rows == 0 {
		b.Fatalf("duckdb printed %q", out)
	}
	return time.Duration(secs * float64(time.Second)), r, true
}

// BenchmarkStatsTables100M summarises a tables directory of about 100M
// kernels (makeKernelCopies: the kernels ingested from the 1M-kernel NVTX
// replica, copied a hundred times; a 0.5 GB kernels.parquet) with rooftool
// stats beside DuckDB's GROUP BY over the same file, as BenchmarkNsysScale
// does for its tables. Only with ROOFTOOL_BENCH_100M=1: making the
// directory takes minutes.
func BenchmarkStatsTables100M(b *testing.B) {
	if os.Getenv("ROOFTOOL_BENCH_100M") == "" {
		b.Skip("set ROOFTOOL_BENCH_100M=1 to make and summarise the 100M-kernel tables")
	}
	bin := buildRooftool(b)
	dir := os.Getenv("NSYS_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "rooftool-bench")
	}
	src := filepath.Join(dir, "nvtx1m.sqlite")
	makeNVTXReplica(b, src, 21_700)
	t1 := filepath.Join(dir, "tables-nvtx1m")
	if _, err := os.Stat(filepath.Join(t1, "kernels.parquet")); err != nil {
		runTimed(b, "", bin, "ingest", src, "-o", t1)
	}
	out := filepath.Join(dir, "tables-100m")
	makeKernelCopies(b, t1, out, 100)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sd := runTimed(b, "", bin, "stats", out, "--format", "csv")
		b.ReportMetric(sd.wall.Seconds(), "stats-dir-s")
		b.ReportMetric(sd.cpu.Seconds(), "stats-dir-cpu-s")
		b.ReportMetric(float64(sd.rss)/(1<<20), "stats-dir-peak-MB")
		line := fmt.Sprintf("100M tables: stats-dir %.2f s (cpu %.2f s, peak %.0f MB)", sd.wall.Seconds(), sd.cpu.Seconds(), float64(sd.rss)/(1<<20))
		if q, r, ok := duckdbStats(b, filepath.Join(out, "kernels.parquet")); ok {
			b.ReportMetric(q.Seconds(), "duckdb-query-s")
			b.ReportMetric(float64(r.rss)/(1<<20), "duckdb-peak-MB")
			b.ReportMetric(sd.wall.Seconds()/q.Seconds(), "stats-dir/duckdb")
			line += fmt.Sprintf("; duckdb query %.2f s (process cpu %.2f s, peak %.0f MB); stats-dir/duckdb %.2f",
				q.Seconds(), r.cpu.Seconds(), float64(r.rss)/(1<<20), sd.wall.Seconds()/q.Seconds())
		}
		b.Log(line)
	}
}

// makeKernelCopies writes under dir (unless it holds them already) the
// kernels of the tables under src copied n times, streamed as WriteFiles
// streams them (ingest.Stream); the other tables are empty.
func makeKernelCopies(tb testing.TB, src, dir string, n int) {
	tb.Helper()
	done := filepath.Join(dir, ".copies")
	if b, err := os.ReadFile(done); err == nil && string(b) == fmt.Sprint(n) {
		return
	}
	t, err := ingest.ReadDir(src, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ks := t.Kernels()
	t.Release()
	fill := func(b *ingest.Builder) error {
		for range n {
			for i := range ks {
				b.AddKernel(ks[i])
			}
		}
		return nil
	}
	if _, err := ingest.Stream(dir, ingest.FormatParquet, nil, nil, fill); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(done, []byte(fmt.Sprint(n)), 0o644); err != nil {
		tb.Fatal(err)
	}
}
