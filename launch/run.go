package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
	"github.com/rooftool/rooftool/launch/cmdprog"
	"github.com/rooftool/rooftool/launch/compilecache"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/rangerule"
	"github.com/rooftool/rooftool/launch/runtables"
	"github.com/rooftool/rooftool/launch/shard"
	"github.com/rooftool/rooftool/spec"
)

// Config is one `rooftool profile` run.
type Config struct {
	RunDir      string   // "" : runs/<date>-<gpu>-<time>, <gpu> the device's gpu.ShortName
	KernelsDir  string   // folder with run.py and <experiment>/spec.yaml; "" : FindKernels' (KernelsFrom says how it was found)
	KernelsFrom string   // how KernelsDir was found (Kernels.From); "" : named by the caller
	Python      string   // "" : DefaultPython()
	GPU         string   // the --gpu flag, e.g. "h100"
	Experiments []string // "" : all (all of ExperimentDirs' when there are any)
	// ExperimentDirs are experiment folders outside KernelsDir (--experiments):
	// each an experiment folder or a folder of them. Where KernelsDir has no
	// run.py they run with the runner built into rooftool (kernels.ExtractRunner).
	ExperimentDirs  []string
	Cmd             *cmdprog.Target // a program of the user's own, profiled in place of experiments (--cmd): its cells are those it marks
	Variants        []string
	Shapes          []string
	Passes          []string      // nil : rundir.AllPasses
	Sweeps          string        // plan.SweepsTiming (default), plan.SweepsNone, plan.SweepsAll
	Timeout         time.Duration // per cell; a runner process over n cells gets n times this; 0 : 10m
	Reps            int           // timing repetitions; 0 : the runner's default
	RangeReplays    int           // the most range-pass replays of a cell; 0 : DefaultRangeReplays
	RangeReplaysFor string        // rangerule.ReplaysForDecisions ("" too: replayed again while a claim is near its threshold) or rangerule.ReplaysForAll (every cell RangeReplays times)
	RangeProcess    string        // RangeProcessPerCell or RangeProcessPerExperiment; "": per-experiment
	NCU, Nsys       string        // overrides
	NsysLibs        string        // folder prepended to LD_LIBRARY_PATH for nsys ("" : $ROOFTOOL_NSYS_LIBS or ./.nsysdeps)
	SMI             string        // nvidia-smi override (tests)
	Resume          bool
	NoIngest        bool
	// NoCompileCache leaves each runner process its own compile caches
	// instead of the run's shared compilecache.Dir.
	NoCompileCache bool
	// CacheRoot is the folder of the run's compile caches ("": RUNDIR/cache);
	// the shards of a --gpus run share their parent's (SharedCacheDir).
	CacheRoot string
	// CompileCache seeds the run's caches from an earlier run's
	// (--compile-cache: its run directory or cache folder).
	CompileCache string
	// NoWarm skips the compile stage before the passes (Warm); a --gpus
	// run's shards skip it, their parent ran it once for the host.
	NoWarm bool
	// Shard picks one part of the planned cells (zero: all of them).
	Shard shard.Part
	// CostsFrom are earlier run directories whose pass seconds estimate
	// each cell's cost for the shard split (none: the shape size).
	CostsFrom []string
	Command   []string // recorded in the manifest
	Version   string   // rooftool's version
	// Commit is the commit rooftool was built from: the run's git commit
	// where its kernels are those installed with rooftool (no checkout
	// to ask).
	Commit   string
	Progress Progress  // nil : none
	Log      io.Writer // warnings as plain lines; nil : discarded
	Now      func() time.Time
}

// Runner drives one run.
type Runner struct {
	cfg      Config
	dir      string // absolute run directory
	runPy    string
	extDirs  map[string]string // external experiment -> its absolute folder
	m        *rundir.Manifest
	prog     Progress
	log      io.Writer
	ncu      string
	ncuErr   error
	nsys     string
	nsysErr  error
	nsysEnv  []string
	metrics  []string
	rmetrics []string
	// cacheEnv are the compile-cache variables of every runner process
	// (compilecache.Setup); cacheRoot their folder ("" with the caches off).
	cacheEnv  []string
	cacheRoot string
	// passGPU is the UUID of this invocation's device where a resumed run
	// began on another one: each pass it records names it.
	passGPU string
	// round is the range pass's replay round at work (rangePass), 0 outside it.
	round int
}

