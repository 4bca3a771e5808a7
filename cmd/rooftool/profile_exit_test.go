package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// A profile whose every cell fails measures nothing: exit 1 (machine or
// tool failure, README), naming the first failure, with the run directory
// kept for inspection.
func TestProfileNothingMeasured(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH: the fake runner is a Python script")
	}
	t.Setenv("FAKE_LOG", "")
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels",
		"--variant", "wrong", "--shape", "n=1", "--passes", "check,timing", "-o", dir}
	var o, e bytes.Buffer
	code := run(context.Background(), args, &IO{Out: &o, Err: &e})
	if code != exitFailure || !strings.Contains(e.String(), "nothing measured") || !strings.Contains(e.String(), "fake/wrong/n=1 [check]") {
		t.Errorf("exit %d, stderr %q; want 1 and nothing measured naming fake/wrong/n=1 [check]", code, e.String())
	}
	if _, err := rundir.ReadManifest(dir); err != nil {
		t.Errorf("manifest: %v", err)
	}
}

// --cmd ” is a usage error, not a run of the whole built-in suite.
func TestProfileEmptyCmd(t *testing.T) {
	for _, cmd := range []string{"", "  "} {
		dir := filepath.Join(t.TempDir(), "run")
		var o, e bytes.Buffer
		code := run(context.Background(), []string{"profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels", "--cmd", cmd, "-o", dir}, &IO{Out: &o, Err: &e})
		if code != exitBadArgs || !strings.Contains(e.String(), "--cmd is empty") {
			t.Errorf("--cmd %q: exit %d, stderr %q; want 2 and --cmd is empty", cmd, code, e.String())
		}
		if _, err := rundir.ReadManifest(dir); err == nil {
			t.Errorf("--cmd %q: a run was written", cmd)
		}
	}
}
