package launch

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/launch/plan"
)

// Finding levels.
const (
	LevelOK      = "ok"
	LevelInfo    = "info"
	LevelWarn    = "warn"
	LevelProblem = "problem"
)

// Finding is one line of `rooftool doctor`: what was checked, what was
// seen, and for anything not ok, what to do.
type Finding struct {
	Check  string `json:"check"`
	Level  string `json:"level"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// DoctorConfig says where to look.
type DoctorConfig struct {
	Python     string // "" : DefaultPython()
	KernelsDir string // "" : FindKernels'
	NCU, Nsys  string // overrides
	NsysLibs   string
	SMI        string // nvidia-smi override
	Params     string // "" : /proc/driver/nvidia/params
	Probe      bool   // run ncu on a tiny kernel to test counter permissions (needs a GPU and torch)
	kernels    Kernels
}

// libdwFix is DEVICE.md's remedy for nsys' importer.
const libdwFix = "mkdir -p .nsysdeps && (cd .nsysdeps && apt-get download libdw1 libelf1 && for f in *.deb; do dpkg -x $f root; done); " +
	"rooftool then prepends .nsysdeps/root/usr/lib/x86_64-linux-gnu to nsys' LD_LIBRARY_PATH (or pass --nsys-libs DIR / set ROOFTOOL_NSYS_LIBS)"

// withDefaults fills in what cfg leaves empty.
func (cfg DoctorConfig) withDefaults() DoctorConfig {
	if cfg.Python == "" {
		cfg.Python = DefaultPython()
	}
	cfg.kernels = FindKernels(cfg.KernelsDir)
	cfg.KernelsDir = cfg.kernels.Dir
	if cfg.Params == "" {
		cfg.Params = "/proc/driver/nvidia/params"
	}
	return cfg
}

// Doctor checks the machine for a profile run. It never fails: problems
// are findings, each with what to do. It works without a GPU and says so.
//
// A finding of LevelProblem is a required thing missing or broken: a GPU
// with its driver, ncu, nsys and its importer's libraries, permission to
// read performance counters, the runner's Python, the kernels folder,
// and on a machine with a GPU torch (a CUDA build), Triton and PyYAML
// (without a GPU these three are warnings: nothing profiles there
// anyway). The rest is optional: nvcc, numpy, and the packages of
// KernelPackages, whose findings say which variants each one runs.
func Doctor(ctx context.Context, cfg DoctorConfig) []Finding {
	cfg = cfg.withDefaults()
	var out []Finding
	add := func(f Finding) { out = append(out, f) }

	// GPU and driver.
	hasGPU := false
	smi := cfg.SMI
	var err error
	if smi == "" {
		smi, err = FindSMI()
	}
	if err != nil {
		add(Finding{Check: "gpu", Level: LevelProblem, Detail: "no GPU: nvidia-smi not found on PATH or in /usr/bin, /usr/local/nvidia/bin",
			Fix: "profile on a machine with an NVIDIA GPU and driver; ingest, stats, report and diff work here without one"})
	} else if gpus, err := QueryGPUs(ctx, smi); err != nil {
		add(Finding{Check: "gpu", Level: LevelProblem, Detail: fmt.Sprintf("no usable GPU: %v", err),
			Fix: "check the NVIDIA driver (nvidia-smi must list the GPU); ingest, stats, report and diff work without one"})
	} else {
		hasGPU = true
		for i, g := range gpus {
			add(Finding{Check: "gpu", Level: LevelOK, Detail: fmt.Sprintf("%d: %s, driver %s, SM clock %.0f/%.0f MHz, memory clock %.0f/%.0f MHz, %.0f GiB",
				i, g.Name, g.Driver, g.SMClockMHz, g.MaxSMClockMHz, g.MemClockMHz, g.MaxMemClockMHz, float64(g.MemoryBytes)/(1<<30))})
		}
	}

	// CUDA toolkit.
	if nvcc, err := findTool("nvcc", "", []string{"/usr/local/cuda/bin/nvcc", "/usr/local/cuda-*/bin/nvcc"}); err == nil {
		if v, err := ToolVersion(ctx, nvcc, nil); err == nil {
			add(Finding{Check: "cuda", Level: LevelOK, Detail: fmt.Sprintf("nvcc %s (%s)", v, nvcc)})
		} else {
			add(Finding{Check: "cuda", Level: LevelWarn, Detail: err.Error(), Fix: "reinstall the CUDA toolkit"})
		}
	} else {
		add(Finding{Check: "cuda", Level: LevelInfo, Detail: "nvcc not found (not needed: torch brings its own CUDA runtime)"})
	}

	// ncu.
	ncu, ncuErr := FindNCU(cfg.NCU)
	if ncuErr != nil {
		add(Finding{Check: "ncu", Level: LevelProblem, Detail: ncuErr.Error(),
			Fix: "install Nsight Compute (CUDA toolkit or /opt/nvidia/nsight-compute) or pass --ncu PATH; without it the ncu and range passes fail"})
	} else if v, err := ToolVersion(ctx, ncu, nil); err != nil {
		add(Finding{Check: "ncu", Level: LevelProblem, Detail: err.Error(), Fix: "reinstall Nsight Compute or pass another --ncu"})
	} else {
		add(Finding{Check: "ncu", Level: LevelOK, Detail: fmt.Sprintf("ncu %s (%s)", v, ncu)})
	}

	// nsys and its importer.
	libs := NsysLibDir(cfg.NsysLibs, ".")
	env := NsysEnv(libs)
	nsys, nsysErr := nsys.Find(cfg.Nsys)
	if nsysErr != nil {
		add(Finding{Check: "nsys", Level: LevelProblem, Detail: nsysErr.Error(),
			Fix: "install Nsight Systems, or use the nsys inside Nsight Compute (/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys), or pass --nsys PATH"})
	} else {
		if v, err := ToolVersion(ctx, nsys, env); err != nil {
			add(Finding{Check: "nsys", Level: LevelProblem, Detail: err.Error(), Fix: "reinstall Nsight Systems or pass another --nsys"})
		} else {
			add(Finding{Check: "nsys", Level: LevelOK, Detail: fmt.Sprintf("nsys %s (%s)", v, nsys)})
		}
		out = append(out, checkImporter(ctx, nsys, libs)...)
	}

	// Performance counters.
	out = append(out, checkCounters(ctx, cfg, hasGPU, ncu, ncuErr)...)

	// Python, torch, triton.
	out = append(out, checkPython(ctx, cfg, hasGPU)...)
	return out
}

// checkImporter runs ldd on nsys' QdstrmImporter (with the extra library
// folder, if any) and names missing libraries.
func checkImporter(ctx context.Context, nsys, libs string) []Finding {
	imps := QdstrmImporters(nsys)
	if len(imps) == 0 {
		return []Finding{{Check: "nsys importer", Level: LevelWarn, Detail: "no QdstrmImporter found beside " + nsys,
			Fix: "a .qdstrm cannot become .nsys-rep without it: use a full Nsight Systems install"}}
	}
	ldd, err := exec.LookPath("ldd")
	if err != nil {
		return []Finding{{Check: "nsys importer", Level: LevelInfo, Detail: "ldd not found: cannot check " + imps[0] + "'s libraries"}}
	}
	var out []Finding
	for _, imp := range imps {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		cmd := exec.CommandContext(cctx, ldd, imp)
		cmd.Env = mergeEnv(os.Environ(), NsysEnv(libs))
		b, _ := cmd.CombinedOutput()
		cancel()
		missing := LddMissing(string(b))
		with := ""
		if libs != "" {
			with = " with LD_LIBRARY_PATH+=" + libs
		}
		if len(missing) == 0 {
			out = append(out, Finding{Check: "nsys importer", Level: LevelOK, Detail: imp + " loads all its libraries" + with})
			continue
		}
		f := Finding{Check: "nsys importer", Level: LevelProblem,
			Detail: fmt.Sprintf("%s cannot load %s%s: nsys records a .qdstrm but makes no .nsys-rep", imp, strings.Join(missing, ", "), with),
			Fix:    "install the libraries that provide them"}
		for _, m := range missing {
			if strings.HasPrefix(m, "libdw.so") || strings.HasPrefix(m, "libelf.so") {
				f.Fix = libdwFix
			}
		}
		out = append(out, f)
	}
	return out
}

// LddMissing returns the libraries ldd reports as "not found".
func LddMissing(out string) []string {
	var miss []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if name, rest, ok := strings.Cut(l, "=>"); ok && strings.TrimSpace(rest) == "not found" {
			miss = append(miss, strings.TrimSpace(name))
		}
	}
	return miss
}

// checkCounters reads RmProfilingAdminOnly and, when asked and possible,
// profiles a tiny torch kernel to see ERR_NVGPUCTRPERM first-hand.
func checkCounters(ctx context.Context, cfg DoctorConfig, hasGPU bool, ncu string, ncuErr error) []Finding {
	var out []Finding
	fix := "run as root, or have an admin set `options nvidia NVreg_RestrictProfilingToAdminUsers=0` (modprobe.d) and reload the driver; see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
	if data, err := os.ReadFile(cfg.Params); err == nil {
		v := ParamValue(string(data), "RmProfilingAdminOnly")
		switch {
		case v == "":
			out = append(out, Finding{Check: "counters", Level: LevelInfo, Detail: cfg.Params + " has no RmProfilingAdminOnly"})
		case v == "0":
			out = append(out, Finding{Check: "counters", Level: LevelOK, Detail: "RmProfilingAdminOnly: 0 (any user may read performance counters)"})
		case os.Geteuid() == 0:
			out = append(out, Finding{Check: "counters", Level: LevelOK, Detail: "RmProfilingAdminOnly: " + v + ", and rooftool runs as root"})
		default:
			out = append(out, Finding{Check: "counters", Level: LevelProblem, Detail: "RmProfilingAdminOnly: " + v + ": only admins may read performance counters; ncu fails with ERR_NVGPUCTRPERM", Fix: fix})
		}
	} else if hasGPU {
		out = append(out, Finding{Check: "counters", Level: LevelInfo, Detail: fmt.Sprintf("cannot read %s: %v", cfg.Params, err)})
	} else {
		out = append(out, Finding{Check: "counters", Level: LevelInfo, Detail: "no GPU driver: counter permissions not checked"})
	}
	if !cfg.Probe || !hasGPU || ncuErr != nil {
		return out
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, ncu, "--clock-control", "none", "--metrics", metric.Duration+","+metric.DRAMRead, "--csv",
		cfg.Python, "-c", "import torch; x = torch.ones(1 << 20, device='cuda'); y = x * 2; torch.cuda.synchronize()")
	b, err := cmd.CombinedOutput()
	s := string(b)
	switch {
	case strings.Contains(s, "ERR_NVGPUCTRPERM"):
		out = append(out, Finding{Check: "counters probe", Level: LevelProblem, Detail: "ncu on a tiny kernel: ERR_NVGPUCTRPERM (no permission for performance counters)", Fix: fix})
	case err != nil:
		out = append(out, Finding{Check: "counters probe", Level: LevelWarn, Detail: fmt.Sprintf("ncu on a tiny torch kernel failed: %v: %s", err, lastLine(s)), Fix: "run the probe by hand: ncu --metrics gpu__time_duration.sum " + cfg.Python + " -c 'import torch; torch.ones(1, device=\"cuda\")*2'"})
	case strings.Contains(s, metric.Duration):
		out = append(out, Finding{Check: "counters probe", Level: LevelOK, Detail: "ncu profiled a tiny torch kernel"})
	default:
		out = append(out, Finding{Check: "counters probe", Level: LevelWarn, Detail: "ncu ran but printed no metric: " + lastLine(s)})
	}
	return out
}

// ParamValue reads "Key: value" from /proc/driver/nvidia/params.
func ParamValue(params, key string) string {
	for _, l := range strings.Split(params, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// venvHas reports whether the interpreter checked is not the project's .venv
// (scripts/setup.sh's, in the working directory) while that one exists.
func venvHas(py string) bool {
	if _, err := os.Stat(VenvPython); err != nil {
		return false
	}
	return filepath.Clean(py) != VenvPython
}

// pipFixes are the fixes of doctor's Python findings for the interpreter py
// and the kernels folder dir: for torch and Triton, pip install -r of
// dir's GPURequirements (which says how to pick torch's CUDA build), or
// where that file is missing the pip command itself; for the runner's
// PyYAML and numpy, the pip command.
func pipFixes(py, dir string) map[string]string {
	pip := py + " -m pip install "
	gpu := pip + "torch triton (a CUDA build of torch that matches the driver)"
	if req := filepath.Join(dir, GPURequirements); dir != "" && fileExists(req) {
		gpu = pip + "-r " + req + " (torch, Triton, PyYAML, numpy; the file says how to pick torch's CUDA build for the driver)"
	}
	return map[string]string{
		"torch":  gpu + "; every variant runs on torch: the runner needs it on the GPU machine, the tests do not",
		"triton": gpu + "; the torch.compile variants and the Triton kernels (the tk GEMMs and epilogues) need it",
		"yaml":   pip + "pyyaml (the runner reads the specs with it)",
		"numpy":  pip + "numpy",
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// checkPython reports python, torch, triton (and CUDA as torch sees it).
func checkPython(ctx context.Context, cfg DoctorConfig, hasGPU bool) []Finding {
	py, err := exec.LookPath(cfg.Python)
	if err != nil {
		return []Finding{{Check: "python", Level: LevelProblem, Detail: fmt.Sprintf("%s: %v", cfg.Python, err), Fix: "install Python 3.10+ or pass --python"}}
	}
	script := `import json, platform
out = {"python": platform.python_version()}
for m in ("torch", "triton", "yaml", "numpy"):
    try:
        mod = __import__(m)
        out[m] = getattr(mod, "__version__", "present")
    except Exception as e:
        out[m + "_error"] = type(e).__name__ + ": " + str(e)[:200]
# Optional variants' packages: found the way kernels/run.py looks for them (by module,
# without importing: cutlass_cppgen needs run.py's cuda-python shim to import).
import importlib.util, importlib.metadata
for key, mod, dist in ` + optionalTuples() + `:
    if importlib.util.find_spec(mod) is not None:
        try:
            out[key] = importlib.metadata.version(dist)
        except Exception:
            out[key] = "present"
# The rooftool wheel: its extras install those packages where it is installed.
try:
    out["rooftool_wheel"] = importlib.metadata.version("rooftool")
except Exception:
    pass
try:
    import torch
    out["torch_cuda"] = torch.version.cuda or ""
    out["cuda_available"] = bool(torch.cuda.is_available())
except Exception:
    pass
print(json.dumps(out))`
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	b, err := exec.CommandContext(cctx, py, "-c", script).Output()
	if err != nil {
		return []Finding{{Check: "python", Level: LevelProblem, Detail: fmt.Sprintf("%s -c: %v", py, err), Fix: "check the Python install"}}
	}
	env, err := ParseRunnerEnv(b)
	if err != nil {
		return []Finding{{Check: "python", Level: LevelProblem, Detail: err.Error()}}
	}
	out := []Finding{{Check: "python", Level: LevelOK, Detail: fmt.Sprintf("python %s (%s)", env.String("python"), py)}}
	fixes := pipFixes(cfg.Python, cfg.KernelsDir)
	for _, m := range []struct {
		name, fix string
		setup     bool // scripts/setup.sh installs it into .venv (kernels/requirements-ci.txt)
	}{
		{"torch", fixes["torch"], false},
		{"triton", fixes["triton"], false},
		{"yaml", fixes["yaml"], true},
		{"numpy", fixes["numpy"], true},
	} {
		if m.setup && env.String(m.name) == "" && venvHas(cfg.Python) {
			m.fix += "; or leave --python out: profile and doctor then run " + VenvPython + ", into which scripts/setup.sh installed it"
		}
		if v := env.String(m.name); v != "" {
			d := m.name + " " + v
			if m.name == "torch" {
				if c := env.String("torch_cuda"); c != "" {
					d += ", CUDA " + c
				}
				if env.String("cuda_available") == "false" && hasGPU {
					out = append(out, Finding{Check: m.name, Level: LevelProblem, Detail: d + ", but torch.cuda.is_available() is false", Fix: "install a CUDA build of torch that matches the driver"})
					continue
				}
			}
			out = append(out, Finding{Check: m.name, Level: LevelOK, Detail: d})
			continue
		}
		level := LevelWarn
		if hasGPU && m.name != "numpy" {
			level = LevelProblem
		}
		out = append(out, Finding{Check: m.name, Level: level, Detail: m.name + " not importable: " + env.String(m.name+"_error"), Fix: m.fix})
	}
	out = append(out, optionalFindings(cfg, env)...)
	out = append(out, kernelsFinding(cfg.kernels))
	return out
}

// optionalTuples is KernelPackages as the Python tuple of (key, module,
// distribution) triples that doctor's script looks each one up by.
func optionalTuples() string {
	var ts []string
	for _, p := range KernelPackages {
		ts = append(ts, fmt.Sprintf("(%q, %q, %q)", p.Key, p.Module, p.Dist))
	}
	return "(" + strings.Join(ts, ", ") + ",)"
}

// optionalFindings report each optional package of KernelPackages in the
// runner's Python (env, from doctor's script): its version and the
// variants it runs, or that those variants are skipped and the command
// that installs it.
func optionalFindings(cfg DoctorConfig, env RunnerEnv) []Finding {
	exps, _ := plan.LoadSpecs(cfg.KernelsDir)
	var out []Finding
	for _, p := range KernelPackages {
		vs := strings.Join(NeedsPackage(exps, p.Key), ", ")
		if v := env.String(p.Key); v != "" {
			out = append(out, Finding{Check: p.Key, Level: LevelOK, Detail: fmt.Sprintf("%s %s: runs %s", p.Dist, v, vs)})
			continue
		}
		out = append(out, Finding{Check: p.Key, Level: LevelInfo,
			Detail: fmt.Sprintf("%s not installed (optional): %s skipped", p.Dist, vs),
			Fix:    p.installHint(cfg.Python, env.String("rooftool_wheel") != "") + " (runs them)"})
	}
	return out
}

// kernelsFinding says where the kernels folder is (k) and how it was
// found, or that there is none: then profile cannot run the built-in
// experiments.
func kernelsFinding(k Kernels) Finding {
	if k.Dir == "" {
		return Finding{Check: "kernels", Level: LevelProblem, Detail: k.notFound() + ": profile cannot run the built-in experiments", Fix: kernelsHowTo}
	}
	runPy := filepath.Join(k.Dir, "run.py")
	if !fileExists(runPy) {
		return Finding{Check: "kernels", Level: LevelProblem, Detail: k.Describe() + ": no run.py there",
			Fix: "name a kernels folder with run.py and the experiments, or leave --kernels and " + KernelsEnv + " out to use the checkout's or the installed ones"}
	}
	exps, err := plan.LoadSpecs(k.Dir)
	if err != nil {
		return Finding{Check: "kernels", Level: LevelProblem, Detail: fmt.Sprintf("%s: %v", k.Describe(), err), Fix: "fix or replace the experiment's spec.yaml"}
	}
	var names []string
	for _, e := range exps {
		names = append(names, e.Name)
	}
	return Finding{Check: "kernels", Level: LevelOK, Detail: fmt.Sprintf("%s: run.py and %d experiments (%s)", k.Describe(), len(exps), strings.Join(names, ", "))}
}
