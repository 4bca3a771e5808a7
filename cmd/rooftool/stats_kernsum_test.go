package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/testgz"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/stats"
)

// poisonExport copies the export src to a temporary file in which every
// table but the kernel table and StringIds is a view that fails when read
// (it calls a function SQLite does not have), and returns its path.
func poisonExport(t *testing.T, src string) string {
	t.Helper()
	dst := copyExport(t, src)
	db, err := sql.Open("sqlite3", dst)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('CUPTI_ACTIVITY_KIND_KERNEL', 'StringIds') AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	for _, n := range tables {
		if _, err := db.Exec(`ALTER TABLE "` + n + `" RENAME TO "old_` + n + `"`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE VIEW "` + n + `" AS SELECT *, no_such_function(1) AS poison FROM "old_` + n + `"`); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// stats --report cuda_gpu_kern_sum reads the kernel table and StringIds
// alone: with every other table of the DLProf export (runtime calls, NVTX
// events, GPUs, metadata) failing when read, it prints what it prints over
// the export itself, while plain stats, which attributes the kernels to
// their NVTX ranges, fails. Plain stats over gpu4, an export without NVTX
// events, reads no more than the report.
func TestStatsKernelsOnly(t *testing.T) {
	dlprof := statsRealdata + "DLProf/nsys_profile.sqlite"
	bad := poisonExport(t, dlprof)
	for _, args := range [][]string{
		{"--report", "cuda_gpu_kern_sum", "--format", "csv"},
		{"--report", "cuda_gpu_kern_sum", "--format", "table", "--base"},
	} {
		want := runStatsCmd(t, append(args, dlprof)...)
		if got := runStatsCmd(t, append(args, bad)...); got != want {
			t.Errorf("stats %v over the export without its other tables (-export +without):\n%s", args, cmp.Diff(want, got))
		}
	}
	var o, e strings.Builder
	if code := run(t.Context(), []string{"stats", bad}, &IO{Out: &o, Err: &e}); code == 0 || !strings.Contains(e.String(), "no_such_function") {
		t.Errorf("plain stats over the DLProf export without its runtime and NVTX tables: exit %d, %q; want a failed read", code, e.String())
	}
	gpu4 := statsRealdata + "gpu4/report.sqlite"
	if got, want := runStatsCmd(t, poisonExport(t, gpu4)), runStatsCmd(t, gpu4); got != want {
		t.Errorf("plain stats over gpu4 without its other tables (-export +without):\n%s", cmp.Diff(want, got))
	}
}

// The kernel-table summary equals the summary of the ingested kernels, row
// for row, over the committed exports (for the run exports, the flat
// report: they hold NVTX ranges), with each kind of name.
func TestNsysKernelSummaryMatchesIngest(t *testing.T) {
	cutlass := filepath.Join(t.TempDir(), "report1.sqlite") // committed gzipped
	testgz.To(t, statsRealdata+"cutlass_benchmark/report1.sqlite.gz", cutlass)
	files := []string{statsRealdata + "gpu4/report.sqlite", cutlass,
		statsRealdata + "cuda-kernel-library/report2.sqlite", statsRealdata + "DLProf/nsys_profile.sqlite"}
	gz, _ := filepath.Glob("../../testdata/runs/*/raw/nsys/*/part-1.sqlite.gz")
	for i, g := range gz {
		if i%4 == 0 { // a sample keeps the test short
			db := filepath.Join(t.TempDir(), "part-1.sqlite")
			testgz.To(t, g, db)
			files = append(files, db)
		}
	}
	for _, f := range files {
		for _, names := range []string{stats.NamesDemangled, stats.NamesBase, stats.NamesMangled} {
			so := stats.Options{Names: names, Flat: true}
			groups, _, err := stats.NsysSummaryGroups([]string{f}, so, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			got, err := stats.SummariseGroups(groups, so)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			tmp, err := detect.WriteTempKernels([]ingest.Input{{Path: f}}, "rooftool-test-*")
			if err != nil {
				t.Fatalf("%s: ingest: %v", f, err)
			}
			want, err := stats.StreamSummary(tmp.Dir, "", so)
			tmp.Remove()
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if d := cmp.Diff(want.Rows, got.Rows); d != "" {
				t.Errorf("%s, %s names (-ingested +kernel table):\n%s", f, names, d)
			}
		}
	}
}
