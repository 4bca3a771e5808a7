package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/stats"
)

// nsysGoldens holds what nsys 2025.3.1 printed (its README says how).
const nsysGoldens = "testdata/nsys-goldens/"

// reportGolden reads the golden of export and report.
func reportGolden(t *testing.T, export, report string) string {
	t.Helper()
	b, err := os.ReadFile(nsysGoldens + export + "_" + report + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// linkAs makes rel, under a new temporary directory that becomes the
// working directory, a link to the file src, so that a command given rel
// names the file as nsys was given it (nsys's SKIPPED messages name the
// export so). It returns rel.
func linkAs(t *testing.T, src, rel string) string {
	t.Helper()
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return rel
}

// TestStatsReportsMatchNsys: rooftool stats --report R --format csv prints,
// byte for byte, what nsys stats --report R --format csv printed after its
// first line, for every report over the rmsnorm capture (kernels, memory
// copies and memsets, NVTX ranges) and the DLProf export (older schema; no
// ENUM_CUDA_MEMCPY_OPER, so the memory reports are SKIPPED, naming the
// export as nsys was given it). All five reports in one call print the
// five one after another, each after nsys's "Processing" line but the
// first.
func TestStatsReportsMatchNsys(t *testing.T) {
	rms, err := filepath.Abs(nsysGoldens + "rmsnorm-h200.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	dlprofAbs, err := filepath.Abs(statsRealdata + "DLProf/nsys_profile.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	names := stats.ReportNames()
	goldens := map[string]map[string]string{}
	for _, e := range []string{"rmsnorm-h200", "dlprof"} {
		goldens[e] = map[string]string{}
		for _, r := range names {
			goldens[e][r] = reportGolden(t, e, r)
		}
	}
	dlprof := linkAs(t, dlprofAbs, "shared/realdata/DLProf/nsys_profile.sqlite")
	for _, tc := range []struct{ export, path string }{{"rmsnorm-h200", rms}, {"dlprof", dlprof}} {
		var all strings.Builder
		for i, r := range names {
			got := runStatsCmd(t, "--report", r, "--format", "csv", tc.path)
			if want := goldens[tc.export][r]; got != want {
				t.Errorf("%s %s (-nsys +rooftool):\n%s", tc.export, r, cmp.Diff(want, got))
			}
			if i > 0 {
				all.WriteString("Processing [" + tc.path + "] with [" + r + ".py]...\n")
			}
			all.WriteString(goldens[tc.export][r])
		}
		if got := runStatsCmd(t, "--report", strings.Join(names, ","), "--format", "csv", tc.path); got != all.String() {
			t.Errorf("%s, the five reports in one call (-want +got):\n%s", tc.export, cmp.Diff(all.String(), got))
		}
	}
}

// TestStatsReportsReplica compares the reports over the DLProf export made
// 21,700 times larger (README of the goldens: 998,246 kernels, 1.78M NVTX
// ranges, 0.8 GB) with nsys's output byte for byte, when
// ROOFTOOL_REPLICA_1M names that export. nsys's nvtx_kern_sum of it is not
// there (it took nsys 105 s and 3.3 GB): testdata/stats/
// dlprof-replica-1m_nvtx_kern_sum.csv stands in, nsys's DLProf golden with
// each (kernel, range) pair 21,701 times (the export and its copies): NVTX
// Inst, Kern Inst and Total Time times 21,701, Avg, Med, Min and Max as
// they are, StdDev that of the repeated durations (computed with Python's
// statistics.stdev and rounded as nsys rounds).
func TestStatsReportsReplica(t *testing.T) {
	src := os.Getenv("ROOFTOOL_REPLICA_1M")
	if src == "" {
		t.Skip("set ROOFTOOL_REPLICA_1M to the 1M-kernel replica of the DLProf export (README of testdata/nsys-goldens)")
	}
	want := map[string]string{}
	for _, r := range stats.ReportNames() {
		if r == "nvtx_kern_sum" {
			b, err := os.ReadFile("testdata/stats/dlprof-replica-1m_nvtx_kern_sum.csv")
			if err != nil {
				t.Fatal(err)
			}
			want[r] = string(b)
			continue
		}
		want[r] = reportGolden(t, "dlprof-replica-1m", r)
	}
	path := linkAs(t, src, "dlprof-replica-1m.sqlite")
	for r, w := range want {
		if got := runStatsCmd(t, "--report", r, "--format", "csv", path); got != w {
			t.Errorf("replica %s (-want +got):\n%s", r, cmp.Diff(w, got))
		}
	}
}

// poisonExportExcept copies the export src to a temporary file in which
// every table but keep is a view that fails when read (as poisonExport).
func poisonExportExcept(t *testing.T, src string, keep []string) string {
	t.Helper()
	dst := copyExport(t, src)
	db, err := sql.Open("sqlite3", dst)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
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
		if strings.Contains(","+strings.Join(keep, ",")+",", ","+n+",") {
			continue
		}
		for _, q := range []string{`ALTER TABLE "` + n + `" RENAME TO "old_` + n + `"`,
			`CREATE VIEW "` + n + `" AS SELECT *, no_such_function(1) AS poison FROM "old_` + n + `"`} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// Each report reads the tables its definition lists and no other: over
// the rmsnorm capture with every other table failing when read, each
// prints what it prints over the capture itself.
func TestStatsReportsReadOnlyTheirTables(t *testing.T) {
	src := nsysGoldens + "rmsnorm-h200.sqlite"
	for _, r := range stats.Reports {
		bad := poisonExportExcept(t, src, r.Tables)
		want := runStatsCmd(t, "--report", r.Name, "--format", "csv", src)
		if got := runStatsCmd(t, "--report", r.Name, "--format", "csv", bad); got != want {
			t.Errorf("%s with only %v readable (-export +poisoned):\n%s", r.Name, r.Tables, cmp.Diff(want, got))
		}
	}
}

// An export without a table a report reads: nsys's SKIPPED line and the
// empty line after it, exit 0, the other reports printed as ever.
func TestStatsReportsSkipped(t *testing.T) {
	src := statsRealdata + "DLProf/nsys_profile.sqlite"
	noCalls := copyExport(t, src, `DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME`)
	noKernels := copyExport(t, src, `DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL`)
	noNVTX := copyExport(t, src, `DROP TABLE NVTX_EVENTS`)
	for _, tc := range []struct{ report, file, want string }{
		{"cuda_api_sum", noCalls, "SKIPPED: " + noCalls + " does not contain CUDA trace data.\n\n"},
		{"nvtx_kern_sum", noCalls, "SKIPPED: " + noCalls + " does not contain CUDA API data.\n\n"},
		{"nvtx_kern_sum", noKernels, "SKIPPED: " + noKernels + " does not contain CUDA kernel data.\n\n"},
		{"nvtx_kern_sum", noNVTX, "SKIPPED: " + noNVTX + " does not contain NV Tools Extension (NVTX) data.\n\n"},
		{"cuda_gpu_kern_sum", noKernels, "SKIPPED: " + noKernels + " does not contain CUDA kernel data.\n\n"},
	} {
		if got := runStatsCmd(t, "--report", tc.report, "--format", "csv", tc.file); got != tc.want {
			t.Errorf("%s over %s: %q, want %q", tc.report, filepath.Base(tc.file), got, tc.want)
		}
	}
	got := runStatsCmd(t, "--report", "cuda_api_sum,cuda_gpu_kern_sum", "--format", "csv", noCalls)
	want := "SKIPPED: " + noCalls + " does not contain CUDA trace data.\n\n" +
		"Processing [" + noCalls + "] with [cuda_gpu_kern_sum.py]...\n" + reportGolden(t, "dlprof", "cuda_gpu_kern_sum")
	if got != want {
		t.Errorf("a skipped report and one that runs (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// --report takes nsys's report names only; the options of the kernel
// summary and the kernel names apply to the reports they shape; the
// reports that read one nsys SQLite export refuse anything else. Each is
// bad usage or bad input: exit 2, naming what to give instead.
func TestStatsReportsUsage(t *testing.T) {
	dlprof := statsRealdata + "DLProf/nsys_profile.sqlite"
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--report", "cuda_api_summ", dlprof}, `unknown report "cuda_api_summ": want cuda_gpu_kern_sum, cuda_api_sum, nvtx_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum`},
		{[]string{"--report", "cuda_api_sum,gpukernsum", dlprof}, `unknown report "gpukernsum"`},
		{[]string{"--report", "cuda_api_sum", "--top", "3", dlprof}, "--top shapes the kernel summary"},
		{[]string{"--report", "nvtx_kern_sum", "--range", "x", dlprof}, "--range shapes the kernel summary"},
		{[]string{"--report", "cuda_api_sum", "--base", dlprof}, "--base names kernels"},
		{[]string{"--report", "cuda_api_sum", dlprof, statsRealdata + "gpu4/report.sqlite"}, "reads one nsys SQLite export, not 2 inputs"},
		{[]string{"--report", "nvtx_kern_sum", statsRealdata + "llm-perf-opt/kernel_0001.ncu.details.csv"}, "reads an nsys SQLite export"},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), append([]string{"stats"}, tc.args...), &IO{Out: &o, Err: &e})
		if code != exitBadArgs || !strings.Contains(e.String(), tc.err) {
			t.Errorf("stats %v: exit %d, stderr %q; want %d and %q", tc.args, code, e.String(), exitBadArgs, tc.err)
		}
	}
}

// The table format puts each report under nsys's title line, in the order
// asked; JSON is one document per report: nsys's columns as keys in order,
// NULL as null, a skipped report's message instead of rows.
func TestStatsReportsTableAndJSON(t *testing.T) {
	rms := nsysGoldens + "rmsnorm-h200.sqlite"
	table := runStatsCmd(t, "--report", "nvtx_kern_sum", "--report", "cuda_api_sum,cuda_gpu_kern_sum", "--format", "table", rms)
	var titles []string
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, " ** ") {
			titles = append(titles, l)
		}
	}
	want := []string{" ** NVTX Range Kernel Summary (nvtx_kern_sum):", " ** CUDA API Summary (cuda_api_sum):", " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):"}
	if d := cmp.Diff(want, titles); d != "" {
		t.Errorf("table titles (-want +got):\n%s", d)
	}
	if !strings.Contains(table, "  528,437,680 ") || !strings.Contains(table, "cudaDeviceSynchronize") {
		t.Errorf("cuda_api_sum's first row (528,437,680 ns of cudaDeviceSynchronize) missing from the table:\n%s", table)
	}
	dec := json.NewDecoder(strings.NewReader(runStatsCmd(t, "--report", "nvtx_kern_sum,cuda_gpu_mem_size_sum,cuda_gpu_kern_sum", "--format", "json", rms)))
	var docs []map[string]json.RawMessage
	for {
		var d map[string]json.RawMessage
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	if len(docs) != 3 {
		t.Fatalf("%d JSON documents, want 3", len(docs))
	}
	compact := func(m json.RawMessage) string {
		var b bytes.Buffer
		if err := json.Compact(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first := compact(docs[0]["rows"])
	if !strings.HasPrefix(first, `[{"NVTX Range":null,"Style":null,"PID":2622,"TID":2622,"NVTX Inst":0,"Kern Inst":579,"Total Time (ns)":205427748,"Avg (ns)":354797.5,`) {
		t.Errorf("nvtx_kern_sum's first JSON row: %.200s", first)
	}
	if !strings.Contains(compact(docs[1]["rows"]), `"Total (MB)":83751.862,"Count":378,`) || string(docs[2]["report"]) != `"cuda_gpu_kern_sum"` {
		t.Errorf("mem size and kern sum documents: %s / %s", docs[1]["rows"], docs[2]["report"])
	}
	var skipped stats.ReportJSON
	noEnum := statsRealdata + "DLProf/nsys_profile.sqlite"
	if err := json.Unmarshal([]byte(runStatsCmd(t, "--report", "cuda_gpu_mem_time_sum", "--format", "json", noEnum)), &skipped); err != nil {
		t.Fatal(err)
	}
	if skipped.Skipped != noEnum+" does not contain ENUM_CUDA_MEMCPY_OPER table." || len(skipped.Rows) != 0 {
		t.Errorf("skipped report in JSON: %+v", skipped)
	}
}

// nvtxExport writes an nsys export whose kernels, calls and NVTX ranges
// exercise nvtx_kern_sum's rules (TestStatsNvtxKernSumRules); its NVTX
// rows and its calls are not in start order in the tables.
func nvtxExport(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nvtx.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const a, b = 100<<24 | 101, 100<<24 | 102 // threads 101 and 102 of process 100
	const pid = 100 << 24
	stmts := []string{
		`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO StringIds VALUES (1, 'k1'), (2, 'k2'), (3, 'outer'), (4, 'inner'), (6, 'k1')`,
		`CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER,
			endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
			demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL)`,
	}
	if _, err := db.Exec(strings.Join(stmts, ";\n")); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, rows ...[]any) {
		t.Helper()
		for _, r := range rows {
			if _, err := db.Exec(q, r...); err != nil {
				t.Fatal(err)
			}
		}
	}
	// start, end, eventType, text, globalTid, endGlobalTid, textId, domainId
	exec(`INSERT INTO NVTX_EVENTS VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		[]any{1500, nil, 59, "open", a, nil, nil, nil},     // never closed: ends at the last NVTX time, 5000
		[]any{0, 1000, 59, nil, a, nil, 3, nil},            // :outer
		[]any{100, 400, 59, nil, a, nil, 3, nil},           // :outer again, inside the first
		[]any{150, 300, 59, nil, a, nil, 4, nil},           // :inner
		[]any{50, 2000, 60, "se", a, nil, nil, 7},          // mydom:se, a start/end range of domain 7
		[]any{0, 5000, 60, "other", a, b, nil, nil},        // ended on another thread: left out
		[]any{0, 5000, 59, "b-range", b, nil, nil, nil},    // thread 102's
		[]any{0, nil, 75, "mydom", a, nil, nil, 7},         // names domain 7 in process 100
		[]any{10, 20, 59, "no thread", nil, nil, nil, nil}, // holds no call
	)
	// start, end, globalTid, correlationId, nameId
	exec(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, 1)`,
		[]any{6000, 6010, a, 6},         // after every range
		[]any{200, 210, a, 1},           // in both :outer, :inner and mydom:se
		[]any{500, 510, a, 2},           // in the first :outer and mydom:se
		[]any{500, 510, 200<<24 | 1, 2}, // another process's correlation id 2: no kernel of its
		[]any{1600, 1610, a, 3},         // in mydom:se and :open
		[]any{100, 110, b, 4},           // in b-range
		[]any{3000, 3010, a, 5},         // in :open
		[]any{120, 130, a, 7},           // in both :outer and mydom:se
		[]any{1700, 1710, a, 7},         // correlation id 7 again: in mydom:se and :open
		[]any{5, 6, nil, 8},             // no thread
	)
	// start, end, correlationId, globalPid, demangledName, shortName
	exec(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?, ?)`,
		[]any{1000, 1010, 1, pid, 1, 1}, // two kernels of call 1: k1 and k1 (id 6)
		[]any{1000, 1020, 1, pid, 6, 6},
		[]any{1000, 1030, 2, pid, 2, 2},
		[]any{2000, 2040, 3, pid, 2, 2},
		[]any{1000, 1050, 4, pid, 1, 1},
		[]any{4000, 4060, 5, pid, 1, 1},
		[]any{7000, 7070, 6, pid, 2, 2},
		[]any{9000, 9080, 99, pid, 1, 1}, // no call
		[]any{9000, 9090, 7, pid, 2, 2},  // claimed by both calls 7
	)
	return path
}

// nvtx_kern_sum's rules, as its SQL has them: a kernel counts in every
// range of its launching thread that holds its launching call (nested
// ranges of one name twice in the durations, once in Kern Inst), push/pop
// and start/end ranges alike, a domain's name before ":"; a range never
// closed ends at the last NVTX time; a range ended on another thread
// counts nowhere; kernels launched outside every range form a row of
// NULL range, those no call launched a row of NULL thread too; a kernel
// two calls claim counts once per row in Kern Inst, in the durations once
// per call; ids of one text are one kernel name. Rows: range name, PID,
// TID (NULL first), then total time descending.
//
//	:outer/k1: kernels 1 and 2 (call 1) in both :outer: 10, 10, 20, 20
//	:outer/k2: kernel 3 (call 2) in the first, kernel 9 (call 7 at 120) in both: 30, 90, 90
//	mydom:se/k2: kernels 3, 4 and 9 (calls 2, 3 and both 7): 30, 40, 90, 90
//	:open/k2: kernel 4 (call 3) and 9 (call 7 at 1700): 40, 90
func TestStatsNvtxKernSumRules(t *testing.T) {
	want := `NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Kernel Name
,,,,0,1,80,80.0,80.0,80,80,0.0,k1
,,100,101,0,1,70,70.0,70.0,70,70,0.0,k2
:b-range,PushPop,100,102,1,1,50,50.0,50.0,50,50,0.0,k1
:inner,PushPop,100,101,1,2,30,15.0,15.0,10,20,7.1,k1
:open,PushPop,100,101,1,2,130,65.0,65.0,40,90,35.4,k2
:open,PushPop,100,101,1,1,60,60.0,60.0,60,60,0.0,k1
:outer,PushPop,100,101,2,2,210,70.0,90.0,30,90,34.6,k2
:outer,PushPop,100,101,2,2,60,15.0,15.0,10,20,5.8,k1
mydom:se,StartEnd,100,101,1,3,250,62.5,65.0,30,90,32.0,k2
mydom:se,StartEnd,100,101,1,2,30,15.0,15.0,10,20,7.1,k1

`
	if got := runStatsCmd(t, "--report", "nvtx_kern_sum", "--format", "csv", nvtxExport(t)); got != want {
		t.Errorf("(-want +got):\n%s", cmp.Diff(want, got))
	}
}
