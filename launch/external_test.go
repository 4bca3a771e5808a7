package launch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels/scaffold"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

// newExperiment scaffolds experiment name under a fresh folder (rooftool new).
func newExperiment(t *testing.T, name string) string {
	t.Helper()
	dir, _, err := scaffold.Write(filepath.Join(t.TempDir(), "my experiments"), name)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunExternalExperiment(t *testing.T) {
	cfg, logf := fakeEnv(t)
	ext := newExperiment(t, "bias_gelu")
	cfg.ExperimentDirs = []string{ext}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Alone, --experiments selects only its experiments.
	for _, c := range m.Cells {
		if c.Experiment != "bias_gelu" {
			t.Fatalf("cell %s ran: only the external experiment should", c.Key())
		}
	}
	for _, v := range []string{"unfused", "fused", "compiled"} {
		c := "bias_gelu/" + v + "/M=4096,N=4096,K=1024"
		mustPass(t, m, c, rundir.PassCheck, rundir.StatusOK, "")
		mustPass(t, m, c, rundir.PassTiming, rundir.StatusOK, "")
	}
	calls := runnerCalls(t, logf)
	if len(calls) == 0 || !slices.Contains(calls[len(calls)-1], "bias_gelu") {
		t.Errorf("runner calls = %q", calls)
	}
	if got := m.Options["env."+ExperimentDirsEnv]; got != ext {
		t.Errorf("env.%s = %q, want %q", ExperimentDirsEnv, got, ext)
	}
	if m.Options["experiments_dirs"] != ext {
		t.Errorf("experiments_dirs = %q", m.Options["experiments_dirs"])
	}
	// The snapshot holds the external spec and claims, so that report judges them offline.
	for _, f := range []string{"spec.yaml", "claims.yaml"} {
		want, _ := os.ReadFile(filepath.Join(ext, f))
		got, err := os.ReadFile(filepath.Join(cfg.RunDir, filepath.FromSlash(rundir.SpecsPath("bias_gelu", f))))
		if err != nil || string(got) != string(want) {
			t.Errorf("snapshot %s: %v (equal: %v)", f, err, string(got) == string(want))
		}
	}
	run, err := rundir.Open(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	fsys, ok := run.Specs()
	if !ok {
		t.Fatal("the run has no specs snapshot")
	}
	exps, err := spec.LoadFS(fsys)
	if err != nil || len(exps) != 1 || exps[0].Name != "bias_gelu" {
		t.Fatalf("snapshot experiments = %v, %v", exps, err)
	}
	if c := exps[0].Claims[0]; c.Source == "" || c.Seed != "" || c.Line == 0 {
		t.Errorf("claim %+v: want a source: and line:, no seed:", c)
	}
}

func TestRunExternalWithBuiltin(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.ExperimentDirs = []string{filepath.Dir(newExperiment(t, "bias_gelu"))} // a folder of experiments
	cfg.Experiments = []string{"fake", "bias_gelu"}
	cfg.Variants = []string{"good", "unfused"}
	cfg.Passes = []string{rundir.PassCheck}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassCheck, rundir.StatusOK, "")
	mustPass(t, m, "bias_gelu/unfused/M=4096,N=4096,K=1024", rundir.PassCheck, rundir.StatusOK, "")
}

func TestRunExternalErrors(t *testing.T) {
	cfg, _ := fakeEnv(t)
	bad := func(edit func(dir string)) string {
		d := newExperiment(t, "mine")
		edit(d)
		return d
	}
	replace := func(file, old, new string) func(string) {
		return func(d string) {
			p := filepath.Join(d, file)
			data, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(data), old) {
				t.Fatalf("%s: %v, or no %q in it", p, err, old)
			}
			os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
		}
	}
	empty := t.TempDir()
	for _, tc := range []struct {
		name, dir string
		want      []string
	}{
		{"missing", filepath.Join(empty, "nothere"), []string{"nothere", "no such folder"}},
		{"no spec", empty, []string{"spec.yaml", "no such file"}},
		{"bad role", bad(replace("spec.yaml", "role: candidate", "role: winner")), []string{"mine/spec.yaml", `role "winner"`}},
		{"unknown field", bad(replace("spec.yaml", "\ntolerance:", "\ntolerence:")), []string{"mine/spec.yaml", "tolerence"}},
		{"bad claim variant", bad(replace("claims.yaml", "candidate: fused", "candidate: fuzed")), []string{"mine/spec.yaml", "claim one-kernel", `"fuzed"`}},
		{"seed and source", bad(replace("claims.yaml", "    line: 12", "    seed: \"001\"\n    line: 12")), []string{"claim one-kernel", "seed or source"}},
		{"folder name", bad(replace("spec.yaml", "experiment: mine", "experiment: yours")), []string{"mine/claims.yaml", `"yours"`, `"mine"`}},
		{"no variants.py", bad(func(d string) { os.Remove(filepath.Join(d, "variants.py")) }), []string{"mine/variants.py", "no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.ExperimentDirs = []string{tc.dir}
			c.RunDir = filepath.Join(t.TempDir(), "run")
			_, err := Run(context.Background(), c)
			var ce *plan.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a plan.ConfigError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want %q in it", err, w)
				}
			}
			if _, err := os.Stat(c.RunDir); err == nil {
				t.Errorf("a bad folder still made the run directory")
			}
		})
	}
	// An external experiment may not take the name of one of rooftool's own.
	c := cfg
	d := filepath.Join(t.TempDir(), "fake")
	os.MkdirAll(d, 0o755)
	files, _ := scaffold.Files("fake")
	for f, data := range files {
		os.WriteFile(filepath.Join(d, f), data, 0o644)
	}
	c.ExperimentDirs = []string{d}
	if _, err := Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), `"fake" is one of rooftool's own`) {
		t.Errorf("err = %v", err)
	}
}

