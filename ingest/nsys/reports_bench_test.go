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

// The references of BenchmarkStatsReports1M: nsys's report queries as the
// sqlite3 CLI runs them. The CLI has neither nsys's median() nor its
// stdev() (Python functions nsys registers): the median is left out, the
// standard deviation computed from sums; rtree_scale, nsys's function
// that maps times into its R*Tree's coordinates, is left out too (the
// R*Tree keeps the times themselves, as 32-bit floats; the query's exact
// comparisons of the nanoseconds stay).
const (
	apiSumQuery = `WITH summary AS (
 SELECT nameId, sum(end - start) AS total, count(*) AS num, avg(end - start) AS avg, min(end - start) AS min, max(end - start) AS max,
  sqrt(max(sum((end - start) * 1.0 * (end - start)) - sum(end - start) * 1.0 * sum(end - start) / count(*), 0) / max(count(*) - 1, 1)) AS stddev
 FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1),
totals AS (SELECT sum(total) AS total FROM summary)
SELECT round(summary.total * 100.0 / (SELECT total FROM totals), 1), summary.total, summary.num, round(summary.avg, 1),
 summary.min, summary.max, round(summary.stddev, 1),
 CASE substr(ids.value, -6, 2) WHEN '_v' THEN substr(ids.value, 1, length(value) - 6) ELSE ids.value END
FROM summary LEFT JOIN StringIds AS ids ON ids.id == summary.nameId ORDER BY 2 DESC;`

	nvtxKernSumQuery = `CREATE TEMP TABLE NVTX_EVENTS_MINMAXTS AS SELECT min(min(start), min(end)) AS min, max(max(start), max(end)) AS max
FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71);
CREATE VIRTUAL TABLE temp.NVTX_EVENTS_RIDX USING rtree (rangeId, startTS, endTS, +startNS INTEGER, +endNS INTEGER, +tid INTEGER, +name TEXT, +style TEXT);
INSERT INTO temp.NVTX_EVENTS_RIDX
 WITH domains AS (SELECT min(ne.start), ne.domainId AS id, ne.globalTid AS globalTid, coalesce(sid.value, ne.text) AS name
   FROM NVTX_EVENTS AS ne LEFT JOIN StringIds AS sid ON ne.textId == sid.id WHERE ne.eventType == 75 GROUP BY 2, 3)
 SELECT ne.rowid, ne.start, ifnull(ne.end, (SELECT max FROM temp.NVTX_EVENTS_MINMAXTS)), ne.start,
  ifnull(ne.end, (SELECT max FROM temp.NVTX_EVENTS_MINMAXTS)), ne.globalTid,
  coalesce(d.name, '') || ':' || coalesce(sid.value, ne.text, ''),
  CASE ne.eventType WHEN 59 THEN 'PushPop' WHEN 60 THEN 'StartEnd' WHEN 70 THEN 'PushPop' WHEN 71 THEN 'StartEnd' ELSE 'Unknown' END
 FROM NVTX_EVENTS AS ne
 LEFT JOIN domains AS d ON ne.domainId == d.id AND (ne.globalTid & 0x0000FFFFFF000000) == (d.globalTid & 0x0000FFFFFF000000)
 LEFT JOIN StringIds AS sid ON ne.textId == sid.id
 WHERE ne.eventType IN (59, 60, 70, 71) AND ne.endGlobalTid IS NULL;
WITH combo AS (
 SELECT rt.name AS name, rt.style AS style, rt.rangeId AS nvtxid, k.rowid AS kernid, k.end - k.start AS kduration,
  (r.globalTid >> 24) & 0x00FFFFFF AS pid, r.globalTid & 0x00FFFFFF AS tid, namestr.value AS kernName
 FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
 LEFT JOIN StringIds AS namestr ON namestr.id == coalesce(k.demangledName, k.demangledName)
 LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON k.correlationId == r.correlationId AND k.globalPid == (r.globalTid & 0xFFFFFFFFFF000000)
 LEFT JOIN temp.NVTX_EVENTS_RIDX AS rt ON rt.startTS <= r.start AND rt.endTS >= r.end AND rt.startNS <= r.start AND rt.endNS >= r.end
  AND rt.tid == r.globalTid)
SELECT c.name, c.style, c.pid, c.tid, count(DISTINCT c.nvtxid), count(DISTINCT c.kernid), sum(c.kduration),
 round(avg(c.kduration), 1), min(c.kduration), max(c.kduration),
 round(sqrt(max(sum(c.kduration * 1.0 * c.kduration) - sum(c.kduration) * 1.0 * sum(c.kduration) / count(*), 0) / max(count(*) - 1, 1)), 1),
 c.kernName
FROM combo AS c GROUP BY 3, 4, 1, 2, 12 ORDER BY 1, 3, 4, 7 DESC;`

	// memCheckQuery is what nsys runs of the memory reports over an
	// export without ENUM_CUDA_MEMCPY_OPER, as the replicas are: the check
	// that skips them.
	memCheckQuery = `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('CUPTI_ACTIVITY_KIND_MEMCPY', 'ENUM_CUDA_MEMCPY_OPER', 'CUPTI_ACTIVITY_KIND_MEMSET');`
)

