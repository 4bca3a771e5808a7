package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

// importRe matches the module a Python line imports ("from common import
// x" and "import yaml" give common and yaml; "from . import x" gives ".").
var importRe = regexp.MustCompile(`(?m)^\s*(?:from\s+(\.|[A-Za-z_]\w*)[\w.]*\s+import|import\s+([A-Za-z_]\w*))`)

// TestKernelsStage: what scripts/kernels-stage.sh copies for an install
// (the wheel, the release archives, make install) is what a run reads from
// the kernels folder: the runner, every built-in experiment's spec,
// claims and variants, the warm stage's script, the sweep picks, the GPU
// requirements; and every module of the checkout's kernels folder that a
// staged file imports was staged too.
func TestKernelsStage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dst := filepath.Join(t.TempDir(), "kernels")
	if out, err := exec.Command("bash", filepath.Join("..", "scripts", "kernels-stage.sh"), dst).CombinedOutput(); err != nil {
		t.Fatalf("kernels-stage.sh: %v\n%s", err, out)
	}
	want := []string{"run.py", "ceilings.py", GPURequirements, filepath.FromSlash(WarmScript), filepath.Join("common", "runner.py")}
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		for _, f := range []string{"spec.yaml", "claims.yaml", "variants.py"} {
			want = append(want, filepath.Join(e.Name, f))
		}
	}
	picks, _ := filepath.Glob(filepath.Join("..", "kernels", filepath.FromSlash(PicksDir), "*.json"))
	if len(picks) == 0 {
		t.Fatal("the checkout has no sweep picks")
	}
	for _, p := range picks {
		want = append(want, filepath.Join(filepath.FromSlash(PicksDir), filepath.Base(p)))
	}
	for _, f := range want {
		if !fileExists(filepath.Join(dst, f)) {
			t.Errorf("not staged: %s", f)
		}
	}
	if staged, err := plan.LoadSpecs(dst); err != nil || len(staged) != len(exps) {
		t.Errorf("the staged specs: %d experiments, %v; want %d", len(staged), err, len(exps))
	}

	// Local modules: a name the checkout's kernels folder has as name.py
	// or name/ is staged wherever a staged file imports it.
	local := func(root, name string) bool {
		return fileExists(filepath.Join(root, name+".py")) || fileExists(filepath.Join(root, name, "__init__.py"))
	}
	src := filepath.Join("..", "kernels")
	err = filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		for _, m := range importRe.FindAllStringSubmatch(string(data), -1) {
			name := m[1] + m[2]
			if name == "." || name == "__future__" {
				continue // a sibling in the same folder: every .py of a staged folder is staged
			}
			if local(src, name) && !local(dst, name) {
				t.Errorf("%s imports %s, which is not staged", rel, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// wheelExtras reads the [project.optional-dependencies] table of the
// wheel's pyproject.toml: extra -> its requirements, each extra on one line.
func wheelExtras(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "packaging", "wheel", "pyproject.toml"))
	if err != nil {
		t.Fatal(err)
	}
	extras := map[string][]string{}
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "["+"project.optional-dependencies]"):
			in = true
		case strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "[\""):
			in = false
		case in && strings.Contains(l, "="):
			k, v, _ := strings.Cut(l, "=")
			var reqs []string
			for _, r := range strings.Split(strings.Trim(strings.TrimSpace(v), "[]"), ",") {
				if r = strings.Trim(strings.TrimSpace(r), `"`); r != "" {
					reqs = append(reqs, r)
				}
			}
			extras[strings.TrimSpace(k)] = reqs
		}
	}
	return extras
}

// TestWheelExtras: the wheel has an extra for each optional package doctor
// reports, installing its pinned distributions, one for torch and Triton,
// and "all" with every one of them.
func TestWheelExtras(t *testing.T) {
	extras := wheelExtras(t)
	var all []string
	for _, p := range KernelPackages {
		if got := extras[p.Key]; strings.Join(got, " ") != strings.Join(p.Pins, " ") {
			t.Errorf("extra %s installs %q, launch.KernelPackages pins %q", p.Key, got, p.Pins)
		}
		if !strings.HasPrefix(p.Pins[0], p.Dist) {
			t.Errorf("%s: doctor reports the version of %s, the extra's first pin is %s", p.Key, p.Dist, p.Pins[0])
		}
		all = append(all, p.Pins...)
	}
	torch := extras[TorchExtra]
	if strings.Join(torch, " ") != "torch triton" {
		t.Errorf("extra %s installs %q, want torch and triton", TorchExtra, torch)
	}
	all = append(all, torch...)
	got := extras[AllExtra]
	slices.Sort(got)
	slices.Sort(all)
	if !slices.Equal(got, all) {
		t.Errorf("extra %s installs %q, want every other extra's %q", AllExtra, got, all)
	}
}
