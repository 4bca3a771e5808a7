package launch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
)

// Config is one `rooftool profile` run.
type Config struct {
	RunDir      string   // "" : runs/<date>-<gpu>-<time>
	KernelsDir  string   // folder with run.py and <experiment>/spec.yaml; "" : "kernels"
	Python      string   // "" : "python3"
	GPU         string   // the --gpu flag, e.g. "h100"
	Experiments []string // "" : all
	Variants    []string
	Shapes      []string
	Passes      []string      // nil : rundir.AllPasses
	Sweeps      string        // SweepsTiming (default), SweepsNone, SweepsAll
	Timeout     time.Duration // per cell; a runner process over n cells gets n times this; 0 : 10m
	Reps        int           // timing repetitions; 0 : the runner's default
	NCU, Nsys   string        // overrides
	NsysLibs    string        // folder prepended to LD_LIBRARY_PATH for nsys ("" : $ROOFTOOL_NSYS_LIBS or ./.nsysdeps)
	SMI         string        // nvidia-smi override (tests)
	Resume      bool
	NoIngest    bool
	Command     []string  // recorded in the manifest
	Version     string    // rooftool's version
	Progress    Progress  // nil : none
	Log         io.Writer // warnings as plain lines; nil : discarded
	Now         func() time.Time
}

// Runner drives one run.
type Runner struct {
	cfg      Config
	dir      string // absolute run directory
	runPy    string
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
	queried  bool
}

