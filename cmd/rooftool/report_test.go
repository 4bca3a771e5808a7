package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/testdata"
)

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "2026-11-22-test-1")
	writeTimingRun(t, runDir, 0.1, 10)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{[]string{"report", runDir, "-o", out, "--files", "md,json"}, 0, filepath.Join(out, "report.json"), ""},
		{[]string{"report", runDir, "-o", out, "--format", "md"}, 0, filepath.Join(out, "report.md"), "Flag --format has been deprecated, use --files"},
		{[]string{"report", runDir, "--files", "pdf"}, 2, "", `--files: unknown report format "pdf"`},
		{[]string{"report", runDir, "--files", "md", "--format", "md"}, 2, "", "--format is the old name of --files"},
		{[]string{"report", filepath.Join(dir, "missing")}, 2, "", "not a run directory"},
		{[]string{"report", runDir, runDir}, 2, "", "accepts at most 1 arg"},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), tc.args, &IO{Out: &o, Err: &e})
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, e.String())
		}
		if !strings.Contains(o.String(), tc.out) || !strings.Contains(e.String(), tc.err) {
			t.Errorf("%v: stdout %q, stderr %q; want %q and %q", tc.args, o.String(), e.String(), tc.out, tc.err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "# rooftool report: 2026-11-22-test-1") || !strings.Contains(string(md), "## Decisions") {
		t.Errorf("report.md:\n%s", md)
	}
}

// With no RUNDIR, report renders the run committed under testdata/runs.
func TestReportCommittedRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"report", "-o", out}, &IO{Out: &o, Err: &e})
	if len(testdata.Runs()) == 0 {
		if code != 1 || !strings.Contains(e.String(), "no run is committed under testdata/runs") {
			t.Errorf("no committed run: exit %d, stderr %q", code, e.String())
		}
		t.Skip("no run committed under testdata/runs yet")
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	for _, f := range []string{"report.md", "report.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// A report into a folder that holds an earlier one says which files it
// replaced, and removes (and names) a report file of a kind --files did
// not ask for this time; the paths written are all stdout gets.
func TestReportReplacesAndRemovesStale(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "2026-11-22-test-1")
	writeTimingRun(t, runDir, 0.1, 10)
	out := filepath.Join(dir, "out")
	report := func(args ...string) (string, string) {
		t.Helper()
		var o, e bytes.Buffer
		if code := run(context.Background(), append([]string{"report", runDir, "-o", out}, args...), &IO{Out: &o, Err: &e}); code != 0 {
			t.Fatalf("report %v: exit %d: %s", args, code, e.String())
		}
		return o.String(), e.String()
	}
	path := func(f string) string { return filepath.Join(out, f) }
	o, e := report()
	if want := path("report.md") + "\n" + path("report.json") + "\n" + path("report.html") + "\n"; o != want || e != "" {
		t.Errorf("first report: stdout %q, stderr %q; want %q and nothing", o, e, want)
	}
	o, e = report("--files", "md,json")
	for _, want := range []string{"report: replaced " + path("report.md") + "\n", "report: replaced " + path("report.json") + "\n",
		"report: removed stale " + path("report.html") + " (an earlier report; --files md,json did not write it)\n"} {
		if !strings.Contains(e, want) {
			t.Errorf("second report: stderr lacks %q:\n%s", want, e)
		}
	}
	if strings.Contains(o, "report.html") || strings.Contains(o, "replaced") {
		t.Errorf("second report: stdout %q", o)
	}
	if _, err := os.Stat(path("report.html")); !os.IsNotExist(err) {
		t.Errorf("the stale report.html is still there (%v)", err)
	}
}

// TestReportPlainIngestDir: report on what `rooftool ingest -o DIR` wrote
// from an export made outside rooftool profile is bad input, not a report
// of NOT MEASURED verdicts.
func TestReportPlainIngestDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plain")
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"ingest", realdata + "gpu4/report.sqlite", "-o", dir}, &IO{Out: &o, Err: &e}); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, e.String())
	}
	o.Reset()
	e.Reset()
	out := filepath.Join(t.TempDir(), "out")
	code := run(context.Background(), []string{"report", dir, "-o", out}, &IO{Out: &o, Err: &e})
	if code != exitBadArgs || !strings.Contains(e.String(), "no rooftool cells: use stats or roofline") {
		t.Errorf("exit %d, stderr %q; want exit 2, no rooftool cells", code, e.String())
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err == nil {
		t.Error("report.md written")
	}
}

