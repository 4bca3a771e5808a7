//go:build cgo

package ingest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkNsysScale ingests replicated nsys exports (makeNsysReplica) of
// 1M and 10M kernels, and 100M with ROOFTOOL_BENCH_100M=1 (a 13 GB file made
// on demand; never in CI), with the rooftool binary, and sets beside each
// figure the same machine's reference in the same run:
//
//	ingest-s, ingest-peak-MB  rooftool ingest FILE -o DIR: wall time, peak RSS
//	join-s                    sqlite3 -readonly FILE '<nsysKernelQuery>' > /dev/null
//	ingest/join               the ratio of the two times
//	stats-s                   rooftool stats DIR --format csv > /dev/null
//	duckdb-s                  DuckDB's GROUP BY (range, name) with the same
//	                          figures over the same kernels.parquet, timed
//	                          around the query alone (python3 -m duckdb)
//	stats/duckdb              the ratio of the two times
//
// The exports are kept under NSYS_BENCH_DIR (default: the temporary
// directory's rooftool-bench); a missing sqlite3 or duckdb leaves its
// figures out.
func BenchmarkNsysScale(b *testing.B) {
	bin := buildRooftool(b)
	dir := os.Getenv("NSYS_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "rooftool-bench")
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"1M", 1_000_000}, {"10M", 10_000_000}, {"100M", 100_000_000}} {
		b.Run(c.name, func(b *testing.B) {
			if c.n > 10_000_000 && os.Getenv("ROOFTOOL_BENCH_100M") == "" {
				b.Skip("set ROOFTOOL_BENCH_100M=1 to make and ingest the 13 GB export")
			}
			path := filepath.Join(dir, "nsys"+strings.ToLower(c.name)+".sqlite")
			makeNsysReplica(b, path, c.n)
			out := filepath.Join(b.TempDir(), "tables")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				os.RemoveAll(out)
				ingest, rss := runTimed(b, "", bin, "ingest", path, "-o", out)
				b.ReportMetric(ingest.Seconds(), "ingest-s")
				b.ReportMetric(float64(rss)/(1<<20), "ingest-peak-MB")
				line := fmt.Sprintf("%s kernels: ingest %.2f s, peak RSS %.0f MB", c.name, ingest.Seconds(), float64(rss)/(1<<20))
				if _, err := exec.LookPath("sqlite3"); err == nil {
					join, _ := runTimed(b, nsysKernelQuery, "sqlite3", "-readonly", path)
					b.ReportMetric(join.Seconds(), "join-s")
					b.ReportMetric(ingest.Seconds()/join.Seconds(), "ingest/join")
					line += fmt.Sprintf("; sqlite3 join %.2f s (ingest/join %.2f)", join.Seconds(), ingest.Seconds()/join.Seconds())
				}
				stats, srss := runTimed(b, "", bin, "stats", out, "--format", "csv")
				b.ReportMetric(stats.Seconds(), "stats-s")
				line += fmt.Sprintf("; stats %.2f s, peak RSS %.0f MB", stats.Seconds(), float64(srss)/(1<<20))
				if d, ok := duckdbStats(b, filepath.Join(out, "kernels.parquet")); ok {
					b.ReportMetric(d.Seconds(), "duckdb-s")
					b.ReportMetric(stats.Seconds()/d.Seconds(), "stats/duckdb")
					line += fmt.Sprintf("; duckdb %.2f s (stats/duckdb %.2f)", d.Seconds(), stats.Seconds()/d.Seconds())
				}
				b.Log(line)
			}
		})
	}
}

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

// runTimed runs a command with stdin (if any) and stdout to /dev/null and
// returns its wall time and peak resident set in bytes.
func runTimed(b *testing.B, stdin, name string, args ...string) (time.Duration, int64) {
	b.Helper()
	cmd := exec.Command(name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	d := time.Since(start)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return d, rss
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

// duckdbStats times duckdbStatsQuery over the kernels file, in a Python
// with the duckdb module; false when there is none.
func duckdbStats(b *testing.B, kernels string) (time.Duration, bool) {
	b.Helper()
	script := `import sys, time, duckdb
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
t = time.perf_counter()
rows = con.execute(sys.argv[2], [sys.argv[1]]).fetchall()
print(time.perf_counter() - t, len(rows))`
	if exec.Command("python3", "-c", "import duckdb").Run() != nil {
		return 0, false
	}
	out, err := exec.Command("python3", "-c", script, kernels, duckdbStatsQuery).Output()
	if err != nil {
		b.Fatalf("duckdb: %v", err)
	}
	var secs float64
	var rows int
	if _, err := fmt.Sscan(string(out), &secs, &rows); err != nil || rows == 0 {
		b.Fatalf("duckdb printed %q", out)
	}
	return time.Duration(secs * float64(time.Second)), true
}
