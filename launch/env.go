package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/compilecache"
	"github.com/rooftool/rooftool/launch/ncu"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

// detectGPU names the GPU this process's kernels run on: the nvidia-smi line
// of the device the runner's CUDA device 0 is. nvidia-smi ignores
// CUDA_VISIBLE_DEVICES (its first line is the host's first GPU, not
// necessarily the one CUDA gives this process), so the device is picked by
// UUID: the runner's own (torch's device properties, env "gpu_uuid"), else
// the first CUDA_VISIBLE_DEVICES entry where it is a UUID, else the only
// GPU listed. With several listed and no UUID to pick by, the first line is
// taken and a warning says the identity is a guess.
func (r *Runner) detectGPU(ctx context.Context, env RunnerEnv) (rundir.GPUInfo, string, []string) {
	smi := r.cfg.SMI
	var err error
	if smi == "" {
		smi, err = FindSMI()
	}
	if err != nil {
		return rundir.GPUInfo{}, "", []string{"no GPU found: nvidia-smi " + ErrNotFound.Error() + "; the run records no device"}
	}
	gpus, err := QueryGPUs(ctx, smi)
	if err != nil {
		return rundir.GPUInfo{}, "", []string{fmt.Sprintf("no GPU found: %v", err)}
	}
	g, warns := pickGPU(gpus, env.String("gpu_uuid"), os.Getenv("CUDA_VISIBLE_DEVICES"))
	if r.cfg.GPU != "" && !gpu.MatchGPU(r.cfg.GPU, g.Name) {
		warns = append(warns, fmt.Sprintf("--gpu %s was asked, but this machine has %s: the run records the GPU it really ran on", r.cfg.GPU, g.Name))
	}
	return g.GPUInfo, g.Driver, warns
}

// pickGPU chooses among nvidia-smi's lines the one whose UUID is runnerUUID
// (the device the runner's CUDA context opened), else the one the first
// entry of visible (CUDA_VISIBLE_DEVICES) names by UUID or UUID prefix, as
// CUDA accepts; see detectGPU.
func pickGPU(gpus []SMIGPU, runnerUUID, visible string) (SMIGPU, []string) {
	byUUID := func(u string) (SMIGPU, bool) {
		u = strings.TrimSpace(u)
		if u == "" {
			return SMIGPU{}, false
		}
		if !strings.HasPrefix(u, "GPU-") && !strings.HasPrefix(u, "MIG-") {
			u = "GPU-" + u
		}
		var hit []SMIGPU
		for _, g := range gpus {
			if strings.HasPrefix(g.UUID, u) {
				hit = append(hit, g)
			}
		}
		return first(hit), len(hit) == 1
	}
	first0, _, _ := strings.Cut(visible, ",")
	first0 = strings.TrimSpace(first0)
	visUUID := strings.HasPrefix(first0, "GPU-") || strings.HasPrefix(first0, "MIG-")
	if g, ok := byUUID(runnerUUID); ok {
		if visUUID && !strings.HasPrefix(g.UUID, first0) {
			return g, []string{fmt.Sprintf("CUDA_VISIBLE_DEVICES starts with %s, but the runner's CUDA device is %s (%s): the run records the runner's", first0, g.UUID, g.Name)}
		}
		return g, nil
	}
	if runnerUUID != "" {
		return gpus[0], []string{fmt.Sprintf("the runner's CUDA device %s is not among nvidia-smi's %d GPUs: the run records the first (%s, %s), which may not be the one measured", runnerUUID, len(gpus), gpus[0].Name, gpus[0].UUID)}
	}
	if visUUID {
		if g, ok := byUUID(first0); ok {
			return g, nil
		}
	}
	if len(gpus) == 1 {
		return gpus[0], nil
	}
	return gpus[0], []string{fmt.Sprintf("%d GPUs visible and no device UUID from the runner or CUDA_VISIBLE_DEVICES: the run records the first (%s, %s), which may not be the one measured; set CUDA_VISIBLE_DEVICES to a GPU's UUID to choose", len(gpus), gpus[0].Name, gpus[0].UUID)}
}

