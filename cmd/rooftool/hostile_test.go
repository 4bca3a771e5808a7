package main

import (
	"compress/gzip"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Hostile inputs: public exports mutated the way a damaged or re-saved
// file would be. None may exit 0 with a wrong figure or an unwarned
// duplicate; each expected figure comes from sqlite3 or the file itself.

// sqliteInt runs a one-number query on an export.
func sqliteInt(t *testing.T, path, q string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestHostileNsysRepeatedRows: the DLProf export with its first 3 kernel
// rows written again. stats counts them as nsys stats does (its report is
// a GROUP BY over the table) and says so; ingest says so too.
func TestHostileNsysRepeatedRows(t *testing.T) {
	src := statsRealdata + "DLProf/nsys_profile.sqlite"
	dup := copyExport(t, src, `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid <= 3`)
	all := sqliteInt(t, dup, `SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL`)
	distinct := sqliteInt(t, dup, `SELECT COUNT(*) FROM (SELECT DISTINCT * FROM CUPTI_ACTIVITY_KIND_KERNEL)`)
	if all-distinct != 3 {
		t.Fatalf("sqlite3: %d rows, %d distinct", all, distinct)
	}
	out, errOut := mustRun(t, exitOK, "stats", "--report", "cuda_gpu_kern_sum", "--format", "json", dup)
	if !strings.Contains(errOut, "3 rows of CUPTI_ACTIVITY_KIND_KERNEL have the start, end and names of another row") {
		t.Errorf("stats: no warning of the repeated rows:\n%s", errOut)
	}
	var rep struct {
		Rows []struct {
			Instances int `json:"Instances"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	n := 0
	for _, r := range rep.Rows {
		n += r.Instances
	}
	if n != all {
		t.Errorf("stats counts %d kernels, nsys stats (the table) %d", n, all)
	}
	_, errOut = mustRun(t, exitOK, "ingest", dup, "-o", filepath.Join(t.TempDir(), "t"))
	if !strings.Contains(errOut, "3 rows of CUPTI_ACTIVITY_KIND_KERNEL repeat another row exactly") || !strings.Contains(errOut, strconv.Itoa(all)+" kernels") {
		t.Errorf("ingest:\n%s", errOut)
	}
}

// TestHostileNsysNoKernels: an export whose kernel table is empty is
// refused as one without the table is, by ingest as by stats.
func TestHostileNsysNoKernels(t *testing.T) {
	src := statsRealdata + "DLProf/nsys_profile.sqlite"
	empty := copyExport(t, src, `DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL`)
	gone := copyExport(t, src, `DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL`)
	for _, f := range []string{empty, gone} {
		out := filepath.Join(t.TempDir(), "t")
		_, e := mustRun(t, exitBadArgs, "ingest", f, "-o", out)
		if !strings.Contains(e, "CUPTI_ACTIVITY_KIND_KERNEL") {
			t.Errorf("ingest %s: %s", f, e)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("ingest %s left %s behind", f, out)
		}
		mustRun(t, exitBadArgs, "stats", f)
	}
}

// TestHostileNsysEndlessKernel: a kernel of 2^63-1 ns (end at the int64
// maximum) is refused by ingest as by stats.
func TestHostileNsysEndlessKernel(t *testing.T) {
	f := copyExport(t, statsRealdata+"DLProf/nsys_profile.sqlite",
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 0, end = 9223372036854775807 WHERE rowid = 1`)
	for _, args := range [][]string{{"ingest", f, "-o", filepath.Join(t.TempDir(), "t")}, {"stats", f}, {"stats", "--report", "cuda_gpu_kern_sum", f}} {
		_, e := mustRun(t, exitBadArgs, args...)
		if !strings.Contains(e, "more than 2^62 ns") {
			t.Errorf("%v: %s", args, e)
		}
	}
}

// TestHostileMangledNames: --mangled over an export whose kernels lack a
// mangled name (the column NULL) lists them by their demangled names and
// says how many.
func TestHostileMangledNames(t *testing.T) {
	f := copyExport(t, statsRealdata+"DLProf/nsys_profile.sqlite", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET mangledName = NULL WHERE rowid <= 5`)
	for _, args := range [][]string{{"stats", "--mangled", f}, {"stats", "--report", "cuda_gpu_kern_sum", "--mangled", f}} {
		_, e := mustRun(t, exitOK, args...)
		if !strings.Contains(e, "warning: 5 kernel(s) have no mangled name in the input: they are listed by their demangled name") {
			t.Errorf("%v: %s", args, e)
		}
	}
}

// TestHostileNCURepeatedRows: a raw page with every kernel row written
// twice ingests its 16 kernels once, with a warning; the same ID on
// another kernel is refused.
func TestHostileNCURepeatedRows(t *testing.T) {
	src := statsRealdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var kernels []string
	for _, l := range lines[4:] { // after the PROF lines, header and units
		if strings.HasPrefix(l, `"`) {
			kernels = append(kernels, l)
		}
	}
	if len(kernels) != 16 {
		t.Fatalf("%d kernel rows in %s, want 16", len(kernels), src)
	}
	dir := t.TempDir()
	twice := filepath.Join(dir, "twice.ncu.csv")
	os.WriteFile(twice, []byte(string(data)+strings.Join(kernels, "")), 0o644)
	_, e := mustRun(t, exitOK, "ingest", twice, "-o", filepath.Join(dir, "t"))
	if !strings.Contains(e, "16 rows repeat an earlier row of the same kernel ID exactly") || !strings.Contains(e, "16 kernels") {
		t.Errorf("ingest:\n%s", e)
	}
	other := filepath.Join(dir, "other.ncu.csv")
	k0 := strings.Replace(kernels[0], "flash_fwd_splitkv_combine_kernel", "other_kernel", 1)
	os.WriteFile(other, []byte(string(data)+k0), 0o644)
	_, e = mustRun(t, exitBadArgs, "ingest", other, "-o", filepath.Join(dir, "o"))
	if !strings.Contains(e, "kernel ID 0 names another kernel") {
		t.Errorf("ingest of a shared ID:\n%s", e)
	}
}

// TestHostileKinetoRepeatedEvents: a Kineto trace with its 79 kernel events
// written twice ingests 79 kernels, with a warning.
func TestHostileKinetoRepeatedEvents(t *testing.T) {
	src := statsRealdata + "HolisticTraceAnalysis/critical_path__benchmark_result_2869224_1695835535_trace.json.gz"
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var trace map[string]any
	if err := json.NewDecoder(zr).Decode(&trace); err != nil {
		t.Fatal(err)
	}
	evs := trace["traceEvents"].([]any)
	n := 0
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok && m["cat"] == "kernel" {
			evs = append(evs, m)
			n++
		}
	}
	if n != 79 {
		t.Fatalf("%d kernel events, want 79", n)
	}
	trace["traceEvents"] = evs
	data, _ := json.Marshal(trace)
	dir := t.TempDir()
	twice := filepath.Join(dir, "twice.json")
	os.WriteFile(twice, data, 0o644)
	_, e := mustRun(t, exitOK, "ingest", twice, "-o", filepath.Join(dir, "t"))
	if !strings.Contains(e, "79 kernel events repeat another exactly") || !strings.Contains(e, "79 kernels") {
		t.Errorf("ingest:\n%s", e)
	}
}
