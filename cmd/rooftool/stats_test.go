package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rooftool/rooftool/internal/testgz"

	"github.com/rooftool/rooftool/internal/golden"
	"github.com/rooftool/rooftool/stats"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
)

const statsRealdata = "../../testdata/realdata/"

// runStatsCmd runs `rooftool stats args...` and returns stdout; it fails
// the test unless the exit code is 0.
func runStatsCmd(t *testing.T, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(context.Background(), append([]string{"stats"}, args...), &IO{Out: &o, Err: &e}); code != 0 {
		t.Fatalf("stats %v: exit %d: %s", args, code, e.String())
	}
	return o.String()
}

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, s)
	}
	return recs
}

// The figures of nsys stats -r cuda_gpu_kern_sum, computed with the sqlite3
// CLI after nsys's own query (cuda_gpu_kern_sum.py): the exports have no
// NVTX ranges, so rooftool's one range "-" must be nsys's report exactly.
// The CLI has no median or stdev, which nsys registers from Python; window
// functions stand in (sample standard deviation, n - 1):
//
//	WITH d AS (
//	  SELECT s.value AS name, k.end - k.start AS dur
//	  FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName),
//	r AS (
//	  SELECT name, dur, row_number() OVER w AS i, count(*) OVER w AS n, avg(dur) OVER w AS mean
//	  FROM d WINDOW w AS (PARTITION BY name ORDER BY dur ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
//	summary AS (
//	  SELECT name, sum(dur) AS total, count(*) AS num, avg(dur) AS avg,
//	    avg(CASE WHEN i IN ((n + 1) / 2, (n + 2) / 2) THEN dur END) AS med,
//	    min(dur) AS min, max(dur) AS max,
//	    coalesce(sqrt(sum((dur - mean) * (dur - mean)) / (count(*) - 1)), 0) AS stddev
//	  FROM r GROUP BY name)
//	SELECT round(total * 100.0 / (SELECT sum(total) FROM summary), 1), total, num,
//	  round(avg, 1), round(med, 1), min, max, round(stddev, 1), name
//	FROM summary ORDER BY total DESC, num, name;
//
// sqlite3 -csv gpu4/report.sqlite (durations 22560, 29055, 33984, 31071):
//
//	100.0,116670,4,29167.5,30063.0,22560,33984,4847.5,"vecAdd(double *, double *, double *, int)"
//
// sqlite3 -csv cutlass_benchmark/report1.sqlite (one kernel, a 4,889-character name):
//
//	100.0,162000609,6,27000101.5,27062283.5,26561688,27226940,243571.8,"void cutlass::Kernel<cutlass::gemm::kernel::Gemm<..."
func TestStatsMatchesNsysDefinition(t *testing.T) {
	for _, tc := range []struct {
		file    string
		figures []string // the eight nsys figures
		name    string   // name prefix
		nameLen int
	}{
		{"gpu4/report.sqlite", []string{"100.0", "116670", "4", "29167.5", "30063.0", "22560", "33984", "4847.5"},
			"vecAdd(double *, double *, double *, int)", 41},
		{"cutlass_benchmark/report1.sqlite.gz", []string{"100.0", "162000609", "6", "27000101.5", "27062283.5", "26561688", "27226940", "243571.8"},
			"void cutlass::Kernel<cutlass::gemm::kernel::Gemm<", 4889},
	} {
		recs := readCSV(t, runStatsCmd(t, "--format", "csv", statsRealdata+tc.file))
		want := []string{"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name", "Range"}
		if d := cmp.Diff(want, recs[0]); d != "" {
			t.Fatalf("%s: header (-want +got):\n%s", tc.file, d)
		}
		if len(recs) != 2 {
			t.Fatalf("%s: %d rows, want 1", tc.file, len(recs)-1)
		}
		row := recs[1]
		if d := cmp.Diff(tc.figures, row[:8]); d != "" {
			t.Errorf("%s: figures (-nsys +rooftool):\n%s", tc.file, d)
		}
		if !strings.HasPrefix(row[8], tc.name) || len(row[8]) != tc.nameLen || row[9] != "-" {
			t.Errorf("%s: name %.60q (%d chars), range %q; want %q..., %d chars, range -", tc.file, row[8], len(row[8]), row[9], tc.name, tc.nameLen)
		}
	}
}