// Run profiles the planned cells into the run directory and returns its
// manifest. A canceled context stops the sweep after writing the manifest
// (finished cells stay); the error is then ctx.Err().
func Run(ctx context.Context, cfg Config) (*rundir.Manifest, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, prog: cfg.Progress, log: cfg.Log}
	if r.prog == nil {
		r.prog = nopProgress{}
	}
	if r.log == nil {
		r.log = io.Discard
	}
	all, ext, extDirs, err := planAll(cfg)
	if err != nil {
		return nil, err
	}
	r.extDirs = extDirs
	prior, err := shard.PriorCosts(cfg.CostsFrom)
	if err != nil {
		return nil, err
	}
	parts, _, planHash, err := shard.Split(all, prior, cfg.Shard.Count, cfg.RangeReplaysFor != rangerule.ReplaysForAll)
	if err != nil {
		return nil, err
	}
	var cells []plan.Cell
	for i, c := range all {
		if cfg.Shard.Count == 0 || parts[i] == cfg.Shard.Index {
			cells = append(cells, c)
		}
	}
	r.runPy = filepath.Join(cfg.KernelsDir, "run.py")
	if _, err := os.Stat(r.runPy); cfg.KernelsDir == "" || err != nil {
		var builtin []string
		for _, e := range orderedExps(cells) {
			if _, ok := extDirs[e.Name]; !ok {
				builtin = append(builtin, e.Name)
			}
		}
		switch {
		case len(builtin) > 0 && cfg.KernelsDir == "":
			return nil, configErrorf("experiments %v: %s", builtin, FindKernels("").NotFound())
		case len(builtin) > 0:
			return nil, configErrorf("runner %s: %w (experiments %v live there: pass the kernels folder that holds them, or leave --kernels out to use the checkout's or the installed ones)", r.runPy, err, builtin)
		}
		// Only external experiments: the runner built into rooftool runs them.
		tmp, err := os.MkdirTemp("", "rooftool-runner-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if r.runPy, err = kernels.ExtractRunner(tmp); err != nil {
			return nil, err
		}
		cfg.KernelsDir = ""
		r.cfg.KernelsDir = ""
	}
	if abs, err := filepath.Abs(r.runPy); err == nil {
		r.runPy = abs
	}

	env, envErr := r.runnerEnv(ctx)
	need := map[string]bool{}
	for _, c := range cells {
		for _, p := range c.Passes {
			need[p] = true
		}
	}
	if cfg.Cmd != nil { // its cells are known once it has run
		for _, p := range cfg.Passes {
			need[p] = true
		}
	}
	if err := r.preflight(ctx, need, env, envErr); err != nil {
		return nil, err
	}
	dev, driver, gwarn := r.detectGPU(ctx, env)

	dir, old, err := r.openRunDir(dev.Name, planHash)
	if err != nil {
		return nil, err
	}
	if cfg.Cmd != nil {
		// The program's cells are known once it has run (program.go).
		if cells, planHash, err = r.discover(ctx); err != nil {
			return nil, err
		}
	}

	m := r.m
	r.recordRun(ctx, old != nil, planHash, env, envErr, dev, driver, gwarn)
	if err := r.recordOptions(dir, ext, extDirs); err != nil {
		return nil, err
	}
	if cfg.Cmd == nil {
		r.recordSweepPicks(dev.Name)
	}
	r.recordEnv(old != nil)
	if err := r.snapshotSpecs(orderedExps(cells), old != nil); err != nil {
		return nil, err
	}
	r.setupTools(ctx, cells)

	units := r.listCells(cells)
	if err := r.write(); err != nil {
		return nil, err
	}
	if !cfg.NoWarm && r.cacheRoot != "" {
		if w := r.warm(ctx, cells); w != nil {
			m.Warm = w
			if err := r.write(); err != nil {
				return nil, err
			}
		}
	}
	r.prog.Start(units)
	defer r.prog.Finish()

	if err := r.sweep(ctx, cells); err != nil {
		return m, err
	}
	if !cfg.NoIngest {
		t0 := time.Now()
		warns := r.ingest()
		m.IngestSeconds = round3(time.Since(t0).Seconds())
		for _, w := range warns {
			r.warn("%s", w)
		}
	}
	m.Finished = cfg.Now().UTC()
	if err := r.write(); err != nil {
		return m, err
	}
	return m, nil
}