func first(gs []SMIGPU) SMIGPU {
	if len(gs) == 0 {
		return SMIGPU{}
	}
	return gs[0]
}

func (r *Runner) runnerEnv(ctx context.Context) (RunnerEnv, error) {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, r.cfg.Python, r.runPy, "env")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg = ": " + lastLine(string(ee.Stderr))
		}
		return RunnerEnv{}, fmt.Errorf("%s %s env: %w%s", r.cfg.Python, r.runPy, err, msg)
	}
	return ParseRunnerEnv(out)
}

func gitCommit(ctx context.Context, dir string) string {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	// A tree whose tracked files differ from HEAD (a copied working tree, local edits) did
	// not run HEAD's code: say so rather than name a commit that was not measured.
	st, err := exec.CommandContext(cctx, "git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil || len(bytes.TrimSpace(st)) > 0 {
		c += "-dirty"
	}
	return c
}

func (r *Runner) setupTools(ctx context.Context, cells []plan.Cell) {
	need := map[string]bool{}
	for _, c := range cells {
		for _, p := range c.Passes {
			need[p] = true
		}
	}
	if need[rundir.PassNCU] || need[rundir.PassRange] {
		r.ncu, r.ncuErr = FindNCU(r.cfg.NCU)
		if r.ncuErr != nil {
			r.warn("ncu passes will fail: %v", r.ncuErr)
		} else {
			r.m.Options["ncu"] = r.ncu
			if v, err := ToolVersion(ctx, r.ncu, nil); err == nil {
				r.m.Versions["ncu"] = v
			}
			var avail []string
			if names, err := ncu.QueryMetrics(ctx, r.ncu); err == nil {
				avail = names
			} else {
				r.warn("ncu --query-metrics: %v: metric names are not checked", err)
			}
			var dropped, rdropped []string
			r.metrics, dropped = ncu.ExpandMetrics(metric.Kernel, avail)
			r.rmetrics, rdropped = ncu.ExpandMetrics(metric.Range, avail)
			if d := append(dropped, rdropped...); len(d) > 0 {
				r.warn("ncu on this device lacks %s: not collected", strings.Join(d, ", "))
			}
			r.m.Options["ncu.metrics"] = strings.Join(r.metrics, ",")
			r.m.Options["ncu.range_metrics"] = strings.Join(r.rmetrics, ",")
		}
	}
	if need[rundir.PassNsys] {
		r.nsys, r.nsysErr = nsys.Find(r.cfg.Nsys) // the nsys ingest and doctor use too
		if r.nsysErr != nil {
			r.warn("nsys pass will fail: %v", r.nsysErr)
		} else {
			libs := NsysLibDir(r.cfg.NsysLibs, ".")
			r.nsysEnv = NsysEnv(libs)
			r.m.Options["nsys"] = r.nsys
			if libs != "" {
				r.m.Options["nsys.libs"] = r.recordedPath(libs)
			}
			if v, err := ToolVersion(ctx, r.nsys, r.nsysEnv); err == nil {
				r.m.Versions["nsys"] = v
			}
		}
	}
}

// PicksFile is where the runner processes of one run share the
// implementation each variant picked per shape (kernels/common/tk.py
// chooses e.g. between TMA and pointer GEMM paths by timing them): the pick
// of the first process (check) holds for timing, ncu and nsys, so every pass
// measures the same code. Timing the choice under ncu would distort it.
const PicksFile = "raw/picks.json"

// runnerEnvVars adds the compile-cache variables (package compilecache), ROOFTOOL_PICKS
// (and ROOFTOOL_EXPERIMENT_DIRS where the run has external experiments) to
// extra for a runner process.
func (r *Runner) runnerEnvVars(extra []string) []string {
	abs, err := filepath.Abs(filepath.Join(r.dir, filepath.FromSlash(PicksFile)))
	if err != nil {
		return extra
	}
	return append(append(append(append([]string{}, r.cacheEnv...), extra...), externalEnv(r.extDirs)...), "ROOFTOOL_PICKS="+abs)
}

