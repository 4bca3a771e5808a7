package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
)

func runIngestCmd(args ...string) (code int, stderr string) {
	var o, e bytes.Buffer
	code = run(context.Background(), append([]string{"ingest"}, args...), &IO{Out: &o, Err: &e})
	return code, e.String()
}

// corruptCopy writes the first half of src to dir: a truncated export.
func corruptCopy(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "truncated.sqlite")
	if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tableRows reads every table of an ingest output directory as rows.
func tableRows(t *testing.T, dir string) map[string]any {
	t.Helper()
	tab, err := ingest.ReadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()
	return map[string]any{
		ingest.TableKernels: tab.Kernels(), ingest.TableMetrics: tab.Metrics(), ingest.TableRanges: tab.Ranges(),
		ingest.TableGPUs: tab.GPUs(), ingest.TableMeta: tab.Metas(), ingest.TableTimings: tab.Timings(),
	}
}

func TestIngestKeepGoing(t *testing.T) {
	tmp := t.TempDir()
	good := statsRealdata + "gpu4/report.sqlite"
	bad := corruptCopy(t, good, tmp)

	// Without the flag one bad file stops the ingest and nothing is written.
	all := filepath.Join(tmp, "all-or-nothing")
	code, stderr := runIngestCmd("-o", all, good, bad)
	if code != 2 || !strings.Contains(stderr, "truncated.sqlite") {
		t.Errorf("without --keep-going: exit %d, stderr %q; want 2 naming the bad file", code, stderr)
	}
	if _, err := os.Stat(all); !os.IsNotExist(err) {
		t.Errorf("without --keep-going %s was written (stat: %v)", all, err)
	}

	// With it the good file is ingested, the bad one listed with its reason, and the exit is 1.
	kept := filepath.Join(tmp, "kept")
	code, stderr = runIngestCmd("--keep-going", "-o", kept, good, bad)
	if code != 1 {
		t.Errorf("--keep-going with a bad file: exit %d, want 1 (stderr %q)", code, stderr)
	}
	for _, want := range []string{
		"skipped " + bad + ": corrupt SQLite database",
		"ingested 1 file(s): 4 kernels",
		"skipped 1 of 2 file(s)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	alone := filepath.Join(tmp, "alone")
	if code, stderr := runIngestCmd("-o", alone, good); code != 0 {
		t.Fatalf("ingest %s: exit %d: %s", good, code, stderr)
	}
	if d := cmp.Diff(tableRows(t, alone), tableRows(t, kept)); d != "" {
		t.Errorf("--keep-going tables differ from the good file's own (-alone +kept):\n%s", d)
	}

	// Nothing readable: nothing written, exit 1.
	none := filepath.Join(tmp, "none")
	code, stderr = runIngestCmd("--keep-going", "-o", none, bad)
	if code != 1 || !strings.Contains(stderr, "skipped "+bad) || !strings.Contains(stderr, "nothing written") {
		t.Errorf("--keep-going, all bad: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("all bad: %s was written (stat: %v)", none, err)
	}
}

// When every file reads, --keep-going writes the very tables the
// all-or-nothing ingest writes: kernel and range ids renumbered across
// files, metrics pointing at their kernels, ranges at their parents.
func TestIngestKeepGoingSameTables(t *testing.T) {
	files := []string{
		statsRealdata + "DLProf/nsys_profile.sqlite", // nested NVTX ranges
		statsRealdata + "gpu4/report.sqlite",
		statsRealdata + "ESMM-Research/metrics.csv", // ncu metrics
		statsRealdata + "HolisticTraceAnalysis/critical_path__benchmark_result_2869224_1695835535_trace.json.gz",
	}
	tmp := t.TempDir()
	plain, kept := filepath.Join(tmp, "plain"), filepath.Join(tmp, "kept")
	if code, stderr := runIngestCmd(append([]string{"-o", plain}, files...)...); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	code, stderr := runIngestCmd(append([]string{"--keep-going", "-o", kept}, files...)...)
	if code != 0 || strings.Contains(stderr, "skipped") {
		t.Fatalf("ingest --keep-going: exit %d: %s", code, stderr)
	}
	want, got := tableRows(t, plain), tableRows(t, kept)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tables (-all-or-nothing +keep-going):\n%s", d)
	}
	for _, name := range []string{ingest.TableKernels, ingest.TableMetrics, ingest.TableRanges} {
		if n := lenOf(got[name]); n == 0 {
			t.Errorf("table %s is empty: the inputs do not exercise its merge", name)
		}
	}
}

func lenOf(rows any) int {
	switch r := rows.(type) {
	case []ingest.Kernel:
		return len(r)
	case []ingest.Metric:
		return len(r)
	case []ingest.Range:
		return len(r)
	}
	return -1
}

// A second ingest into a directory another ingest holds fails with exit 1
// naming the lock file and its holder; a finished ingest leaves no lock.
func TestIngestLock(t *testing.T) {
	good := statsRealdata + "gpu4/report.sqlite"
	dir := filepath.Join(t.TempDir(), "out")
	if code, stderr := runIngestCmd("-o", dir, good); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	lock := filepath.Join(dir, ingest.LockName)
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("lock %s left after the ingest (stat: %v)", lock, err)
	}
	if err := os.WriteFile(lock, []byte("pid 4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tableRows(t, dir)
	code, stderr := runIngestCmd("--table-format", "arrow", "-o", dir, good)
	if code != 1 || !strings.Contains(stderr, lock) || !strings.Contains(stderr, "4242") {
		t.Errorf("ingest into a locked dir: exit %d, stderr %q; want 1 naming %s and pid 4242", code, stderr, lock)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("the other run's lock was removed: %v", err)
	}
	if d := cmp.Diff(before, tableRows(t, dir)); d != "" {
		t.Errorf("a locked-out ingest changed the tables:\n%s", d)
	}
	// A failed ingest into a new directory leaves no directory behind.
	fresh := filepath.Join(t.TempDir(), "fresh")
	if code, _ := runIngestCmd("-o", fresh, corruptCopy(t, good, t.TempDir())); code != 2 {
		t.Errorf("bad input: exit %d, want 2", code)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("failed ingest left %s (stat: %v)", fresh, err)
	}
}

// Ingesting as Arrow over Parquet tables (and back) leaves only the new
// format's files. --format, the old name of --table-format, still picks
// the format and says it is deprecated; giving both is a usage error.
func TestIngestFormatSwitch(t *testing.T) {
	good := statsRealdata + "gpu4/report.sqlite"
	dir := filepath.Join(t.TempDir(), "out")
	for i, f := range []string{ingest.FormatParquet, ingest.FormatArrow, ingest.FormatParquet, ingest.FormatArrow} {
		flag := "--table-format"
		if i == 3 {
			flag = "--format"
		}
		code, stderr := runIngestCmd(flag, f, "-o", dir, good)
		if code != 0 {
			t.Fatalf("ingest %s %s: exit %d: %s", flag, f, code, stderr)
		}
		if old := strings.Contains(stderr, "Flag --format has been deprecated, use --table-format"); old != (flag == "--format") {
			t.Errorf("ingest %s: stderr %q", flag, stderr)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), "."+f) {
				t.Errorf("after %s %s the dir holds %s", flag, f, e.Name())
			}
		}
		tableRows(t, dir)
	}
	if code, stderr := runIngestCmd("--format", "arrow", "--table-format", "arrow", "-o", dir, good); code != 2 || !strings.Contains(stderr, "give one of them") {
		t.Errorf("--format with --table-format: exit %d, stderr %q", code, stderr)
	}
}