// recordInvocation notes this command in the manifest: the run's command
// and passes for a new run; for a resumed one the invocation (and the GPU
// it found, devName, where another model) and the passes both asked for.
func (r *Runner) recordInvocation(resumed bool, devName string) {
	cfg, m := r.cfg, r.m
	m.Version = cfg.Version
	if resumed {
		inv := rundir.Invocation{Command: cfg.Command, Started: cfg.Now().UTC()}
		if devName != "" && m.GPU.Name != "" && devName != m.GPU.Name {
			inv.GPU = devName
			r.warn("resumed on %s; the run began on %s", devName, m.GPU.Name)
		}
		m.Resumed = append(m.Resumed, inv)
		var ps []string
		for _, p := range rundir.AllPasses {
			if slices.Contains(m.Passes, p) || slices.Contains(cfg.Passes, p) {
				ps = append(ps, p)
			}
		}
		m.Passes = ps
	} else {
		m.Command = cfg.Command
		m.Passes = cfg.Passes
	}
}

// openRunDir makes the run directory (-o, else runs/<date>-<gpu>-<time>
// named after devName, the GPU found) and starts its manifest (r.m): a new
// one, or with --resume the one there (old), which must be of the same
// shard and plan (planHash).
func (r *Runner) openRunDir(devName, planHash string) (dir string, old *rundir.Manifest, err error) {
	cfg := r.cfg
	dir = cfg.RunDir
	if dir == "" {
		short := gpu.ShortName(devName)
		if short == "" {
			short = gpu.ShortName(cfg.GPU)
		}
		if short == "" {
			short = "nogpu"
		}
		now := cfg.Now().UTC()
		dir = filepath.Join("runs", now.Format("2006-01-02")+"-"+short+"-"+now.Format("150405"))
	}
	if r.dir, err = filepath.Abs(dir); err != nil {
		return "", nil, err
	}
	old, err = rundir.ReadManifest(r.dir)
	switch {
	case err == nil && !cfg.Resume:
		return "", nil, configErrorf("-o %s: the directory holds a run already: pass --resume to continue it, or another -o", dir)
	case err == nil && (old.Shard != cfg.Shard.String() || (old.Shard != "" && old.PlanHash != planHash)):
		return "", nil, configErrorf("-o %s: the run is shard %q of plan %s; this command plans shard %q of plan %s: resume it with the same selection and --shard", dir, old.Shard, old.PlanHash, cfg.Shard.String(), planHash)
	case err == nil:
		r.m = old
		r.m.Finished = time.Time{}
	case errors.Is(err, os.ErrNotExist):
		r.m = &rundir.Manifest{Tool: "rooftool", Created: cfg.Now().UTC()}
	default:
		return "", nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	return dir, old, nil
}

// recordOptions puts into the manifest the options that set how the run
// measures: the runner, the profilers' flags, the run and experiment
// folders (dir, the external experiments' extDirs), the compile caches
// (and their variables for the runner processes) and the range pass.
func (r *Runner) recordOptions(dir string, ext []*spec.Experiment, extDirs map[string]string) error {
	cfg, m := r.cfg, r.m
	opts := map[string]string{
		"python":                 cfg.Python,
		"kernels":                cfg.KernelsDir,
		"timeout_per_cell":       cfg.Timeout.String(),
		"sweeps":                 cfg.Sweeps,
		"ncu.clock_control":      "none",
		"ncu.range_cache":        "none",
		"ncu.range_replay":       "range; app-range for graph variants and as the retry",
		"ncu.range_min_coverage": strconv.FormatFloat(rundir.MinRangeCoverage, 'g', -1, 64),
		"nsys.trace":             "cuda,nvtx",
		"nsys.cuda_graph_trace":  "node",
		"nsys.sample":            "none",
		"ingest":                 strconv.FormatBool(!cfg.NoIngest),
	}
	opts["run_dir"] = dir
	if len(extDirs) > 0 {
		var ds []string
		for _, e := range ext {
			ds = append(ds, extDirs[e.Name])
		}
		opts["experiments_dirs"] = strings.Join(ds, string(os.PathListSeparator))
		if cfg.KernelsDir == "" {
			opts["kernels"] = "(built into rooftool " + cfg.Version + ")"
		}
	}
	if cfg.KernelsFrom == KernelsFromInstalled {
		// Its path is this machine's; what it holds is rooftool's own.
		opts["kernels"] = "(installed with rooftool " + cfg.Version + ")"
	}
	if m.Options == nil {
		m.Options = map[string]string{}
	}
	for k, v := range opts {
		m.Options[k] = v
	}
	if cfg.Reps > 0 {
		m.Options["reps"] = strconv.Itoa(cfg.Reps)
	}
	var err error
	root := cfg.CacheRoot
	if root == "" {
		root = filepath.Join(r.dir, compilecache.Dir)
	}
	if root, err = filepath.Abs(root); err != nil {
		return err
	}
	if r.cacheEnv, err = compilecache.Setup(root, r.recordedPath(root), cfg.CompileCache, "compiled_cache.db", cfg.NoCompileCache, m.Options); err != nil {
		return err
	}
	if !cfg.NoCompileCache {
		r.cacheRoot = root
	}
	m.Options[rundir.OptionRangeReplays] = strconv.Itoa(r.rangeReplays())
	m.Options[rundir.OptionRangeReplaysFor] = r.replaysFor()
	m.Options[rundir.OptionRangeProcess] = rangeProcessWords[r.rangeProcess()]
	return nil
}

// withDefaults is cfg with its defaults filled in (the kernels folder, the
// interpreter, the passes, sweeps, timeout and clock), or the error of a
// bad value.
func withDefaults(cfg Config) (Config, error) {
	cfg = withKernels(cfg)
	if cfg.Python == "" {
		cfg.Python = DefaultPython()
	}
	if cfg.Passes == nil {
		cfg.Passes = rundir.AllPasses
		if cfg.Cmd != nil {
			cfg.Passes = cmdprog.Passes
		}
	}
	if cfg.Sweeps == "" {
		cfg.Sweeps = plan.SweepsTiming
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Reps < 0 {
		return cfg, configErrorf("--reps %d: want a positive count", cfg.Reps)
	}
	if _, ok := rangeProcessWords[cfg.RangeProcess]; !ok && cfg.RangeProcess != "" {
		return cfg, configErrorf("--range-process %q: want %s or %s", cfg.RangeProcess, RangeProcessPerCell, RangeProcessPerExperiment)
	}
	return cfg, nil
}

// withKernels is cfg with its kernels folder found (FindKernels) where
// the caller named none; KernelsDir stays "" where none is found.
func withKernels(cfg Config) Config {
	if cfg.KernelsDir == "" {
		k := FindKernels("")
		cfg.KernelsDir, cfg.KernelsFrom = k.Dir, k.From
	}
	return cfg
}

// sweep runs every pass of every experiment over its cells not finished
// yet, in plan order; a cell whose check did not pass is marked skipped
// in its later passes. The manifest is written where a pass fails.
func (r *Runner) sweep(ctx context.Context, cells []plan.Cell) error {
	m := r.m
	for _, exp := range orderedExps(cells) {
		for _, pass := range rundir.AllPasses {
			var todo []string
			for _, c := range cells {
				if c.Exp != exp || !slices.Contains(c.Passes, pass) {
					continue
				}
				if st, ok := m.Pass(exp.Name, c.Variant, c.Shape, pass); ok && finished(st) {
					continue
				}
				if pass != rundir.PassCheck && slices.Contains(c.Passes, rundir.PassCheck) {
					chk, _ := m.Pass(exp.Name, c.Variant, c.Shape, rundir.PassCheck)
					if chk.Status != rundir.StatusOK {
						why := "check failed"
						if chk.Status == rundir.StatusSkipped {
							why = chk.Reason
						} else if chk.Reason != "" {
							why = "check failed: " + chk.Reason
						}
						m.SetPass(exp.Name, c.Variant, c.Shape, pass, rundir.PassStatus{Status: rundir.StatusSkipped, Reason: why})
						r.prog.Done(1, fmt.Sprintf("%s %s %s/%s: skipped (%s)", exp.Name, pass, c.Variant, c.Shape, why))
						continue
					}
				}
				todo = append(todo, c.Variant+"/"+c.Shape)
			}
			if len(todo) == 0 {
				continue
			}
			// A shape's variants in a row: the runner computes the shape's
			// reference once for them (kernels/common/refcache.py).
			todo = byShape(todo)
			if pass == rundir.PassRange {
				// Replay rounds, their processes and the replay rule: rangepass.go.
				if err := r.rangePass(ctx, exp, todo); err != nil {
					r.write()
					return err
				}
				continue
			}
			unlock := func() {}
			if pass == rundir.PassTiming {
				// Processes sharing the host time one at a time (--serial-timing).
				var err error
				if unlock, err = lockTiming(); err != nil {
					return err
				}
			}
			if err := r.runPass(ctx, exp, pass, todo); err != nil {
				unlock()
				r.write()
				return err
			}
			if pass == rundir.PassTiming {
				r.pairedTiming(ctx, exp) // the claims' baselines and candidates, paired (paired.go)
			}
			unlock()
		}
		// The range's DRAM floor needs the nsys pass: rangefloor.go.
		var ran []string
		for _, c := range cells {
			if c.Exp == exp && slices.Contains(c.Passes, rundir.PassRange) && slices.Contains(c.Passes, rundir.PassNsys) {
				ran = append(ran, c.Variant+"/"+c.Shape)
			}
		}
		if err := r.floorCheck(ctx, exp, byShape(ran)); err != nil {
			r.write()
			return err
		}
	}
	return nil
}

// PlanFor lists the cells a run of cfg would plan (all shards), with each
// cell's shard (1 when cfg.Shard is zero), its estimated cost and the plan
// hash; it runs nothing.
func PlanFor(cfg Config) (cells []plan.Cell, parts []int, costs []float64, hash string, err error) {
	cfg = withKernels(cfg)
	if cfg.Passes == nil {
		cfg.Passes = rundir.AllPasses
	}
	if cfg.Sweeps == "" {
		cfg.Sweeps = plan.SweepsTiming
	}
	cells, _, _, err = planAll(cfg)
	if err != nil {
		return nil, nil, nil, "", err
	}
	prior, err := shard.PriorCosts(cfg.CostsFrom)
	if err != nil {
		return nil, nil, nil, "", err
	}
	parts, costs, hash, err = shard.Split(cells, prior, cfg.Shard.Count, cfg.RangeReplaysFor != rangerule.ReplaysForAll)
	return cells, parts, costs, hash, err
}

// planAll loads the specs (built-in and external) and plans every cell of
// the selection, before any sharding.
func planAll(cfg Config) ([]plan.Cell, []*spec.Experiment, map[string]string, error) {
	if cfg.Cmd != nil {
		return nil, nil, nil, nil // Run discovers a --cmd program's cells
	}
	exps, err := plan.LoadSpecs(cfg.KernelsDir)
	if err != nil {
		return nil, nil, nil, err
	}
	ext, extDirs, err := LoadExternal(cfg.ExperimentDirs)
	if err != nil {
		return nil, nil, nil, err
	}
	selected := cfg.Experiments
	for _, e := range ext {
		for _, b := range exps {
			if b.Name == e.Name {
				return nil, nil, nil, configErrorf("--experiments %s: experiment %q is one of rooftool's own: rename the folder and its experiment: field", extDirs[e.Name], e.Name)
			}
		}
		if len(cfg.Experiments) == 0 {
			selected = append(selected, e.Name)
		}
	}
	exps = append(exps, ext...)
	cells, err := plan.Cells(exps, selected, cfg.Variants, cfg.Shapes, cfg.Passes, cfg.Sweeps)
	if err != nil {
		return nil, nil, nil, err
	}
	return cells, ext, extDirs, nil
}

// Dir is the run directory.
func (r *Runner) Dir() string { return r.dir }

// byShape orders cells ("variant/shape") by shape, shapes in order of
// first appearance, each shape's variants in their order.
func byShape(cells []string) []string {
	first := map[string]int{}
	for _, c := range cells {
		_, s, _ := strings.Cut(c, "/")
		if _, ok := first[s]; !ok {
			first[s] = len(first)
		}
	}
	out := slices.Clone(cells)
	slices.SortStableFunc(out, func(a, b string) int {
		_, sa, _ := strings.Cut(a, "/")
		_, sb, _ := strings.Cut(b, "/")
		return first[sa] - first[sb]
	})
	return out
}

func finished(st rundir.PassStatus) bool {
	return st.Status == rundir.StatusOK || st.Status == rundir.StatusSkipped
}

func orderedExps(cells []plan.Cell) []*spec.Experiment {
	var out []*spec.Experiment
	for _, c := range cells {
		if !slices.Contains(out, c.Exp) {
			out = append(out, c.Exp)
		}
	}
	return out
}

func (r *Runner) write() error {
	if err := r.m.Write(r.dir); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(r.dir, "manifest.json"), err)
	}
	return nil
}

func (r *Runner) warn(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	if !slices.Contains(r.m.Warnings, w) {
		r.m.Warnings = append(r.m.Warnings, w)
	}
	if c, ok := r.prog.(interface{ Clear() }); ok {
		c.Clear()
	}
	fmt.Fprintln(r.log, "warning:", w)
}

// configErrorf is plan.ConfigErrorf: a bad flag or name (commands exit 2).
func configErrorf(format string, args ...any) error { return plan.ConfigErrorf(format, args...) }

// ingest writes the run's tables from its raw exports (runtables.Ingest)
// and records in the manifest whether they were written; it returns the
// warnings.
func (r *Runner) ingest() []string {
	warns, err := runtables.Ingest(r.dir, r.m)
	if err != nil {
		warns = append(warns, err.Error())
	}
	r.m.Options["tables"] = rundir.TablesDir
	if err != nil {
		r.m.Options["tables"] = "not written"
	}
	return slices.Clip(warns)
}