// EnvOptionPrefix marks the manifest options that record the runner's
// ROOFTOOL_* environment ("env.ROOFTOOL_MM_IMPL"): the knobs that change the
// measured code, and the paths the runner was given (recordedPath).
const EnvOptionPrefix = "env."

// rooftoolEnv is every ROOFTOOL_* variable of a runner process's
// environment: the launcher's own plus what it adds (ROOFTOOL_PICKS), with
// paths as the manifest records them (recordedPath).
func (r *Runner) rooftoolEnv() map[string]string {
	env := map[string]string{}
	for _, kv := range mergeEnv(os.Environ(), r.runnerEnvVars(nil)) {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ROOFTOOL_") && !compilecache.IsVar(k) {
			env[k] = r.recordedPath(v)
		}
	}
	return env
}

// recordedPath is how the manifest records an absolute path the runner
// was given: relative to the run directory where it lies inside it (the
// picks file), else relative to the working directory where it lies beneath
// it (.nsysdeps), else as given. A manifest so names no folder of the
// machine the run was made on. Anything else is returned unchanged.
func (r *Runner) recordedPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	for _, base := range []string{r.dir, "."} {
		b, err := filepath.Abs(base)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(b, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// recordEnv puts the runner's ROOFTOOL_* environment into the manifest's
// options as env.NAME, replacing an earlier invocation's. A resumed run
// whose knobs differ from those it began with says so: its cells then ran
// different code.
func (r *Runner) recordEnv(resumed bool) {
	env := r.rooftoolEnv()
	opts := r.m.Options
	var names []string
	for k := range opts {
		if name, ok := strings.CutPrefix(k, EnvOptionPrefix); ok {
			names = append(names, name)
		}
	}
	for k := range env {
		if _, ok := opts[EnvOptionPrefix+k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	show := func(k, v string, ok bool) string {
		if !ok {
			return k + " unset"
		}
		return k + "=" + v
	}
	for _, k := range names {
		was, wasSet := opts[EnvOptionPrefix+k]
		now, nowSet := env[k]
		if resumed && k != "ROOFTOOL_PICKS" && (was != now || wasSet != nowSet) {
			r.warn("resumed with %s; the run began with %s: cells measured before and after may run different code", show(k, now, nowSet), show(k, was, wasSet))
		}
		delete(opts, EnvOptionPrefix+k)
		if nowSet {
			opts[EnvOptionPrefix+k] = now
		}
	}
}

// snapshotSpecs copies each profiled experiment's spec.yaml and
// claims.yaml (rundir.SnapshotFiles) from the kernels folder into the run
// directory's specs/<exp>/, atomically. A resumed run keeps a copy it has
// already (its earlier cells ran with it) and warns when the checkout's
// differs. A missing claims.yaml is not an error (the
// spec loader takes it as optional); a missing spec.yaml means the specs
// came from those built into rooftool, which has no copy to snapshot.
func (r *Runner) snapshotSpecs(exps []*spec.Experiment, resumed bool) error {
	if r.cfg.Cmd != nil {
		return nil // a --cmd run's specs come from its program (program.go)
	}
	for _, e := range exps {
		for _, f := range rundir.SnapshotFiles {
			src := filepath.Join(r.cfg.KernelsDir, e.Name, f)
			if d, ok := r.extDirs[e.Name]; ok {
				src = filepath.Join(d, f)
			}
			rel := rundir.SpecsPath(e.Name, f)
			dst := filepath.Join(r.dir, filepath.FromSlash(rel))
			data, err := os.ReadFile(src)
			if err != nil {
				if f == "spec.yaml" || !errors.Is(err, os.ErrNotExist) {
					r.warn("%s: %v: the run keeps no copy of it in %s", src, err, rel)
				}
				continue
			}
			if have, err := os.ReadFile(dst); err == nil && resumed {
				if !bytes.Equal(have, data) {
					r.warn("%s differs from the run's snapshot %s: the snapshot (what the run began with) is kept", src, rel)
				}
				continue
			}
			if err := rundir.WriteFileAtomic(dst, data); err != nil {
				return fmt.Errorf("snapshot %s: %w", rel, err)
			}
		}
	}
	return nil
}
