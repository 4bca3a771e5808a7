package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/gpu"
)

// fakePython writes an executable that stands in for python3: it copies
// JSON to the path after --out and exits with code.
func fakePython(t *testing.T, json string, code int) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "out.json")
	if err := os.WriteFile(src, []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --out ]; then shift; cp " + src + " \"$1\"; fi; shift; done\nexit " + string(rune('0'+code)) + "\n"
	p := filepath.Join(dir, "python")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCeilingsTest(t *testing.T, py, out string) (string, string, error) {
	t.Helper()
	var o, e bytes.Buffer
	err := runCeilings(context.Background(), &CeilingsOptions{IO: &IO{Out: &o, Err: &e}, Output: out, Python: py, Reps: 3})
	return o.String(), e.String(), err
}

func TestCeilingsMeasured(t *testing.T) {
	py := fakePython(t, `{"rooftool_ceilings": 1, "device": "NVIDIA H100 80GB HBM3", "items": [
	  {"name": "DRAM", "kind": "bandwidth", "value": 3.0e12, "median": 2.9e12, "method": "copy", "reps": 3},
	  {"name": "tensor bf16", "kind": "compute", "value": 7.5e14, "median": 7.4e14, "method": "matmul", "reps": 3}],
	  "errors": {"tensor fp8": "RuntimeError: nope"}}`, 0)
	dir := t.TempDir()
	stdout, stderr, err := runCeilingsTest(t, py, dir)
	if err != nil {
		t.Fatalf("runCeilings: %v (stderr %s)", err, stderr)
	}
	m, err := gpu.ReadMeasured(filepath.Join(dir, "ceilings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Items) != 2 || m.Items[0].Value != 3.0e12 {
		t.Errorf("stored %+v", m)
	}
	// 3.0 of the H100 SXM's 3.35 TB/s is 90%; 750 of 989.5 TFLOP/s is 76%.
	for _, w := range []string{"DRAM", "3.00 TB/s", "750 TFLOP/s", "90%", "76%", "NVIDIA H100 SXM5 80GB"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	if !strings.Contains(stderr, "tensor fp8 not measured") {
		t.Errorf("stderr lacks the failed ceiling:\n%s", stderr)
	}
}

// Without a CUDA device (the script's skipped JSON, exit 3) or with every
// ceiling failing, nothing is measured: exit 1 (machine or tool failure,
// README) with the reason, no ceilings.json and no folder of -o that was
// not there before (runs/x/ceilings.json leaves no empty runs/x/).
func TestCeilingsSkipped(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"rooftool_ceilings": 1, "device": "", "items": [], "skipped": "no CUDA device"}`, "nothing measured: no CUDA device"},
		{`{"rooftool_ceilings": 1, "device": "NVIDIA H100 80GB HBM3", "items": [], "errors": {"DRAM": "RuntimeError: out of memory"}}`, "DRAM: RuntimeError: out of memory"},
	} {
		code := 3
		if !strings.Contains(c.json, "skipped") {
			code = 0
		}
		tmp := t.TempDir()
		out := filepath.Join(tmp, "runs", "x", "ceilings.json")
		_, _, err := runCeilingsTest(t, fakePython(t, c.json, code), out)
		if err == nil || exitCode(err) != exitFailure || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v (exit %d), want exit %d with %q", err, exitCode(err), exitFailure, c.want)
		}
		if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
			t.Errorf("nothing measured, yet %s holds %v (%v)", tmp, ents, err)
		}
		// A folder that was there before stays.
		if err := os.Mkdir(filepath.Join(tmp, "runs"), 0o755); err != nil {
			t.Fatal(err)
		}
		runCeilingsTest(t, fakePython(t, c.json, code), out)
		if ents, err := os.ReadDir(filepath.Join(tmp, "runs")); err != nil || len(ents) != 0 {
			t.Errorf("runs/ existed: after a failed run it holds %v (%v), want it kept and empty", ents, err)
		}
	}
}

func TestCeilingsFailures(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCeilingsTest(t, fakePython(t, `{}`, 1), dir); err == nil || !strings.Contains(err.Error(), "status 1") {
		t.Errorf("exit 1: err = %v", err)
	}
	if _, _, err := runCeilingsTest(t, fakePython(t, `{"rooftool_ceilings": 1, "items": [{"name": "DRAM", "kind": "bandwidth", "value": -1}]}`, 0), dir); err == nil || !strings.Contains(err.Error(), "positive") {
		t.Errorf("bad value: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ceilings.json")); !os.IsNotExist(err) {
		t.Errorf("a failed run left ceilings.json behind: %v", err)
	}
	if _, _, err := runCeilingsTest(t, filepath.Join(dir, "no-such-python"), dir); err == nil {
		t.Error("missing python: no error")
	} else if exitCode(err) != exitBadArgs {
		t.Errorf("missing python: exit code %d, want %d", exitCode(err), exitBadArgs)
	}
}

// The embedded script itself, with the python3 of this machine: where torch
// is missing it writes a skipped JSON and exits 3, which rooftool reports
// as nothing measured (exit 1).
func TestCeilingsScriptWithoutTorch(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on this machine")
	}
	if exec.Command(py, "-c", "import torch").Run() == nil {
		t.Skip("torch is installed here: the script would measure, not skip")
	}
	out := filepath.Join(t.TempDir(), "ceilings.json")
	_, _, err = runCeilingsTest(t, py, out)
	if err == nil || exitCode(err) != exitFailure || !strings.Contains(err.Error(), "nothing measured: torch not importable") {
		t.Errorf("err = %v, want exit 1 with nothing measured: torch not importable", err)
	}
}