// TestReportExampleRun: the committed run of the bring-your-own example
// (kernels/examples/fusedgelu: `rooftool new fusedgelu`, profiled on an
// H100 with --experiments) judges every claim it makes. The figures were
// read from the raw exports without rooftool: kernels per variant from the
// nsys SQLite with the sqlite3 CLI (kernels whose runtime call falls inside
// the variant's NVTX range: unfused 3, fused 1, compiled 2), the relative
// error from the check pass's JSON (vs_baseline.rel_err of fused at
// M=4096,N=4096,K=1024: 0.003635999397214556).
func TestReportExampleRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	var o, e bytes.Buffer
	dir := filepath.Join("..", "..", "kernels", "examples", "fusedgelu", "run")
	if code := run(context.Background(), []string{"report", dir, "-o", out, "--format", "json"}, &IO{Out: &o, Err: &e}); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Decisions []struct {
			Claim, Shape, Verdict string
			Measured              struct{ Center float64 }
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Decisions) != 7 {
		t.Fatalf("%d decisions, want 7 (4 claims, same-numbers at each of the 4 shapes)", len(r.Decisions))
	}
	for _, d := range r.Decisions {
		if d.Verdict == "NOT MEASURED" {
			t.Errorf("%s at %s: NOT MEASURED", d.Claim, d.Shape)
		}
		switch {
		case d.Claim == "one-kernel" && d.Measured.Center != 1:
			t.Errorf("one-kernel: measured %v kernels, the nsys export has 1", d.Measured.Center)
		case d.Claim == "same-numbers" && d.Shape == "M=4096,N=4096,K=1024" && d.Measured.Center != 0.003635999397214556:
			t.Errorf("same-numbers: measured %v, the check JSON says 0.003635999397214556", d.Measured.Center)
		}
	}
}

// TestReportBadClaimsSnapshot: a run whose claims snapshot has a string
// threshold or names a variant its spec lacks is bad input (exit 2, the
// file named), and no report is written.
func TestReportBadClaimsSnapshot(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"string threshold", "threshold: 1.1\n", "threshold: \"abc\"\n", "cannot unmarshal !!str `abc` into float64"},
		{"unknown candidate", "candidate: triton-epilogue\n", "candidate: nonesuch\n", `names variant "nonesuch"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.CopyFS(dir, os.DirFS("../../testdata/runs/2026-11-26-h100-065510")); err != nil {
				t.Fatal(err)
			}
			cp := filepath.Join(dir, "specs", "gated_ssm", "claims.yaml")
			b, err := os.ReadFile(cp)
			if err != nil || !strings.Contains(string(b), tc.from) {
				t.Fatalf("%s: %v, or no %q in it", cp, err, tc.from)
			}
			if err := os.WriteFile(cp, []byte(strings.Replace(string(b), tc.from, tc.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			var o, e bytes.Buffer
			code := run(context.Background(), []string{"report", dir, "-o", out}, &IO{Out: &o, Err: &e})
			if code != exitBadArgs || !strings.Contains(e.String(), tc.want) || !strings.Contains(e.String(), "claims.yaml") && !strings.Contains(e.String(), "spec.yaml") {
				t.Errorf("exit %d, stderr %q; want exit 2 naming the file and %q", code, e.String(), tc.want)
			}
			if _, err := os.Stat(filepath.Join(out, "report.md")); err == nil {
				t.Error("report.md written")
			}
		})
	}
}

// TestReportMissingClaimsFile: a run whose snapshot lost an experiment's
// claims.yaml still renders, and says which claims it did not judge (gla_proj
// has 5 claims: speedup, speedup-epilogue, speedup-max-autotune,
// hbm-reduction, hbm-reduction-epilogue, one shape each).
func TestReportMissingClaimsFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS("../../testdata/runs/2026-11-26-h100-065510")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "specs", "gla_proj", "claims.yaml")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"report", dir, "-o", out}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "has no claims.yaml: the 9 claims rooftool has for gla_proj are not judged"; !strings.Contains(string(md), want) {
		t.Errorf("report.md lacks %q", want)
	}
}

// TestReportTablesChanged: a run whose manifest records its tables'
// digests (here computed by the test with sha256) reports without a
// tables-changed warning; after kernels.parquet is replaced by another
// run's, the report names the file as changed.
func TestReportTablesChanged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS("../../testdata/runs/2026-11-26-h100-065510")); err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(dir, "manifest.json")
	var m map[string]any
	b, err := os.ReadFile(mpath)
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("%s: %v", mpath, err)
	}
	digests := map[string]string{}
	ents, err := os.ReadDir(filepath.Join(dir, "tables"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, "tables", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		digests[e.Name()] = hex.EncodeToString(sum[:])
	}
	m["table_digests"] = digests
	if b, err = json.Marshal(m); err != nil || os.WriteFile(mpath, b, 0o644) != nil {
		t.Fatal(err)
	}
	report := func() string {
		out := filepath.Join(t.TempDir(), "out")
		var o, e bytes.Buffer
		if code := run(context.Background(), []string{"report", dir, "-o", out}, &IO{Out: &o, Err: &e}); code != exitOK {
			t.Fatalf("exit %d: %s", code, e.String())
		}
		md, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(md)
	}
	if md := report(); strings.Contains(md, "tables-changed") {
		t.Error("tables as ingested, yet tables-changed")
	}
	other, err := os.ReadFile("../../testdata/runs/2026-11-23-h100-161238/tables/kernels.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tables", "kernels.parquet"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	if md := report(); !strings.Contains(md, "tables-changed") || !strings.Contains(md, "kernels.parquet changed") {
		t.Error("kernels.parquet replaced, and no tables-changed warning naming it")
	}
}