// BenchmarkStatsReports1M times `rooftool stats --report R --format csv`
// for each report over the 1M-kernel NVTX replica (ROOFTOOL_REPLICA_1M,
// or makeNVTXReplica's, as BenchmarkNsysScale makes it) beside the sqlite3
// CLI running nsys's query of the report (the queries above): wall, CPU
// (user + system) and peak RSS from each child's rusage, best of two
// alternating runs (one for nvtx_kern_sum's reference, which takes
// minutes), and the ratio stats/sqlite3 of wall times. The memory reports
// are SKIPPED over the replica (it has no ENUM_CUDA_MEMCPY_OPER): their
// reference is the check.
//
// On the 2-core machine, shared with other jobs (load average 3 to 9),
// one run; a child's peak RSS counts about 40 MB of this process's, the
// floor of the sqlite3 figures (/usr/bin/time gives the CLI 20 MB for
// nvtx_kern_sum):
//
//	report                 rooftool: wall    CPU     peak     sqlite3: wall    CPU      stats/sqlite3
//	cuda_gpu_kern_sum                0.60 s  0.63 s   85 MB            2.03 s   1.98 s  0.30
//	cuda_api_sum                     2.09 s  2.06 s  161 MB            8.87 s   7.61 s  0.24
//	nvtx_kern_sum                    7.01 s  6.26 s  230 MB          385.2 s  188.5 s   0.018
//	cuda_gpu_mem_time_sum            0.02 s  0.02 s   41 MB            0.004 s  0.003 s (SKIPPED)
//	cuda_gpu_mem_size_sum            0.01 s  0.01 s   41 MB            0.003 s  0.003 s (SKIPPED)
//
// nsys 2025.3.1 on a 64-core H200 host (the goldens' README): cuda_gpu_kern_sum
// 0.98-1.12 s and 310 MB, cuda_api_sum 3.97 s and 465 MB, nvtx_kern_sum 105 s
// and 3.3 GB.
func BenchmarkStatsReports1M(b *testing.B) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		b.Skip("no sqlite3 CLI")
	}
	bin := buildRooftool(b)
	path := os.Getenv("ROOFTOOL_REPLICA_1M")
	if path == "" {
		dir := os.Getenv("NSYS_BENCH_DIR")
		if dir == "" {
			dir = filepath.Join(os.TempDir(), "rooftool-bench")
		}
		path = filepath.Join(dir, "nvtx1m.sqlite")
		makeNVTXReplica(b, path, 21_700)
	}
	for _, c := range []struct {
		report, query string
		refRuns       int
	}{
		{"cuda_gpu_kern_sum", kernSumQuery, 2},
		{"cuda_api_sum", apiSumQuery, 2},
		{"nvtx_kern_sum", nvtxKernSumQuery, 1},
		{"cuda_gpu_mem_time_sum", memCheckQuery, 2},
		{"cuda_gpu_mem_size_sum", memCheckQuery, 2},
	} {
		b.Run(c.report, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var stats, ref run
				for rep := 0; rep < 2; rep++ {
					if r := runTimed(b, "", bin, "stats", "--report", c.report, "--format", "csv", path); rep == 0 || r.wall < stats.wall {
						stats = r
					}
					if rep < c.refRuns {
						if r := runTimed(b, c.query, "sqlite3", "-readonly", path); rep == 0 || r.wall < ref.wall {
							ref = r
						}
					}
				}
				var line []string
				for _, x := range []struct {
					name string
					r    run
				}{{"stats", stats}, {"sqlite3", ref}} {
					b.ReportMetric(x.r.wall.Seconds(), x.name+"-s")
					b.ReportMetric(x.r.cpu.Seconds(), x.name+"-cpu-s")
					b.ReportMetric(float64(x.r.rss)/(1<<20), x.name+"-peak-MB")
					line = append(line, fmt.Sprintf("%s %.2f s (cpu %.2f s, peak %.0f MB)", x.name, x.r.wall.Seconds(), x.r.cpu.Seconds(), float64(x.r.rss)/(1<<20)))
				}
				b.ReportMetric(stats.wall.Seconds()/ref.wall.Seconds(), "stats/sqlite3")
				b.Log("1M NVTX replica, " + c.report + ": " + strings.Join(line, "; "))
			}
		})
	}
}
