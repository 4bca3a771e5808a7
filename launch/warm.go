package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
)

// The warm stage compiles, before the first pass and without measuring
// anything, the kernels whose compile is long enough to stall a pass:
// gated_ssm's cutlass-evt EVT GEMMs (about 55 s of nvcc each, one core
// each). kernels/sweeps/cutlass_warm.py compiles each kernel the planned
// shapes need in its own process, as many at once as the host has cores,
// into a copy of the run's cutlass_cppgen database, and merges the copies'
// rows into it. The passes then find every kernel in the cache. A --gpus
// run warms once for the host, in the parent, into the cache its shards
// share.

// WarmScript is the warm stage's script under the kernels folder.
const WarmScript = "sweeps/cutlass_warm.py"

// Cells whose compile the warm stage does ahead.
const (
	warmExperiment = "gated_ssm"
	warmVariant    = "cutlass-evt"
)

// WarmShapes are the shapes of cells the warm stage compiles for: those of
// gated_ssm's cutlass-evt, in plan order, once each.
func WarmShapes(cells []plan.Cell) []string {
	var out []string
	for _, c := range cells {
		if c.Exp.Name == warmExperiment && c.Variant == warmVariant && !slices.Contains(out, c.Shape) {
			out = append(out, c.Shape)
		}
	}
	return out
}

// WarmConfig is one warm stage.
type WarmConfig struct {
	Python     string
	KernelsDir string
	CacheRoot  string   // the run's compile caches (compilecache.Setup's root)
	Shapes     []string // WarmShapes of the planned cells
	Env        []string // extra variables of the process
	Log        string   // file for its output ("": discarded)
	Timeout    time.Duration
}

// RunWarm runs the warm stage and returns what it recorded; nil where
// there is nothing to compile. A stage that cannot run or fails is
// recorded (Skipped, Failed), not an error: the passes then compile what
// is missing, as without the stage.
func RunWarm(ctx context.Context, cfg WarmConfig) *rundir.Warm {
	if len(cfg.Shapes) == 0 {
		return nil
	}
	script := filepath.Join(cfg.KernelsDir, filepath.FromSlash(WarmScript))
	if _, err := os.Stat(script); err != nil {
		return &rundir.Warm{Skipped: fmt.Sprintf("%s: %v", WarmScript, err)}
	}
	db := filepath.Join(cfg.CacheRoot, "cutlass", "compiled_cache.db")
	argv := []string{cfg.Python, script, "--db", db}
	for _, s := range cfg.Shapes {
		argv = append(argv, "--shape", s)
	}
	out, err := os.CreateTemp("", "rooftool-warm-*.json")
	if err != nil {
		return &rundir.Warm{Skipped: err.Error()}
	}
	out.Close()
	defer os.Remove(out.Name())
	t0 := time.Now()
	res := RunCmd(ctx, Cmd{Argv: argv, Env: cfg.Env, Stdout: out.Name(), Log: cfg.Log, Timeout: cfg.Timeout})
	el := round3(time.Since(t0).Seconds())
	data, _ := os.ReadFile(out.Name())
	w, perr := parseWarm(data)
	if perr != nil {
		why := res.Reason("warm stage")
		if res.Exited(0) {
			why = perr.Error()
		}
		return &rundir.Warm{Seconds: el, Skipped: why}
	}
	w.Seconds = el
	if !res.Exited(0, 1) && w.Skipped == "" {
		w.Failed = append(w.Failed, res.Reason("warm stage"))
	}
	return w
}

// parseWarm reads the last line of cutlass_warm.py's stdout:
// {"warm": {"kernels", "compiled", "failed", "processes", "skipped", ...}}.
func parseWarm(out []byte) (*rundir.Warm, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	var v struct {
		Warm *struct {
			Kernels   int      `json:"kernels"`
			Compiled  int      `json:"compiled"`
			Processes int      `json:"processes"`
			Failed    []string `json:"failed"`
			Skipped   string   `json:"skipped"`
		} `json:"warm"`
	}
	if err := json.Unmarshal([]byte(last), &v); err != nil || v.Warm == nil {
		return nil, fmt.Errorf("warm stage: its last line is not {\"warm\": ...}: %q", last)
	}
	return &rundir.Warm{Kernels: v.Warm.Kernels, Compiled: v.Warm.Compiled, Processes: v.Warm.Processes,
		Failed: v.Warm.Failed, Skipped: v.Warm.Skipped}, nil
}