// Run profiles the planned cells into the run directory and returns its
// manifest. A canceled context stops the sweep after writing the manifest
// (finished cells stay); the error is then ctx.Err().
func Run(ctx context.Context, cfg Config) (*rundir.Manifest, error) {
	if cfg.KernelsDir == "" {
		cfg.KernelsDir = "kernels"
	}
	if cfg.Python == "" {
		cfg.Python = "python3"
	}
	if cfg.Passes == nil {
		cfg.Passes = rundir.AllPasses
	}
	if cfg.Sweeps == "" {
		cfg.Sweeps = SweepsTiming
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Reps < 0 {
		return nil, configErrorf("--reps %d: want a positive count", cfg.Reps)
	}
	r := &Runner{cfg: cfg, prog: cfg.Progress, log: cfg.Log}
	if r.prog == nil {
		r.prog = nopProgress{}
	}
	if r.log == nil {
		r.log = io.Discard
	}
	exps, err := LoadSpecs(cfg.KernelsDir)
	if err != nil {
		return nil, err
	}
	cells, err := Plan(exps, cfg.Experiments, cfg.Variants, cfg.Shapes, cfg.Passes, cfg.Sweeps)
	if err != nil {
		return nil, err
	}
	r.runPy = filepath.Join(cfg.KernelsDir, "run.py")
	if _, err := os.Stat(r.runPy); err != nil {
		return nil, configErrorf("runner %s: %w (run rooftool from the repository root or pass --kernels)", r.runPy, err)
	}
	if abs, err := filepath.Abs(r.runPy); err == nil {
		r.runPy = abs
	}

	gpu, driver, gwarn := r.detectGPU(ctx)
	env, envErr := r.runnerEnv(ctx)

	dir := cfg.RunDir
	if dir == "" {
		short := GPUShort(gpu.Name)
		if short == "" {
			short = strings.ToLower(cfg.GPU)
		}
		if short == "" {
			short = "nogpu"
		}
		now := cfg.Now().UTC()
		dir = filepath.Join("runs", now.Format("2006-01-02")+"-"+short+"-"+now.Format("150405"))
	}
	if r.dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	old, err := rundir.ReadManifest(r.dir)
	switch {
	case err == nil && !cfg.Resume:
		return nil, configErrorf("-o %s: the directory holds a run already: pass --resume to continue it, or another -o", dir)
	case err == nil:
		r.m = old
		r.m.Finished = time.Time{}
	case errors.Is(err, os.ErrNotExist):
		r.m = &rundir.Manifest{Tool: "rooftool", Created: cfg.Now().UTC()}
	default:
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}

	m := r.m
	m.Version = cfg.Version
	if old != nil {
		inv := rundir.Invocation{Command: cfg.Command, Started: cfg.Now().UTC()}
		if gpu.Name != "" && m.GPU.Name != "" && gpu.Name != m.GPU.Name {
			inv.GPU = gpu.Name
			r.warn("resumed on %s; the run began on %s", gpu.Name, m.GPU.Name)
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
	m.GPURequested = cfg.GPU
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	m.Versions["rooftool"] = cfg.Version
	if envErr == nil {
		env.Fill(&gpu)
		for k, v := range env.Versions() {
			m.Versions[k] = v
		}
	}
	if driver != "" {
		m.Versions["driver"] = driver // nvidia-smi's word over the runner's
	}
	if envErr != nil {
		r.warn("runner environment: %v", envErr)
	}
	if old == nil || m.GPU.Name == "" {
		m.GPU = gpu // a resumed run keeps the device it began on; Resumed names any other
	}
	for _, w := range gwarn {
		r.warn("%s", w)
	}
	if c := gitCommit(ctx, cfg.KernelsDir); c != "" {
		m.GitCommit = c
	}
	opts := map[string]string{
		"python":                cfg.Python,
		"kernels":               cfg.KernelsDir,
		"timeout_per_cell":      cfg.Timeout.String(),
		"sweeps":                cfg.Sweeps,
		"ncu.clock_control":     "none",
		"ncu.range_cache":       "none",
		"nsys.trace":            "cuda,nvtx",
		"nsys.cuda_graph_trace": "node",
		"nsys.sample":           "none",
		"ingest":                strconv.FormatBool(!cfg.NoIngest),
	}
	opts["run_dir"] = dir
	if m.Options == nil {
		m.Options = map[string]string{}
	}
	for k, v := range opts {
		m.Options[k] = v
	}
	if cfg.Reps > 0 {
		m.Options["reps"] = strconv.Itoa(cfg.Reps)
	}
	r.setupTools(ctx, cells)

	// Every planned cell is listed from the start.
	units := 0
	for _, c := range cells {
		m.Cell(c.Exp.Name, c.Variant, c.Shape)
		for _, p := range c.Passes {
			if st, ok := m.Pass(c.Exp.Name, c.Variant, c.Shape, p); !ok || !finished(st) {
				units++
			}
		}
	}
	if err := r.write(); err != nil {
		return nil, err
	}
	r.prog.Start(units)
	defer r.prog.Finish()

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
			if err := r.runPass(ctx, exp, pass, todo); err != nil {
				r.write()
				return m, err
			}
		}
	}
	if !cfg.NoIngest {
		for _, w := range r.ingest() {
			r.warn("%s", w)
		}
	}
	m.Finished = cfg.Now().UTC()
	if err := r.write(); err != nil {
		return m, err
	}
	return m, nil
}

// Dir is the run directory.
func (r *Runner) Dir() string { return r.dir }

func finished(st rundir.PassStatus) bool {
	return st.Status == rundir.StatusOK || st.Status == rundir.StatusSkipped
}

func orderedExps(cells []PlannedCell) []*kernels.Experiment {
	var out []*kernels.Experiment
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

func (r *Runner) detectGPU(ctx context.Context) (rundir.GPUInfo, string, []string) {
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
	g := gpus[0]
	var warns []string
	if len(gpus) > 1 {
		warns = append(warns, fmt.Sprintf("%d GPUs visible; the runner uses the first (%s): set CUDA_VISIBLE_DEVICES to choose", len(gpus), g.Name))
	}
	if r.cfg.GPU != "" && !GPUMatches(r.cfg.GPU, g.Name) {
		warns = append(warns, fmt.Sprintf("--gpu %s was asked, but this machine has %s: the run records the GPU it really ran on", r.cfg.GPU, g.Name))
	}
	return g.GPUInfo, g.Driver, warns
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

func (r *Runner) setupTools(ctx context.Context, cells []PlannedCell) {
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
			if names, err := QueryMetrics(ctx, r.ncu); err == nil {
				avail = names
			} else {
				r.warn("ncu --query-metrics: %v: metric names are not checked", err)
			}
			var dropped, rdropped []string
			r.metrics, dropped = ExpandMetrics(NCUMetrics, avail)
			r.rmetrics, rdropped = ExpandMetrics(RangeMetrics, avail)
			if d := append(dropped, rdropped...); len(d) > 0 {
				r.warn("ncu on this device lacks %s: not collected", strings.Join(d, ", "))
			}
			r.m.Options["ncu.metrics"] = strings.Join(r.metrics, ",")
			r.m.Options["ncu.range_metrics"] = strings.Join(r.rmetrics, ",")
		}
	}
	if need[rundir.PassNsys] {
		r.nsys, r.nsysErr = FindNsys(r.cfg.Nsys)
		if r.nsysErr != nil {
			r.warn("nsys pass will fail: %v", r.nsysErr)
		} else {
			libs := NsysLibDir(r.cfg.NsysLibs, ".")
			r.nsysEnv = NsysEnv(libs)
			r.m.Options["nsys"] = r.nsys
			if libs != "" {
				r.m.Options["nsys.libs"] = libs
			}
			if v, err := ToolVersion(ctx, r.nsys, r.nsysEnv); err == nil {
				r.m.Versions["nsys"] = v
			}
		}
	}
}

// onLine turns the runner's per-cell stderr lines ("exp/variant/shape: check
// ok ...") into the progress description, so a terminal shows the cell at work.
func (r *Runner) onLine(exp, pass string) func(string) {
	return func(l string) {
		if !strings.HasPrefix(l, exp+"/") {
			return // profiler chatter; the runner's lines start with the cell
		}
		if len(l) > 100 {
			l = l[:97] + "..."
		}
		r.prog.Begin(exp + " " + pass + ": " + l)
	}
}

// attemptResult is what one runner process gave.
type attemptResult struct {
	got  map[string]rundir.PassStatus // cells with a definitive outcome
	ran  map[string]bool              // cells the runner reached (wrote its per-cell file)
	res  Result
	what string // e.g. "runner", "ncu", "nsys export"
	warn []string
}

// runPass runs one pass of one experiment over cells ("variant/shape"),
// re-launching the runner after a crash or timeout for the cells it did
// not reach. The cell it was stuck on is marked failed.
func (r *Runner) runPass(ctx context.Context, exp *kernels.Experiment, pass string, cells []string) error {
	pending := cells
	attempts := 0
	for len(pending) > 0 {
		attempts++
		r.prog.Begin(fmt.Sprintf("%s %s: %s (%d cells)", exp.Name, pass, pending[0], len(pending)))
		t0 := time.Now()
		a := r.attempt(ctx, exp, pass, pending)
		el := time.Since(t0)
		for _, w := range a.warn {
			r.warn("%s", w)
		}
		share := el.Seconds() / float64(len(pending))
		var rest []string
		counts := map[string]int{}
		for _, c := range pending {
			st, ok := a.got[c]
			if !ok {
				rest = append(rest, c)
				continue
			}
			st.Seconds = round3(share)
			st.Attempts = attempts
			v, s, _ := strings.Cut(c, "/")
			r.m.SetPass(exp.Name, v, s, pass, st)
			counts[st.Status]++
		}
		if a.res.Canceled {
			r.write()
			r.prog.Done(len(pending)-len(rest), summary(exp.Name, pass, counts, el)+" (interrupted)")
			return ctx.Err()
		}
		if len(rest) > 0 {
			reason := a.res.Reason(a.what)
			var fail []string
			switch {
			case a.res.Exited(2):
				fail = rest // bad usage: every cell fails the same way
			case a.res.Err != nil && a.res.ExitCode < 0 && !a.res.TimedOut:
				fail = rest // the process could not start (or was lost): same for every cell
			default:
				culprit := -1
				for i, c := range rest {
					if !a.ran[c] {
						culprit = i
						break
					}
				}
				if culprit < 0 {
					fail = rest // the runner reached them all; the profiler failed after
				} else {
					fail = []string{rest[culprit]}
				}
			}
			for _, c := range fail {
				v, s, _ := strings.Cut(c, "/")
				why := reason
				if a.res.TimedOut && len(fail) == 1 {
					why = fmt.Sprintf("%s: timeout: the runner was still in this cell after %s (--timeout %s per cell)", a.what, el.Round(time.Second), r.cfg.Timeout)
				}
				r.m.SetPass(exp.Name, v, s, pass, rundir.PassStatus{Status: rundir.StatusFailed, Reason: why, Seconds: round3(share), Attempts: attempts})
				counts[rundir.StatusFailed]++
			}
			var next []string
			for _, c := range rest {
				if !slices.Contains(fail, c) {
					next = append(next, c)
				}
			}
			pending = next
		} else {
			pending = nil
		}
		if err := r.write(); err != nil {
			return err
		}
		n := 0
		for _, k := range counts {
			n += k
		}
		r.prog.Done(n, summary(exp.Name, pass, counts, el))
	}
	return nil
}

func summary(exp, pass string, counts map[string]int, el time.Duration) string {
	var parts []string
	for _, s := range []string{rundir.StatusOK, rundir.StatusFailed, rundir.StatusSkipped} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no result")
	}
	return fmt.Sprintf("%s %s: %s (%s)", exp, pass, strings.Join(parts, ", "), el.Round(100*time.Millisecond))
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func (r *Runner) attempt(ctx context.Context, exp *kernels.Experiment, pass string, cells []string) attemptResult {
	switch pass {
	case rundir.PassCheck:
		return r.attemptCheck(ctx, exp, cells)
	case rundir.PassTiming:
		return r.attemptTiming(ctx, exp, cells)
	case rundir.PassNCU, rundir.PassRange:
		return r.attemptNCU(ctx, exp, pass, cells)
	case rundir.PassNsys:
		return r.attemptNsys(ctx, exp, cells)
	}
	return attemptResult{what: pass, res: Result{ExitCode: -1, Err: fmt.Errorf("unknown pass %q", pass)}}
}

// rawDir is raw/<pass folder>/<experiment>.
func (r *Runner) rawDir(pass, exp string) string {
	folder := map[string]string{rundir.PassCheck: "check", rundir.PassTiming: "timing", rundir.PassNCU: "ncu", rundir.PassRange: "ncu-range", rundir.PassNsys: "nsys"}[pass]
	return filepath.Join(r.dir, "raw", folder, exp)
}

func (r *Runner) rel(p string) string {
	if rel, err := filepath.Rel(r.dir, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}

func (r *Runner) runnerArgv(mode string, exp *kernels.Experiment, cells []string, out string) []string {
	argv := []string{r.cfg.Python, r.runPy, mode, "--experiment", exp.Name}
	for _, c := range cells {
		argv = append(argv, "--cell", c)
	}
	argv = append(argv, "--out", out)
	if mode == "time" && r.cfg.Reps > 0 {
		argv = append(argv, "--reps", strconv.Itoa(r.cfg.Reps))
	}
	return argv
}

func (r *Runner) timeout(n int) time.Duration { return r.cfg.Timeout * time.Duration(n) }

// cellFile is dir/<variant>/<shape><suffix>.
func cellFile(dir, cell, suffix string) string {
	v, s, _ := strings.Cut(cell, "/")
	return filepath.Join(dir, v, s+suffix)
}

// cellJSON is the runner's per-cell verdict (check.json, profile.json,
// time-error.json, or a timing JSON).
type cellJSON struct {
	OK        *bool     `json:"ok"`
	Skipped   bool      `json:"skipped"`
	Error     string    `json:"error"`
	MaxRelErr *float64  `json:"max_rel_err"`
	Tolerance *float64  `json:"tolerance"`
	SamplesMs []float64 `json:"samples_ms"`
}

func readCellJSON(p string) (cellJSON, bool, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return cellJSON{}, false, nil
	}
	var c cellJSON
	if err := json.Unmarshal(data, &c); err != nil {
		return cellJSON{}, true, fmt.Errorf("%s: %w", p, err)
	}
	return c, true, nil
}

func (c cellJSON) status() rundir.PassStatus {
	switch {
	case c.OK != nil && *c.OK:
		return rundir.PassStatus{Status: rundir.StatusOK}
	case c.Skipped:
		return rundir.PassStatus{Status: rundir.StatusSkipped, Reason: c.Error}
	}
	why := c.Error
	if why == "" {
		why = "runner reported failure without a reason"
	}
	return rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
}

func removeCellFiles(dir string, cells []string, suffixes ...string) {
	for _, c := range cells {
		for _, s := range suffixes {
			os.Remove(cellFile(dir, c, s))
		}
	}
}

func (r *Runner) attemptCheck(ctx context.Context, exp *kernels.Experiment, cells []string) attemptResult {
	dir := r.rawDir(rundir.PassCheck, exp.Name)
	removeCellFiles(dir, cells, ".check.json")
	res := RunCmd(ctx, Cmd{Argv: r.runnerArgv("check", exp, cells, dir), Env: r.runnerEnvVars(nil), Log: filepath.Join(dir, "runner.log"), Timeout: r.timeout(len(cells)), OnLine: r.onLine(exp.Name, rundir.PassCheck)})
	a := attemptResult{got: map[string]rundir.PassStatus{}, ran: map[string]bool{}, res: res, what: "runner check"}
	for _, c := range cells {
		p := cellFile(dir, c, ".check.json")
		cj, ok, err := readCellJSON(p)
		if !ok {
			continue
		}
		a.ran[c] = true
		if err != nil {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
			continue
		}
		st := cj.status()
		st.Files = []string{r.rel(p)}
		if st.Status == rundir.StatusFailed && cj.MaxRelErr != nil && cj.Tolerance != nil && !strings.Contains(st.Reason, "toler") {
			st.Reason += fmt.Sprintf(" (max rel err %.3g, tolerance %.3g)", *cj.MaxRelErr, *cj.Tolerance)
		}
		a.got[c] = st
	}
	return a
}

func (r *Runner) attemptTiming(ctx context.Context, exp *kernels.Experiment, cells []string) attemptResult {
	dir := r.rawDir(rundir.PassTiming, exp.Name)
	removeCellFiles(dir, cells, ".json", ".check.json", ".time-error.json")
	res := RunCmd(ctx, Cmd{Argv: r.runnerArgv("time", exp, cells, dir), Env: r.runnerEnvVars(nil), Log: filepath.Join(dir, "runner.log"), Timeout: r.timeout(len(cells)), OnLine: r.onLine(exp.Name, rundir.PassTiming)})
	a := attemptResult{got: map[string]rundir.PassStatus{}, ran: map[string]bool{}, res: res, what: "runner time"}
	for _, c := range cells {
		p := cellFile(dir, c, ".json")
		if tj, ok, err := readCellJSON(p); ok {
			a.ran[c] = true
			switch {
			case err != nil:
				a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
			case len(tj.SamplesMs) > 0:
				a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(p)}}
			default:
				st := tj.status()
				if st.Status == rundir.StatusOK {
					st = rundir.PassStatus{Status: rundir.StatusFailed, Reason: "timing JSON has no samples_ms"}
				}
				a.got[c] = st
			}
			continue
		}
		for _, suf := range []string{".check.json", ".time-error.json"} {
			q := cellFile(dir, c, suf)
			cj, ok, err := readCellJSON(q)
			if !ok {
				continue
			}
			a.ran[c] = true
			if err != nil {
				a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
				break
			}
			st := cj.status()
			if st.Status == rundir.StatusOK {
				continue // a passing check file says nothing about timing
			}
			if suf == ".check.json" && st.Status == rundir.StatusFailed {
				st.Reason = "check failed: " + st.Reason
			}
			st.Files = []string{r.rel(q)}
			a.got[c] = st
			break
		}
	}
	return a
}