// Per NVTX range, on a DLProf export (46 kernels under nested ranges whose
// paths run to 943 characters): testdata/stats/dlprof_by_range.csv is what
// `sqlite3 -csv DLProf/nsys_profile.sqlite < testdata/stats/kern_sum_by_range.sql`
// prints, the query above grouped by the path of the NVTX ranges around each
// kernel's launch. Its first rows:
//
//	14.9,19168,3,6389.3,5312.0,5152,8704,2006.2,"void cudnn::detail::implicit_convolve_sgemm<...",...
//	9.2,11808,2,5904.0,5904.0,5824,5984,113.1,"void fft2d_c2r_32x32<...",...
//
// With sqlite3 on PATH the query also runs live, over the DLProf export and
// over the first committed run's swiglu export (15,789 kernels, most of them
// outside every range), and rooftool must print what it prints.
func TestStatsByRangeMatchesSQL(t *testing.T) {
	golden, err := os.ReadFile("testdata/stats/dlprof_by_range.csv")
	if err != nil {
		t.Fatal(err)
	}
	dlprof := statsRealdata + "DLProf/nsys_profile.sqlite"
	got := readCSV(t, runStatsCmd(t, "--format", "csv", dlprof))[1:]
	if d := cmp.Diff(readCSV(t, string(golden)), got); d != "" {
		t.Errorf("DLProf per range (-sqlite3 +rooftool):\n%s", d)
	}
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("no sqlite3 CLI: checked against the golden output only")
	}
	query, err := os.ReadFile("testdata/stats/kern_sum_by_range.sql")
	if err != nil {
		t.Fatal(err)
	}
	live := func(db, input string) {
		t.Helper()
		cmd := exec.Command(sqlite, "-csv", db)
		cmd.Stdin = bytes.NewReader(query)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sqlite3 %s: %v", db, err)
		}
		got := readCSV(t, runStatsCmd(t, "--format", "csv", input))[1:]
		if d := cmp.Diff(readCSV(t, string(out)), got); d != "" {
			t.Errorf("%s per range (-sqlite3 +rooftool):\n%s", input, d)
		}
	}
	live(dlprof, dlprof)
	gz, _ := filepath.Glob("../../testdata/runs/*/raw/nsys/swiglu/part-1.sqlite.gz")
	if len(gz) == 0 {
		return
	}
	db := filepath.Join(t.TempDir(), "swiglu.sqlite")
	testgz.To(t, gz[0], db)
	live(db, gz[0])
}