// warm runs the warm stage for the cells of this run that still need
// gated_ssm's cutlass-evt, into the run's caches, logging to
// RUNDIR/raw/warm.log.
func (r *Runner) warm(ctx context.Context, cells []plan.Cell) *rundir.Warm {
	var todo []plan.Cell
	for _, c := range cells {
		for _, p := range c.Passes {
			if st, ok := r.m.Pass(c.Exp.Name, c.Variant, c.Shape, p); !ok || !finished(st) {
				todo = append(todo, c)
				break
			}
		}
	}
	shapes := WarmShapes(todo)
	if len(shapes) == 0 {
		return nil
	}
	r.prog.Begin(fmt.Sprintf("warm: compiling %s's %s kernels for %d shapes", warmExperiment, warmVariant, len(shapes)))
	w := RunWarm(ctx, WarmConfig{Python: r.cfg.Python, KernelsDir: r.cfg.KernelsDir, CacheRoot: r.cacheRoot, Shapes: shapes,
		Env: r.runnerEnvVars(nil), Log: filepath.Join(r.dir, "raw", "warm.log"), Timeout: r.cfg.Timeout})
	if w != nil && len(w.Failed) > 0 {
		r.warn("warm stage: %s", warmTrouble(w))
	}
	return w
}

// warmTrouble says why a warm stage compiled nothing or what failed.
func warmTrouble(w *rundir.Warm) string {
	if w.Skipped != "" {
		return "nothing compiled ahead: " + w.Skipped
	}
	return "failed: " + strings.Join(w.Failed, "; ") + " (the passes compile what is missing)"
}

// DefaultWarmSeconds is the warm stage's predicted seconds where no earlier
// run recorded one: one round of nvcc with the kernels side by side (each
// cutlass-evt EVT kernel took 47-63 s of nvcc on the sweep's host,
// kernels/sweeps/README.md), plus the processes' start.
const DefaultWarmSeconds = 70.0

// PriorWarm is the warm stage's seconds the last of dirs that ran one
// recorded (0: none did).
func PriorWarm(dirs []string) (float64, error) {
	var s float64
	for _, d := range dirs {
		m, err := rundir.ReadManifest(d)
		if err != nil {
			return 0, configErrorf("--costs-from %s: %v", d, err)
		}
		if m.Warm != nil && m.Warm.Kernels > 0 && m.Warm.Seconds > 0 {
			s = m.Warm.Seconds
		}
	}
	return s, nil
}

// PredictWarm is the warm stage's predicted seconds for cells: prior (an
// earlier run's, PriorWarm) where given, else DefaultWarmSeconds; 0 where
// the cells need nothing it compiles.
func PredictWarm(cells []plan.Cell, prior float64) float64 {
	if len(WarmShapes(cells)) == 0 {
		return 0
	}
	if prior > 0 {
		return prior
	}
	return DefaultWarmSeconds
}

// PicksDir holds, under the kernels folder, the configurations the sweeps
// picked per GPU (<gpu>.json: kernels/common/sweep_picks.py reads them).
const PicksDir = "sweeps/picks"

// OptionSweepPicks is the manifest option that names the picks file the
// run's variants measured with, or says none was there for its GPU.
const OptionSweepPicks = "sweep_picks"

var gpuKeyRe = regexp.MustCompile(`\b([abhlg]\d{2,3})\b`)

// sweepPicksKey is the picks file's key of a device name, as
// kernels/common/sweep_picks.gpu_key makes it: "NVIDIA H200" -> "h200",
// "NVIDIA H100 80GB HBM3" -> "h100"; "" where the name has no model.
func sweepPicksKey(name string) string {
	m := gpuKeyRe.FindStringSubmatch(strings.ToLower(name))
	if m == nil {
		return ""
	}
	return m[1]
}

// recordSweepPicks names in the manifest the picks file of the device
// devName under the kernels folder, or says the variants ran their default
// configurations there.
func (r *Runner) recordSweepPicks(devName string) {
	if r.cfg.KernelsDir == "" {
		return
	}
	key := sweepPicksKey(devName)
	rel := filepath.ToSlash(filepath.Join(filepath.Base(filepath.Clean(r.cfg.KernelsDir)), PicksDir, key+".json"))
	if _, err := os.Stat(filepath.Join(r.cfg.KernelsDir, filepath.FromSlash(PicksDir), key+".json")); key != "" && err == nil {
		r.m.Options[OptionSweepPicks] = rel
		return
	}
	r.m.Options[OptionSweepPicks] = fmt.Sprintf("none for %q: the variants' default configurations", devName)
}