// nextPart returns the first "part-N" with no file of that stem in dir, so
// that a resumed or re-launched pass never overwrites an earlier export.
func nextPart(dir string) string {
	for i := 1; ; i++ {
		stem := fmt.Sprintf("part-%d", i)
		ms, _ := filepath.Glob(filepath.Join(dir, stem+".*"))
		if len(ms) == 0 {
			return stem
		}
	}
}

// profileVerdicts reads each cell's profile.json: which cells the runner
// reached and which it reported failed or skipped.
func (r *Runner) profileVerdicts(dir string, cells []string, a *attemptResult) map[string]bool {
	okCells := map[string]bool{}
	for _, c := range cells {
		cj, ok, err := readCellJSON(cellFile(dir, c, ".profile.json"))
		if !ok {
			continue
		}
		a.ran[c] = true
		if err != nil {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
			continue
		}
		st := cj.status()
		if st.Status != rundir.StatusOK {
			a.got[c] = st
			continue
		}
		okCells[c] = true
	}
	return okCells
}

// startProfilerAttempt begins an ncu or nsys attempt over cells: every cell
// fails with toolErr when the profiler was not found; otherwise dir is made,
// the cells' stale files (suffixes) removed, and the next export part named.
// ok is false when the attempt ends there.
func startProfilerAttempt(what string, toolErr error, dir string, cells []string, stale ...string) (a attemptResult, part string, ok bool) {
	a = attemptResult{got: map[string]rundir.PassStatus{}, ran: map[string]bool{}, what: what}
	if toolErr != nil {
		for _, c := range cells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: toolErr.Error()}
		}
		return a, "", false
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		a.res = Result{ExitCode: -1, Err: err}
		return a, "", false
	}
	removeCellFiles(dir, cells, stale...)
	return a, nextPart(dir), true
}