// TestRunExternalEmbeddedRunner runs an external experiment where --kernels
// has no run.py: the runner built into rooftool is extracted and finds the
// experiment through ROOFTOOL_EXPERIMENT_DIRS. Without a GPU its check fails
// for that reason, not as bad usage (an unknown experiment); without torch
// the run stops before any cell (PreflightError), and the test is skipped.
func TestRunExternalEmbeddedRunner(t *testing.T) {
	cfg, _ := fakeEnv(t)
	if err := exec.Command("python3", "-c", "import yaml").Run(); err != nil {
		t.Skip("python3 has no PyYAML: the runner's spec loader needs it")
	}
	cfg.KernelsDir = t.TempDir()
	cfg.ExperimentDirs = []string{newExperiment(t, "bias_gelu")}
	cfg.Passes = []string{rundir.PassCheck}
	cfg.Variants = []string{"unfused"}
	cfg.Shapes = []string{"M=1024,N=4096,K=1024"}
	m, err := Run(context.Background(), cfg)
	var pe *PreflightError
	if errors.As(err, &pe) && strings.Contains(err.Error(), "rooftool-runner-") && strings.Contains(err.Error(), "torch") {
		// The extracted runner ran (its env mode), but without torch no pass can.
		t.Skipf("the embedded runner has no torch here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.Options["kernels"], "(built into rooftool") {
		t.Errorf("kernels option = %q", m.Options["kernels"])
	}
	st, ok := m.Pass("bias_gelu", "unfused", "M=1024,N=4096,K=1024", rundir.PassCheck)
	if !ok {
		t.Fatal("no check status")
	}
	if strings.Contains(st.Reason, "unknown experiment") || strings.Contains(st.Reason, "exit status 2") {
		t.Errorf("the embedded runner did not find the experiment: %+v", st)
	}
	t.Logf("check: %s %s", st.Status, st.Reason)
}
