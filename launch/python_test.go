package launch

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeInterpreter writes an executable script at path that prints out, as
// doctor's Python check reads it.
func fakeInterpreter(t *testing.T, path, out string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestDefaultPython: the project's .venv interpreter where it exists (and
// runs), else python3; doctor and profile both start from it.
func TestDefaultPython(t *testing.T) {
	t.Chdir(t.TempDir())
	if got := DefaultPython(); got != "python3" {
		t.Errorf("no .venv: DefaultPython() = %q, want python3", got)
	}
	if err := os.MkdirAll(filepath.Dir(VenvPython), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(VenvPython, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := DefaultPython(); got != "python3" {
		t.Errorf(".venv/bin/python not executable: DefaultPython() = %q, want python3", got)
	}
	if err := os.Chmod(VenvPython, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := DefaultPython(); got != VenvPython {
		t.Errorf("with .venv: DefaultPython() = %q, want %s", got, VenvPython)
	}
	if got := (DoctorConfig{}).withDefaults().Python; got != VenvPython {
		t.Errorf("doctor's interpreter = %q, want %s", got, VenvPython)
	}
	if got := (DoctorConfig{Python: "/usr/bin/python3"}).withDefaults().Python; got != "/usr/bin/python3" {
		t.Errorf("doctor --python /usr/bin/python3 checks %q", got)
	}
}

// TestDoctorTorchFix: doctor checks the .venv interpreter by default, and
// a missing torch is fixed by installing kernels/requirements-gpu.txt into
// that interpreter (the exact pip command), or where the file is missing
// by pip install torch triton.
func TestDoctorTorchFix(t *testing.T) {
	t.Chdir(t.TempDir())
	fakeInterpreter(t, VenvPython, `{"python": "3.12.3", "yaml": "6.0.1", "numpy": "1.26.4", "torch_error": "ModuleNotFoundError: No module named torch", "triton_error": "ModuleNotFoundError: No module named triton"}`)
	cfg := DoctorConfig{}.withDefaults()
	find := func(fs []Finding, check string) Finding {
		t.Helper()
		for _, f := range fs {
			if f.Check == check {
				return f
			}
		}
		t.Fatalf("no %q finding in %+v", check, fs)
		return Finding{}
	}
	fs := checkPython(context.Background(), cfg, true)
	if f := find(fs, "python"); f.Level != LevelOK || !strings.Contains(f.Detail, "python 3.12.3 ("+VenvPython+")") {
		t.Errorf("python finding %+v: want the .venv interpreter checked", f)
	}
	if f := find(fs, "torch"); f.Level != LevelProblem || !strings.HasPrefix(f.Fix, VenvPython+" -m pip install torch triton ") {
		t.Errorf("torch finding %+v: without kernels/%s, want the pip command for torch and triton", f, GPURequirements)
	}
	if err := os.MkdirAll("kernels", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{GPURequirements, "run.py"} {
		if err := os.WriteFile(filepath.Join("kernels", f), []byte("torch\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs = checkPython(context.Background(), DoctorConfig{}.withDefaults(), true)
	want := VenvPython + " -m pip install -r " + filepath.Join("kernels", GPURequirements) + " "
	for _, c := range []string{"torch", "triton"} {
		if f := find(fs, c); !strings.HasPrefix(f.Fix, want) {
			t.Errorf("%s fix %q, want it to start %q", c, f.Fix, want)
		}
	}
	if f := find(fs, "yaml"); f.Level != LevelOK {
		t.Errorf("yaml finding %+v", f)
	}
}

// TestGPURequirements: the file doctor points at lists torch and Triton
// (and the runner's other packages) for pip install -r.
func TestGPURequirements(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "kernels", GPURequirements))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgs := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name := strings.FieldsFunc(l, func(r rune) bool { return strings.ContainsRune("<>=!~[; ", r) })[0]
		pkgs[strings.ToLower(name)] = true
	}
	for _, p := range []string{"torch", "triton", "pyyaml", "numpy"} {
		if !pkgs[p] {
			t.Errorf("kernels/%s does not list %s (has %v)", GPURequirements, p, pkgs)
		}
	}
}

// TestDoctorOptionalPackages: each optional package is reported in the
// runner's Python with the variants it runs; a missing one says they are
// skipped and how to install it: the wheel's extra where the runner's
// Python has the rooftool wheel, else its pinned distributions.
func TestDoctorOptionalPackages(t *testing.T) {
	env, err := ParseRunnerEnv([]byte(`{"python": "3.12.3", "quack": "0.6.5", "rooftool_wheel": "0.1.0"}`))
	if err != nil {
		t.Fatal(err)
	}
	noWheel, err := ParseRunnerEnv([]byte(`{"python": "3.12.3", "quack": "0.6.5"}`))
	if err != nil {
		t.Fatal(err)
	}
	byCheck := func(fs []Finding) map[string]Finding {
		m := map[string]Finding{}
		for _, f := range fs {
			m[f.Check] = f
		}
		return m
	}
	cfg := DoctorConfig{Python: "/env/bin/python3", KernelsDir: filepath.Join("..", "kernels")}.withDefaults()
	fs := byCheck(optionalFindings(cfg, env))
	if f := fs["quack"]; f.Level != LevelOK || !strings.Contains(f.Detail, "quack-kernels 0.6.5") || !strings.Contains(f.Detail, "swiglu/quack-gated") {
		t.Errorf("quack present: %+v", f)
	}
	if f := fs["cutlass"]; f.Level != LevelInfo || !strings.Contains(f.Detail, "gated_ssm/cutlass-evt skipped") || !strings.HasPrefix(f.Fix, "/env/bin/python3 -m pip install 'rooftool[cutlass]'") {
		t.Errorf("cutlass missing, the rooftool wheel installed: %+v", f)
	}
	if f := byCheck(optionalFindings(cfg, noWheel))["fla"]; !strings.Contains(f.Detail, "scan_gate/fla-hgrn") || !strings.HasPrefix(f.Fix, "/env/bin/python3 -m pip install flash-linear-attention") {
		t.Errorf("fla missing, no rooftool wheel in that Python: %+v", f)
	}
	if f := kernelsFinding(cfg.kernels); f.Level != LevelOK || !strings.Contains(f.Detail, "swiglu") {
		t.Errorf("kernels finding %+v", f)
	}
	if f := kernelsFinding(Kernels{Tried: []string{"kernels"}}); f.Level != LevelProblem || f.Fix == "" {
		t.Errorf("no kernels: %+v", f)
	}
}
