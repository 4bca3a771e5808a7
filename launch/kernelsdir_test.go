package launch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// fakeExecutable makes executable (the rooftool binary FindKernels and
// DefaultPython start from) return exe for the test.
func fakeExecutable(t *testing.T, exe string) {
	t.Helper()
	prev := executable
	executable = func() (string, error) { return exe, nil }
	t.Cleanup(func() { executable = prev })
}

// touch writes an empty file at p, its folders made, with mode.
func touch(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, mode); err != nil {
		t.Fatal(err)
	}
}

// TestFindKernels: --kernels, then $ROOFTOOL_KERNELS, then the checkout
// holding the working directory, then the kernels installed beside the
// binary (a Python environment's share/rooftool/kernels, a release
// archive's kernels/, through a symbolic link to the binary too); none
// found names where it looked.
func TestFindKernels(t *testing.T) {
	t.Setenv(KernelsEnv, "")
	repoKernels, err := filepath.Abs(filepath.Join("..", "kernels"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	venv := filepath.Join(tmp, "venv")
	touch(t, filepath.Join(venv, "bin", "rooftool"), 0o755)
	touch(t, filepath.Join(venv, "share", "rooftool", "kernels", "run.py"), 0o644)
	archive := filepath.Join(tmp, "rooftool-v1-linux-amd64")
	touch(t, filepath.Join(archive, "rooftool"), 0o755)
	touch(t, filepath.Join(archive, "kernels", "run.py"), 0o644)
	link := filepath.Join(tmp, "bin", "rooftool")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(archive, "rooftool"), link); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(tmp, "elsewhere")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}

	// Inside the checkout (this package's folder): its kernels, relative,
	// before the installed ones.
	fakeExecutable(t, filepath.Join(venv, "bin", "rooftool"))
	k := FindKernels("")
	if got, _ := filepath.Abs(k.Dir); got != repoKernels || k.From != KernelsFromCheckout || filepath.IsAbs(k.Dir) {
		t.Errorf("inside the checkout: %+v, want %s relative, from the checkout", k, repoKernels)
	}

	t.Chdir(outside)
	for _, tc := range []struct {
		name, exe, want, from string
	}{
		{"a Python environment's bin", filepath.Join(venv, "bin", "rooftool"), filepath.Join(venv, "share", "rooftool", "kernels"), KernelsFromInstalled},
		{"a release archive", filepath.Join(archive, "rooftool"), filepath.Join(archive, "kernels"), KernelsFromInstalled},
		{"a link to the archive's binary", link, filepath.Join(archive, "kernels"), KernelsFromInstalled},
		{"nothing installed", filepath.Join(outside, "rooftool"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeExecutable(t, tc.exe)
			k := FindKernels("")
			got, want := k.Dir, tc.want
			if want != "" {
				got, _ = filepath.EvalSymlinks(got)
				want, _ = filepath.EvalSymlinks(want)
			}
			if got != want || k.From != tc.from {
				t.Errorf("FindKernels() = %+v, want %s from %q", k, tc.want, tc.from)
			}
			if tc.want == "" && (!slices.Contains(k.Tried, "kernels") || !strings.Contains(k.NotFound(), "--kernels") || !strings.Contains(k.NotFound(), KernelsEnv)) {
				t.Errorf("none found: %+v, message %q: want where it looked and how to name one", k, k.NotFound())
			}
		})
	}

	fakeExecutable(t, filepath.Join(venv, "bin", "rooftool"))
	t.Setenv(KernelsEnv, "/from/env")
	if k := FindKernels(""); k.Dir != "/from/env" || k.From != KernelsFromEnv {
		t.Errorf("$%s set: %+v", KernelsEnv, k)
	}
	if k := FindKernels("/from/flag"); k.Dir != "/from/flag" || k.From != KernelsFromFlag {
		t.Errorf("--kernels given: %+v", k)
	}
}

// TestDefaultPythonBesideBinary: outside a checkout with .venv, the
// runner's Python is the python3 of the environment rooftool is installed
// into (where pip installed rooftool's extras), else python3 from PATH.
func TestDefaultPythonBesideBinary(t *testing.T) {
	t.Chdir(t.TempDir())
	bin := filepath.Join(t.TempDir(), "bin")
	fakeExecutable(t, filepath.Join(bin, "rooftool"))
	if got := DefaultPython(); got != "python3" {
		t.Errorf("no python3 beside the binary: %q, want python3", got)
	}
	touch(t, filepath.Join(bin, "python3"), 0o755)
	if got := DefaultPython(); got != filepath.Join(bin, "python3") {
		t.Errorf("python3 beside the binary: %q, want it", got)
	}
	touch(t, VenvPython, 0o755)
	if got := DefaultPython(); got != VenvPython {
		t.Errorf("with .venv: %q, want %s first", got, VenvPython)
	}
}

// TestRunInstalledKernels: outside a checkout, with no --kernels, a run
// uses the kernels installed beside the binary; the manifest names them as
// rooftool's own (not by this machine's path) and records rooftool's
// commit, not that of a git repository the install may sit in.
func TestRunInstalledKernels(t *testing.T) {
	cfg, _ := fakeEnv(t)
	venv := filepath.Join(t.TempDir(), "venv")
	src, err := filepath.Abs(cfg.KernelsDir)
	if err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(venv, "share", "rooftool", "kernels")
	if err := os.CopyFS(installed, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	fakeExecutable(t, filepath.Join(venv, "bin", "rooftool"))
	t.Chdir(t.TempDir())
	cfg.KernelsDir = ""
	cfg.Commit = "0123abc"
	cfg.Passes = []string{rundir.PassCheck}
	cfg.Variants = []string{"good"}
	m, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Options["kernels"]; got != "(installed with rooftool test)" {
		t.Errorf("kernels option %q", got)
	}
	if m.GitCommit != "0123abc" {
		t.Errorf("git commit %q, want rooftool's", m.GitCommit)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassCheck, rundir.StatusOK, "")
}
