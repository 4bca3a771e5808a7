//go:build cgo

package nsys

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kernSumQuery is the reference of the kern_sum report: the sqlite3 CLI
// grouping kernels x StringIds by name (count, sum, mean, min, max of the
// durations; no median or standard deviation, which the CLI lacks).
const kernSumQuery = `SELECT s.value, count(*), sum(k.end - k.start), avg(k.end - k.start), min(k.end - k.start), max(k.end - k.start)
FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value;`

// BenchmarkKernSum1M times `rooftool stats --report cuda_gpu_kern_sum
// FILE --format csv` over the 1M-kernel NVTX replica (makeNVTXReplica, as
// BenchmarkNsysScale makes it) beside the sqlite3 CLI running kernSumQuery,
// each the best (least wall time) of two alternating runs in the same
// benchmark: wall, CPU (user + system) and peak RSS from the child's
// rusage. ROOFTOOL_BENCH_BEFORE names another rooftool binary (an earlier
// build) to time the same way beside them.
func BenchmarkKernSum1M(b *testing.B) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		b.Skip("no sqlite3 CLI")
	}
	bin := buildRooftool(b)
	dir := os.Getenv("NSYS_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "rooftool-bench")
	}
	path := filepath.Join(dir, "nvtx1m.sqlite")
	makeNVTXReplica(b, path, 21_700)
	type cmd struct {
		name string
		run  func() run
	}
	stats := func(bin string) func() run {
		return func() run {
			return runTimed(b, "", bin, "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", path)
		}
	}
	cmds := []cmd{{"stats", stats(bin)}, {"sqlite3", func() run { return runTimed(b, kernSumQuery, "sqlite3", "-readonly", path) }}}
	if before := os.Getenv("ROOFTOOL_BENCH_BEFORE"); before != "" {
		cmds = append(cmds, cmd{"stats-before", stats(before)})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		best := make([]run, len(cmds))
		for rep := 0; rep < 2; rep++ {
			for j, c := range cmds {
				if r := c.run(); rep == 0 || r.wall < best[j].wall {
					best[j] = r
				}
			}
		}
		var line []string
		for j, c := range cmds {
			r := best[j]
			b.ReportMetric(r.wall.Seconds(), c.name+"-s")
			b.ReportMetric(r.cpu.Seconds(), c.name+"-cpu-s")
			b.ReportMetric(float64(r.rss)/(1<<20), c.name+"-peak-MB")
			line = append(line, fmt.Sprintf("%s %.2f s (cpu %.2f s, peak %.0f MB)", c.name, r.wall.Seconds(), r.cpu.Seconds(), float64(r.rss)/(1<<20)))
		}
		b.ReportMetric(best[0].wall.Seconds()/best[1].wall.Seconds(), "stats/sqlite3")
		b.Log("1M NVTX replica, kern_sum, best of two: " + strings.Join(line, "; "))
	}
}