func (r *Runner) attemptNCU(ctx context.Context, exp *kernels.Experiment, pass string, cells []string) attemptResult {
	dir := r.rawDir(pass, exp.Name)
	a, part, ok := startProfilerAttempt("ncu", r.ncuErr, dir, cells, ".profile.json", ".csv")
	if !ok {
		return a
	}
	rep := filepath.Join(dir, part+".ncu-rep")
	tmp := filepath.Join(dir, "."+part+".tmp.ncu-rep")
	logf := filepath.Join(dir, part+".log")
	metrics := r.metrics
	if pass == rundir.PassRange {
		metrics = r.rmetrics
	}
	var res Result
	for try := 0; ; try++ {
		argv := []string{r.ncu, "--export", tmp, "--force-overwrite", "--clock-control", "none", "--nvtx"}
		for _, c := range cells {
			argv = append(argv, "--nvtx-include", exp.Name+"/"+c+"/")
		}
		if pass == rundir.PassRange {
			argv = append(argv, "--replay-mode", "range", "--cache-control", "none")
		}
		argv = append(argv, "--metrics", strings.Join(metrics, ","))
		argv = append(argv, r.runnerArgv("profile", exp, cells, dir)...)
		res = RunCmd(ctx, Cmd{Argv: argv, Env: r.runnerEnvVars(nil), Log: logf, Timeout: r.timeout(len(cells)), OnLine: r.onLine(exp.Name, pass)})
		logText, _ := os.ReadFile(logf)
		missing := MissingMetrics(string(logText))
		if len(missing) == 0 || try >= 2 || res.Canceled {
			break
		}
		var keep []string
		for _, m := range metrics {
			base, _, _ := strings.Cut(m, ".")
			if !slices.ContainsFunc(missing, func(x string) bool { return x == m || x == base }) {
				keep = append(keep, m)
			}
		}
		if len(keep) == len(metrics) || len(keep) == 0 {
			break
		}
		a.warn = append(a.warn, fmt.Sprintf("ncu rejected metric(s) %s: profiled again without them", strings.Join(missing, ", ")))
		metrics = keep
		if pass == rundir.PassRange {
			r.rmetrics = keep
		} else {
			r.metrics = keep
		}
		removeCellFiles(dir, cells, ".profile.json")
	}
	a.res = res
	logText, _ := os.ReadFile(logf)
	errLines := ncuErrorLines(string(logText))
	okCells := r.profileVerdicts(dir, cells, &a)
	if res.Canceled {
		return a
	}
	if _, err := os.Stat(tmp); err != nil {
		if !res.Exited(0, 1) && errLines == "" {
			return a // crash or timeout: cells not reached are retried
		}
		why := "ncu wrote no report"
		if errLines != "" {
			why += ": " + errLines
		} else {
			why += ": " + res.Reason("ncu")
		}
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
		return a
	}
	if err := os.Rename(tmp, rep); err != nil {
		a.res.Err = err
		return a
	}
	csvPath := filepath.Join(dir, part+".csv")
	ires := RunCmd(ctx, Cmd{Argv: []string{r.ncu, "--import", rep, "--csv", "--page", "raw", "--print-units", "base"}, Stdout: csvPath, Log: logf, Timeout: 10 * time.Minute})
	if !ires.Exited(0) {
		why := ires.Reason("ncu --import")
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
		return a
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		a.res.Err = err
		return a
	}
	split, err := SplitNCU(data, exp.Name, cells)
	if err != nil {
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: fmt.Sprintf("%s: %v", r.rel(csvPath), err)}
		}
		return a
	}
	// Range rows may carry no NVTX stack of their own: attribute them by
	// launch order when their count matches the cells that ran.
	var order []string
	for _, c := range cells {
		if okCells[c] && countRows(split, c) == 0 {
			order = append(order, c)
		}
	}
	var loose []int
	for i, row := range split.Rows {
		if row.Cell == "" {
			loose = append(loose, i)
		}
	}
	if pass == rundir.PassRange && len(loose) > 0 && len(loose) == len(order) {
		for i, j := range loose {
			split.Rows[j].Cell = order[i]
		}
		a.warn = append(a.warn, fmt.Sprintf("%s: ncu range rows carry no NVTX path; attributed to cells in launch order", r.rel(csvPath)))
	}
	passes := ReplayPasses(string(logText))
	wholeOK := pass == rundir.PassNCU && !split.HasNVTX && len(split.Rows) > 0
	if wholeOK {
		a.warn = append(a.warn, fmt.Sprintf("%s has no NVTX column: kernels are not attributed to cells", r.rel(csvPath)))
	}
	for c := range okCells {
		var ks []rundir.KernelReplay
		for _, row := range split.Rows {
			if row.Cell == c {
				ks = append(ks, rundir.KernelReplay{ID: row.ID, Name: shortKernel(row.Name), Passes: passes[row.ID]})
			}
		}
		switch {
		case len(ks) > 0:
			p := cellFile(dir, c, ".csv")
			if err := rundir.WriteFileAtomic(p, split.CellCSV(c)); err != nil {
				a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
				continue
			}
			a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(p), r.rel(csvPath), r.rel(rep)}, Kernels: ks}
		case wholeOK:
			a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(csvPath), r.rel(rep)}}
		default:
			why := fmt.Sprintf("ncu recorded nothing in NVTX range %s/%s/", exp.Name, c)
			if errLines != "" {
				why += ": " + errLines
			}
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
	}
	return a
}