// writeKernelTables writes ingested tables holding ks to a fresh directory.
func writeKernelTables(t *testing.T, ks []ingest.Kernel) string {
	t.Helper()
	b := ingest.NewBuilder(nil)
	defer b.Release()
	for _, k := range ks {
		b.AddKernel(k)
	}
	tab := b.Finish()
	defer tab.Release()
	dir := t.TempDir()
	if err := tab.Write(dir, ingest.FormatParquet); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestStatsRanges(t *testing.T) {
	long := strings.Repeat("aten::conv2d/", 110) + "inner" // 1,435 characters
	k := func(path, name string, d int64) ingest.Kernel {
		return ingest.Kernel{Source: "nsys", Pass: ingest.PassTimeline, RangePath: path, Name: name, ShortName: name, DurationNs: d}
	}
	dir := writeKernelTables(t, []ingest.Kernel{
		k("", "warmup", 5000), k("", "warmup", 7000),
		k("gla/unfused/B=8", "gemm", 300), k("gla/unfused/B=8", "gemm", 100), k("gla/unfused/B=8", "silu", 50),
		k("gla/fused/B=8", "fused", 200),
		k(long, "conv", 10),
	})
	rangesOf := func(csvOut string) []string {
		var out []string
		for _, r := range readCSV(t, csvOut)[1:] {
			out = append(out, r[8]+"@"+r[9])
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"conv@" + long, "fused@gla/fused/B=8", "gemm@gla/unfused/B=8", "silu@gla/unfused/B=8", "warmup@-"}},
		{[]string{"--ranged-only"}, []string{"conv@" + long, "fused@gla/fused/B=8", "gemm@gla/unfused/B=8", "silu@gla/unfused/B=8"}},
		{[]string{"--range", "gla/*", "--top", "1"}, []string{"fused@gla/fused/B=8", "gemm@gla/unfused/B=8"}},
		{[]string{"--range", "unfused", "--sort", "name"}, []string{"gemm@gla/unfused/B=8", "silu@gla/unfused/B=8"}},
		{[]string{"--range", "-"}, []string{"warmup@-"}},
	} {
		got := rangesOf(runStatsCmd(t, append([]string{"--format", "csv", dir}, tc.args...)...))
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%v (-want +got):\n%s", tc.args, d)
		}
	}

	// The table shortens the long path in its middle; JSON keeps it whole.
	table := runStatsCmd(t, "--format", "table", dir)
	for _, line := range strings.Split(table, "\n") {
		if n := utf8.RuneCountInString(line); n > 200 {
			t.Errorf("table line of %d characters: %.80q...", n, line)
		}
	}
	if !strings.Contains(table, "NVTX range: aten::conv2d/aten::") || !strings.Contains(table, "...") || !strings.Contains(table, "/aten::conv2d/inner\n") {
		t.Errorf("table does not shorten the long range in its middle:\n%s", table)
	}
	if i, j := strings.Index(table, "NVTX range: gla/unfused/B=8"), strings.Index(table, "NVTX range: - (outside every NVTX range)"); i < 0 || j < i {
		t.Errorf("the unranged block is not last:\n%s", table)
	}
	var doc struct {
		Version int `json:"rooftool_stats"`
		Rows    []struct {
			Range     string  `json:"Range"`
			Name      string  `json:"Name"`
			TimePct   float64 `json:"Time (%)"`
			Instances int     `json:"Instances"`
			Med       float64 `json:"Med (ns)"`
			StdDev    float64 `json:"StdDev (ns)"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(runStatsCmd(t, "--format", "json", dir)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 2 || len(doc.Rows) != 5 || doc.Rows[0].Range != long || doc.Rows[4].Range != "-" {
		t.Fatalf("json: %+v", doc)
	}
	if g := doc.Rows[2]; g.Name != "gemm" || g.TimePct != 88.9 || g.Instances != 2 || g.Med != 200 || g.StdDev != 141.4 {
		t.Errorf("json gemm row %+v, want 88.9%%, 2 instances, med 200, stddev 141.4", g)
	}
}

// Golden table and JSON output of real exports: the DLProf export, cut to
// two kernels a range by instances, shows the nsys table layout with long
// range paths and names shortened; gpu4 the JSON shape.
func TestStatsGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"dlprof_top2.txt", []string{"--format", "table", "--sort", "instances", "--top", "2", statsRealdata + "DLProf/nsys_profile.sqlite"}},
		{"gpu4.json", []string{"--format", "json", statsRealdata + "gpu4/report.sqlite"}},
		{"gpu4_base.csv", []string{"--format", "csv", "--base", statsRealdata + "gpu4/report.sqlite"}},
	} {
		got := runStatsCmd(t, tc.args...)
		path := filepath.Join("testdata/stats", tc.golden)
		golden.Check(t, path, []byte(got))
	}
}

func TestStatsUsage(t *testing.T) {
	file := statsRealdata + "gpu4/report.sqlite"
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--sort", "speed", file}, `sort "speed"`},
		{[]string{"--top", "-1", file}, "top -1"},
		{[]string{"--base", "--mangled", file}, "exclude each other"},
		{[]string{"--range", "gla/[x", file}, "unclosed ["},
		{[]string{"--format", "xml", file}, `--format "xml"`},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), append([]string{"stats"}, tc.args...), &IO{Out: &o, Err: &e})
		if code != 2 || !strings.Contains(e.String(), tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, e.String(), tc.err)
		}
	}
}

// --report cuda_gpu_kern_sum prints nsys's CSV header exactly and the
// whole-export rows, then the empty line nsys ends a report with: on the
// gpu4 export the sqlite3 query of TestStatsMatchesSQL gives
// 100.0,116670,4,29167.5,30063.0,22560,33984,4847.5.
func TestStatsReportNsysHeader(t *testing.T) {
	var out, errb bytes.Buffer
	opts := &StatsOptions{IO: &IO{Out: &out, Err: &errb}, Inputs: []string{"../../testdata/realdata/gpu4/report.sqlite"}, Format: "csv", Reports: []string{"cuda_gpu_kern_sum"}}
	if err := runStats(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n" +
		"100.0,116670,4,29167.5,30063.0,22560,33984,4847.5,\"vecAdd(double *, double *, double *, int)\"\n\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	// Its JSON rows have nsys's keys only: no Range.
	out.Reset()
	opts.Format = "json"
	if err := runStats(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 1 || len(doc.Rows[0]) != len(stats.Columns) || doc.Rows[0]["Range"] != nil {
		t.Errorf("--report json rows %v, want nsys's %d keys and no Range", doc.Rows, len(stats.Columns))
	}
	opts.Reports = []string{"cuda_gpu_kern_summ"}
	if err := runStats(context.Background(), opts); err == nil {
		t.Error("unknown report accepted")
	}
}

// stats prints a table by default, into a pipe as on a terminal, as every
// command does; CSV only with --format csv (the per-range summary and
// --report alike).
func TestStatsDefaultTable(t *testing.T) {
	file := statsRealdata + "gpu4/report.sqlite"
	for _, tty := range []bool{false, true} {
		for _, args := range [][]string{{file}, {"--report", "cuda_gpu_kern_sum", file}} {
			var o, e bytes.Buffer
			if code := run(context.Background(), append([]string{"stats"}, args...), &IO{Out: &o, Err: &e, IsTTY: tty}); code != exitOK {
				t.Fatalf("stats %v: exit %d: %s", args, code, e.String())
			}
			if lines := strings.Split(o.String(), "\n"); len(lines) < 4 || !strings.Contains(lines[2], "Time (%)  Total Time (ns)") || !strings.HasPrefix(lines[3], " --------") {
				t.Errorf("stats %v (terminal: %v): not a table:\n%s", args, tty, o.String())
			}
		}
	}
	if got := runStatsCmd(t, "--format", "csv", file); !strings.HasPrefix(got, "Time (%),Total Time (ns),") {
		t.Errorf("stats --format csv: %q", got)
	}
}
