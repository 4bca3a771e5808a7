package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/spec"
	"github.com/rooftool/rooftool/verdict"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := run(context.Background(), args, &IO{Out: &o, Err: &e})
	return code, o.String(), e.String()
}

// TestNewValidates: the scaffold loads as rooftool's own experiments do (Go
// spec validation, claims with known metrics and operators, theory formulas
// that evaluate at every shape) and as the Python runner loads it.
func TestNewValidates(t *testing.T) {
	parent := t.TempDir()
	code, out, errs := runCLI(t, "new", "bias_gelu", "-o", parent)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	dir := filepath.Join(parent, "bias_gelu")
	for _, f := range []string{"spec.yaml", "claims.yaml", "variants.py"} {
		if !strings.Contains(out, "created "+filepath.Join(dir, f)) {
			t.Errorf("stdout does not list %s:\n%s", f, out)
		}
	}
	exps, err := spec.LoadFS(os.DirFS(parent))
	if err != nil || len(exps) != 1 {
		t.Fatalf("LoadFS: %v, %d experiments", err, len(exps))
	}
	e := exps[0]
	if e.Name != "bias_gelu" || len(e.Claims) == 0 || len(e.Theory) != len(e.Variants) {
		t.Fatalf("experiment %s: %d claims, %d theories, %d variants", e.Name, len(e.Claims), len(e.Theory), len(e.Variants))
	}
	for _, c := range e.Claims {
		if !slices.Contains(verdict.Metrics, c.Metric) {
			t.Errorf("claim %s: metric %q is not one of %v", c.ID, c.Metric, verdict.Metrics)
		}
		if !slices.Contains([]string{">=", "<=", ">", "<"}, c.Op) {
			t.Errorf("claim %s: op %q", c.ID, c.Op)
		}
		if c.Source == "" || c.Seed != "" || c.Line == 0 || c.Quote == "" {
			t.Errorf("claim %s: want source:, line: and quote:, no seed: (%+v)", c.ID, c)
		}
	}
	for v, th := range e.Theory {
		for _, s := range e.AllShapes() {
			b, f, err := analysis.EvalTheory(th, s)
			if err != nil || b <= 0 || f <= 0 {
				t.Errorf("theory of %s at %s: %v bytes, %v flops, %v", v, s, b, f, err)
			}
		}
	}
	// The model's DRAM reduction clears the scaffold's own dram_reduction claim.
	s := e.Shapes[0]
	ub, _, _ := analysis.EvalTheory(e.Theory["unfused"], s)
	fb, _, _ := analysis.EvalTheory(e.Theory["fused"], s)
	if r := 1 - fb/ub; r < 0.5 {
		t.Errorf("model reduction %.2f < 0.5", r)
	}

	// The Python spec loader (run.py list needs PyYAML, not torch).
	if err := exec.Command("python3", "-c", "import yaml").Run(); err != nil {
		t.Skip("python3 with PyYAML not available: Python side not checked")
	}
	cmd := exec.Command("python3", "../../kernels/run.py", "list", "--experiments-dir", dir, "-e", "bias_gelu")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("run.py list: %v: %s", err, se.String())
	}
	var cells []map[string]any
	if err := json.Unmarshal(so.Bytes(), &cells); err != nil {
		t.Fatal(err)
	}
	if want := len(e.Variants) * len(e.AllShapes()); len(cells) != want {
		t.Errorf("run.py list: %d cells, want %d", len(cells), want)
	}
}

func TestNewRefuses(t *testing.T) {
	parent := t.TempDir()
	if code, _, errs := runCLI(t, "new", "x", "-o", parent); code != exitOK {
		t.Fatalf("first: exit %d: %s", code, errs)
	}
	// An existing non-empty folder is refused, and left as it was.
	spec := filepath.Join(parent, "x", "spec.yaml")
	os.WriteFile(spec, []byte("mine\n"), 0o644)
	if code, _, errs := runCLI(t, "new", "x", "-o", parent); code != exitBadArgs || !strings.Contains(errs, "not empty") {
		t.Errorf("existing: exit %d: %s", code, errs)
	}
	if data, _ := os.ReadFile(spec); string(data) != "mine\n" {
		t.Errorf("spec.yaml was overwritten")
	}
	// An existing empty folder is fine.
	os.MkdirAll(filepath.Join(parent, "empty"), 0o755)
	if code, _, errs := runCLI(t, "new", "empty", "-o", parent); code != exitOK {
		t.Errorf("empty folder: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{{"new", "a/b", "-o", parent}, {"new", "has space", "-o", parent}, {"new"}} {
		if code, _, errs := runCLI(t, args...); code != exitBadArgs {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
}

// TestProfileExperiments runs a scaffolded folder outside the repository
// through profile --experiments on the fake runner: the run's specs snapshot
// holds it and the report cites the claims' own sources.
func TestProfileExperiments(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH: the fake runner is a Python script")
	}
	t.Setenv("FAKE_LOG", "")
	parent := t.TempDir()
	if code, _, errs := runCLI(t, "new", "bias_gelu", "-o", parent); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errs)
	}
	rd := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, "profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels",
		"--experiments", filepath.Join(parent, "bias_gelu"), "--passes", "check,timing", "--default-only", "-o", rd)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "check:  3 ok, 0 failed, 0 skipped") {
		t.Errorf("stdout:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(rd, "specs", "bias_gelu", "claims.yaml")); err != nil {
		t.Errorf("snapshot: %v", err)
	}
	// report RUNDIR judges it offline, from the snapshot.
	if code, _, errs := runCLI(t, "report", rd); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	md, err := os.ReadFile(filepath.Join(rd, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bias_gelu", "docs/design.md:12", "https://example.com/your-design-doc#epilogue:20"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// A missing or invalid folder is bad usage, naming the file and field.
	bad := filepath.Join(parent, "bad")
	runCLI(t, "new", "bad", "-o", parent)
	os.WriteFile(filepath.Join(bad, "spec.yaml"), []byte("experiment: bad\nvariants:\n  - {name: a, role: boss}\n"), 0o644)
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(parent, "nope"), "no such folder"},
		{bad, `bad/spec.yaml: variant "a": role "boss"`},
	} {
		code, _, errs := runCLI(t, "profile", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels",
			"--experiments", tc.dir, "-o", filepath.Join(t.TempDir(), "r"))
		if code != exitBadArgs || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %q", tc.dir, code, errs, tc.want)
		}
	}
}