func countRows(s *NCUSplit, cell string) int {
	n := 0
	for _, r := range s.Rows {
		if r.Cell == cell {
			n++
		}
	}
	return n
}

// shortKernel trims a kernel's name to at most 160 bytes for the manifest.
func shortKernel(n string) string {
	if len(n) > 160 {
		return n[:157] + "..."
	}
	return n
}

func (r *Runner) attemptNsys(ctx context.Context, exp *kernels.Experiment, cells []string) attemptResult {
	dir := r.rawDir(rundir.PassNsys, exp.Name)
	a, part, ok := startProfilerAttempt("nsys", r.nsysErr, dir, cells, ".profile.json")
	if !ok {
		return a
	}
	tmpBase := filepath.Join(dir, "."+part+".tmp")
	logf := filepath.Join(dir, part+".log")
	// --cuda-graph-trace=node: a graph launch otherwise appears as one
	// whole-graph row and its kernels are missing from the kernel table.
	argv := []string{r.nsys, "profile", "--trace=cuda,nvtx", "--sample=none", "--cpuctxsw=none", "--cuda-graph-trace=node", "--force-overwrite=true", "-o", tmpBase}
	argv = append(argv, r.runnerArgv("profile", exp, cells, dir)...)
	res := RunCmd(ctx, Cmd{Argv: argv, Env: r.runnerEnvVars(r.nsysEnv), Log: logf, Timeout: r.timeout(len(cells)), OnLine: r.onLine(exp.Name, rundir.PassNsys)})
	a.res = res
	okCells := r.profileVerdicts(dir, cells, &a)
	if res.Canceled {
		return a
	}
	failAll := func(why string) {
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
	}
	tmpRep := tmpBase + ".nsys-rep"
	if _, err := os.Stat(tmpRep); err != nil {
		if !res.Exited(0, 1) {
			return a
		}
		why := "nsys wrote no .nsys-rep: " + res.Reason("nsys profile")
		if q, _ := filepath.Glob(tmpBase + "*.qdstrm"); len(q) > 0 {
			os.Rename(q[0], filepath.Join(dir, part+".qdstrm"))
			why = "nsys recorded a .qdstrm but its importer made no .nsys-rep (QdstrmImporter cannot load libdw.so.1? see `rooftool doctor`; fix: unpack libdw1 and libelf1 into .nsysdeps or pass --nsys-libs): " + res.Reason("nsys profile")
		}
		failAll(why)
		return a
	}
	rep := filepath.Join(dir, part+".nsys-rep")
	if err := os.Rename(tmpRep, rep); err != nil {
		failAll(err.Error())
		return a
	}
	tmpDB := tmpBase + ".sqlite"
	eres := RunCmd(ctx, Cmd{Argv: []string{r.nsys, "export", "--type", "sqlite", "--force-overwrite=true", "-o", tmpDB, rep}, Env: r.nsysEnv, Log: logf, Timeout: 10 * time.Minute})
	if _, err := os.Stat(tmpDB); err != nil || !eres.Exited(0) {
		a.what = "nsys export"
		failAll(eres.Reason("nsys export --type sqlite"))
		return a
	}
	db := filepath.Join(dir, part+".sqlite")
	if err := os.Rename(tmpDB, db); err != nil {
		failAll(err.Error())
		return a
	}
	for c := range okCells {
		a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(db), r.rel(rep)}}
	}
	return a
}

// PicksFile is where the runner processes of one run share the
// implementation each variant picked per shape (kernels/common/tk.py
// chooses e.g. between TMA and pointer GEMM paths by timing them): the pick
// of the first process (check) holds for timing, ncu and nsys, so every pass
// measures the same code. Timing the choice under ncu would distort it.
const PicksFile = "raw/picks.json"

// runnerEnvVars adds ROOFTOOL_PICKS to extra for a runner process.
func (r *Runner) runnerEnvVars(extra []string) []string {
	abs, err := filepath.Abs(filepath.Join(r.dir, filepath.FromSlash(PicksFile)))
	if err != nil {
		return extra
	}
	return append(append([]string{}, extra...), "ROOFTOOL_PICKS="+abs)
}
