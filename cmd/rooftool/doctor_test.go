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

	"github.com/rooftool/rooftool/launch"
)

// TestDoctorNoGPU runs doctor on this machine. Without nvidia-smi it must
// say there is no GPU (a problem: nothing can profile here), exit 1, and
// still print every finding, each problem with a fix.
func TestDoctorNoGPU(t *testing.T) {
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Skip("nvidia-smi present: this test is for machines without a GPU")
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"doctor", "--format", "json", "--probe=false"}, &IO{Out: &o, Err: &e}); code != exitFailure {
		t.Fatalf("exit %d, want %d: %s", code, exitFailure, e.String())
	}
	var doc launch.DoctorReport
	if err := json.Unmarshal(o.Bytes(), &doc); err != nil {
		t.Fatalf("doctor --format json: %v\n%s", err, o.String())
	}
	if doc.Version != launch.DoctorJSONVersion {
		t.Errorf("rooftool_doctor = %d, want %d", doc.Version, launch.DoctorJSONVersion)
	}
	seen := map[string]bool{}
	problems := 0
	for _, f := range doc.Findings {
		seen[f.Check] = true
		if f.Level == launch.LevelProblem {
			problems++
			if f.Fix == "" {
				t.Errorf("problem without a fix: %+v", f)
			}
		}
		if f.Check == "gpu" && (f.Level != launch.LevelProblem || !strings.Contains(f.Detail, "no GPU")) {
			t.Errorf("gpu finding = %+v, want a problem that says no GPU", f)
		}
	}
	if doc.Problems != problems {
		t.Errorf("problems = %d, findings of level problem = %d", doc.Problems, problems)
	}
	for _, c := range []string{"gpu", "cuda", "ncu", "nsys", "counters", "python"} {
		if !seen[c] {
			t.Errorf("no %q finding in %s", c, o.String())
		}
	}

	// CSV: the JSON keys of a finding as columns, one row per finding.
	o.Reset()
	if code := run(context.Background(), []string{"doctor", "--format", "csv", "--probe=false"}, &IO{Out: &o, Err: &e}); code != exitFailure {
		t.Fatalf("doctor --format csv: exit %d: %s", code, e.String())
	}
	recs, err := csv.NewReader(&o).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "check,level,detail,fix" || len(recs)-1 != len(doc.Findings) {
		t.Errorf("doctor --format csv: header %q, %d rows for %d findings", recs[0], len(recs)-1, len(doc.Findings))
	}

	// Text form.
	o.Reset()
	code := run(context.Background(), []string{"doctor", "--probe=false", "--ncu", "/nonexistent/ncu"}, &IO{Out: &o, Err: &e})
	if code != exitFailure || !strings.Contains(o.String(), "fix: ") || !strings.Contains(o.String(), "problem(s) found") {
		t.Errorf("doctor with no ncu: exit %d\n%s", code, o.String())
	}
}

// TestDoctorJSONAlias checks that the deprecated --json still gives the
// JSON of --format json, with its warning on stderr and not in the JSON.
func TestDoctorJSONAlias(t *testing.T) {
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"doctor", "--json", "--probe=false"}, &IO{Out: &o, Err: &e}); code == exitBadArgs {
		t.Fatalf("doctor --json: exit %d: %s", code, e.String())
	}
	var doc launch.DoctorReport
	if err := json.Unmarshal(o.Bytes(), &doc); err != nil || doc.Version != launch.DoctorJSONVersion {
		t.Fatalf("doctor --json: %v, version %d\n%s", err, doc.Version, o.String())
	}
	if !strings.Contains(e.String(), "--json has been deprecated, use --format json") {
		t.Errorf("doctor --json: stderr %q lacks the deprecation", e.String())
	}
	// --json hides from help; --json with another --format is bad usage.
	o.Reset()
	run(context.Background(), []string{"doctor", "--help"}, &IO{Out: &o, Err: &e})
	for _, l := range strings.Split(o.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--json") {
			t.Errorf("doctor --help lists --json: %q", l)
		}
	}
	if !strings.Contains(o.String(), "--format string") {
		t.Errorf("doctor --help lacks --format:\n%s", o.String())
	}
	for _, args := range [][]string{{"doctor", "--json", "--format", "csv"}, {"doctor", "--format", "xml"}} {
		if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != exitBadArgs {
			t.Errorf("rooftool %q: exit %d, want %d", args, code, exitBadArgs)
		}
	}
}

// fakeDoctorPython writes an interpreter that answers doctor's Python
// check with out (its JSON).
func fakeDoctorPython(t *testing.T, out string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDoctorExitStatus: doctor exits 0 where everything required is there
// (a GPU, ncu, nsys, the runner's Python with torch, Triton and PyYAML,
// the kernels) whatever optional package is missing, 1 where a required
// thing is missing, and with --strict 1 on a warning too.
func TestDoctorExitStatus(t *testing.T) {
	abs, err := filepath.Abs(fakeBin)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", abs+string(os.PathListSeparator)+os.Getenv("PATH"))
	all := `{"python": "3.12.3", "torch": "2.11.0", "torch_cuda": "13.0", "cuda_available": true, "triton": "3.6.0", "yaml": "6.0.1", "numpy": "2.1.0"}`
	base := []string{"doctor", "--probe=false", "--ncu", fakeBin + "ncu", "--nsys", fakeBin + "nsys"}
	for _, tc := range []struct {
		name   string
		python string
		extra  []string
		want   int
	}{
		{"all required, no optional package", all, nil, exitOK},
		{"torch missing", `{"python": "3.12.3", "torch_error": "ModuleNotFoundError", "triton": "3.6.0", "yaml": "6.0.1", "numpy": "2.1.0"}`, nil, exitFailure},
		{"no kernels folder with run.py", all, []string{"--kernels", t.TempDir()}, exitFailure},
		{"numpy missing (a warning)", `{"python": "3.12.3", "torch": "2.11.0", "cuda_available": true, "triton": "3.6.0", "yaml": "6.0.1", "numpy_error": "ModuleNotFoundError"}`, nil, exitOK},
		{"numpy missing, --strict", `{"python": "3.12.3", "torch": "2.11.0", "cuda_available": true, "triton": "3.6.0", "yaml": "6.0.1", "numpy_error": "ModuleNotFoundError"}`, []string{"--strict"}, exitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o, e bytes.Buffer
			args := append(append(append([]string{}, base...), "--python", fakeDoctorPython(t, tc.python)), tc.extra...)
			if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != tc.want {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.want, o.String(), e.String())
			}
		})
	}
}
