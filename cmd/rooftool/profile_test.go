package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

func TestProfileUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile"}, "--gpu is required"},
		{[]string{"profile", "--gpu", "h100", "--default-only", "--sweeps"}, "exclude each other"},
		{[]string{"profile", "--gpu", "h100", "--reps", "5"}, "--reps 5"},
		{[]string{"profile", "--gpu", "h100", "--range-process", "per-shape"}, `--range-process "per-shape": want per-cell or per-experiment`},
		{[]string{"profile", "--gpu", "h100", "--range-process="}, `--range-process "": want per-cell or per-experiment`},
		{[]string{"profile", "--gpu", "h100", "--gpus", "0,1", "-o", "x", "--range-process", "one"}, `--range-process "one"`},
		{[]string{"profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels", "--experiment", "nope", "-o", "x"}, `--experiment "nope"`},
		{[]string{"profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels", "--passes", "check,bogus", "-o", "x"}, `unknown pass "bogus"`},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), tc.args, &IO{Out: &o, Err: &e})
		if code != exitBadArgs || !strings.Contains(e.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with %q", tc.args, code, e.String(), tc.want)
		}
	}
}

// TestProfileFake runs the command end to end on the fake runner (no GPU,
// no profiler): check and timing passes, a summary on stdout, plain
// progress lines on stderr.
func TestProfileFake(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH: the fake runner is a Python script")
	}
	t.Setenv("FAKE_LOG", "")
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels",
		"--variant", "good", "--variant", "wrong", "--shape", "n=1", "--passes", "check,timing", "-o", dir}
	var o, e bytes.Buffer
	if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, o.String(), e.String())
	}
	for _, want := range []string{"run: " + dir, "check:  1 ok, 1 failed, 0 skipped", "timing: 1 ok, 0 failed, 1 skipped", "failed: fake/wrong/n=1 [check]: max rel err"} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.String())
		}
	}
	if !strings.Contains(e.String(), "[2/4] fake check: 1 ok, 1 failed") {
		t.Errorf("stderr progress lines:\n%s", e.String())
	}
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.GPURequested != "h100" || m.Versions["rooftool"] != version || len(m.Cells) != 2 {
		t.Errorf("manifest: gpu_requested %q, versions %v, %d cells", m.GPURequested, m.Versions, len(m.Cells))
	}
	if _, err := os.Stat(filepath.Join(dir, "tables", "timings.parquet")); err != nil {
		t.Errorf("tables: %v", err)
	}
	// Profile ends with the run's report, as rooftool report writes it.
	for _, f := range []string{"report.md", "report.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("report: %v", err)
		}
	}
	if !strings.Contains(o.String(), "report: "+filepath.Join(dir, "report.md")) {
		t.Errorf("stdout does not name the report:\n%s", o.String())
	}
	// A second run into the same directory needs --resume.
	o.Reset()
	e.Reset()
	if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != exitBadArgs || !strings.Contains(e.String(), "--resume") {
		t.Errorf("rerun: exit %d, stderr %q", code, e.String())
	}
	o.Reset()
	e.Reset()
	if code := run(context.Background(), append(args, "--resume"), &IO{Out: &o, Err: &e}); code != exitOK {
		t.Errorf("resume: exit %d, stderr %q", code, e.String())
	}
}

// The summary says how the range pass replayed its cells.
func TestProfileRangeSummary(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH: the fake runner and ncu are Python scripts")
	}
	for _, k := range []string{"FAKE_LOG", "FAKE_NCU_PERM", "FAKE_NCU_LOG", "FAKE_CODE", "FAKE_RANGE_FAIL", "FAKE_APPRANGE_FAIL", "FAKE_APPRANGE_PARTIAL"} {
		t.Setenv(k, "")
	}
	for _, tc := range []struct {
		name, partial, want string
	}{
		{"one method each", "", "range:  2 ok, 0 failed, 0 skipped (1 range, 1 app-range)\n"},
		{"partial", "good/n=1", "range:  2 ok, 0 failed, 0 skipped (2 app-range; 1 below 0.90 of the kernel pass)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FAKE_RANGE_PARTIAL", tc.partial)
			t.Setenv("FAKE_APPRANGE_PARTIAL", tc.partial)
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels", "--ncu", "../../launch/testdata/bin/ncu",
				"--variant", "good", "--variant", "graphy", "--shape", "n=1", "--passes", "check,ncu,range", "--no-report", "-o", dir}
			var o, e bytes.Buffer
			if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, o.String(), e.String())
			}
			if !strings.Contains(o.String(), tc.want) {
				t.Errorf("stdout lacks %q:\n%s", tc.want, o.String())
			}
		})
	}
}
