package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/stats"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/tableout"
)

// writeNsysExport writes a minimal nsys SQLite export: one kernel named
// name per duration, the kernels back to back.
func writeNsysExport(t *testing.T, name string, durs []int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, demangledName INTEGER, shortName INTEGER)`,
		fmt.Sprintf(`INSERT INTO StringIds VALUES (1, '%s')`, name),
	}
	var at int64
	for _, d := range durs {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%d, %d, 1, 1)`, at, at+d))
		at += d
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// Avg, Med and StdDev print as nsys prints them: the float64 it computes,
// rounded to one decimal by SQLite's round (stats.NsysRound1: the exact
// binary value to the nearest tenth, exact halves away from zero), then
// printed by Python.
//
// 40 launches of 328,962 ns in all (39 of 8,224 ns and one of 8,226 ns):
// the average 328962 / 40 is 8224.05 in decimal, whose nearest float64 is
// 8224.0499999999992724... (printf '%.20f' in the sqlite3 CLI, or
// Python's Decimal(328962 / 40)), below the tie, so "8224.0"; rounding
// the decimal 8224.05 half up would give 8224.1. The median is 8224 (the
// 20th and 21st durations), "8224.0". The sample standard deviation:
// deviations from the mean are -0.05 (39 times) and 1.95, squares summing
// to 39 * 0.0025 + 3.8025 = 3.9; 3.9 / 39 = 0.1; sqrt(0.1) = 0.316..., "0.3".
//
// 4 launches of 1, 1, 1 and 2 ns: the average 5 / 4 = 1.25 is exact in
// binary, a tie, rounded away from zero: "1.3", as nsys prints 33749 / 4 =
// 8437.25 as 8437.3 (cudaMemsetAsync in the DLProf export's cuda_api_sum;
// Python's own format, f"{1.25:.1f}", would give "1.2").
// Median 1 ("1.0"); deviations -0.25 (3 times) and 0.75, squares summing to
// 0.75; 0.75 / 3 = 0.25; sqrt = 0.5, "0.5".
func TestStatsRoundsAsNsys(t *testing.T) {
	for _, tc := range []struct {
		durs  []int64
		stats [3]string // Avg, Med, StdDev
		json  [3]float64
	}{
		{append(repeat(8224, 39), 8226), [3]string{"8224.0", "8224.0", "0.3"}, [3]float64{8224.0, 8224.0, 0.3}},
		{[]int64{1, 1, 1, 2}, [3]string{"1.3", "1.0", "0.5"}, [3]float64{1.3, 1.0, 0.5}},
	} {
		var ks []ingest.Kernel
		for _, d := range tc.durs {
			ks = append(ks, ingest.Kernel{Source: "nsys", Pass: ingest.PassTimeline, Name: "k", ShortName: "k", DurationNs: d})
		}
		// The ingested tables (stats.StreamSummary) and the export's
		// kernel table (stats.NsysSummaryGroups) print the same.
		for _, in := range []string{writeKernelTables(t, ks), writeNsysExport(t, "k", tc.durs)} {
			recs := readCSV(t, runStatsCmd(t, "--report", "cuda_gpu_kern_sum", "--format", "csv", in))
			if got := [3]string{recs[1][3], recs[1][4], recs[1][7]}; got != tc.stats {
				t.Errorf("%d launches: csv Avg, Med, StdDev = %v, want %v", len(tc.durs), got, tc.stats)
			}
			table := runStatsCmd(t, "--report", "cuda_gpu_kern_sum", "--format", "table", in)
			if row := strings.Fields(strings.Split(table, "\n")[4]); len(row) < 8 ||
				!cmp.Equal([3]string{row[3], row[4], row[7]}, [3]string{tableout.Thousands(tc.stats[0]), tableout.Thousands(tc.stats[1]), tableout.Thousands(tc.stats[2])}) {
				t.Errorf("%d launches: table row %q, want Avg, Med, StdDev %v", len(tc.durs), row, tc.stats)
			}
			var js stats.SummaryJSON
			if err := json.Unmarshal([]byte(runStatsCmd(t, "--report", "cuda_gpu_kern_sum", "--format", "json", in)), &js); err != nil {
				t.Fatal(err)
			}
			if r := js.Rows[0]; [3]float64{r.AvgNs, r.MedNs, r.StdDevNs} != tc.json {
				t.Errorf("%d launches: json Avg, Med, StdDev = %v, want %v", len(tc.durs), [3]float64{r.AvgNs, r.MedNs, r.StdDevNs}, tc.json)
			}
		}
	}
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
