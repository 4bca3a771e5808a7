package launch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/compilecache"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

// TestWarmShapes: the warm stage compiles for gated_ssm's cutlass-evt cells
// only, each shape once, in plan order.
func TestWarmShapes(t *testing.T) {
	g, o := &spec.Experiment{Name: "gated_ssm"}, &spec.Experiment{Name: "swiglu"}
	cells := []plan.Cell{
		{Exp: g, Variant: "eager", Shape: "s1"}, {Exp: g, Variant: "cutlass-evt", Shape: "s2"},
		{Exp: g, Variant: "cutlass-evt", Shape: "s1"}, {Exp: o, Variant: "cutlass-evt", Shape: "s3"},
		{Exp: g, Variant: "cutlass-evt", Shape: "s2"},
	}
	if got := strings.Join(WarmShapes(cells), " "); got != "s2 s1" {
		t.Errorf("WarmShapes = %q, want \"s2 s1\"", got)
	}
	// Predicted: 70 s by default, an earlier run's where it recorded one, 0 with nothing to compile.
	if PredictWarm(cells, 0) != 70 || PredictWarm(cells, 42.5) != 42.5 || PredictWarm(cells[:1], 0) != 0 {
		t.Errorf("PredictWarm: %v %v %v, want 70 42.5 0", PredictWarm(cells, 0), PredictWarm(cells, 42.5), PredictWarm(cells[:1], 0))
	}
}

// TestRunWarm runs a stand-in cutlass_warm.py that records its arguments
// and prints the stage's JSON line: RunWarm gives it the run's database and
// every shape, and records what it printed.
func TestRunWarm(t *testing.T) {
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("no /usr/bin/env")
	}
	kern := t.TempDir()
	args := filepath.Join(t.TempDir(), "args")
	script := "import json, sys\nopen(sys.argv[1 + sys.argv.index('--args')] if '--args' in sys.argv else " + quotePy(args) + ", 'w').write(' '.join(sys.argv[1:]))\n" +
		"print('compiling')\nprint(json.dumps({'warm': {'kernels': 4, 'compiled': 3, 'failed': [], 'processes': 4}}))\n"
	os.MkdirAll(filepath.Join(kern, "sweeps"), 0o755)
	if err := os.WriteFile(filepath.Join(kern, "sweeps", "cutlass_warm.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	w := RunWarm(context.Background(), WarmConfig{Python: "python3", KernelsDir: kern, CacheRoot: root, Shapes: []string{"B=1", "B=2"}})
	if w == nil || w.Kernels != 4 || w.Compiled != 3 || w.Processes != 4 || w.Skipped != "" || len(w.Failed) != 0 || w.Seconds <= 0 {
		t.Fatalf("warm = %+v, want 4 kernels, 3 compiled, 4 processes, its seconds", w)
	}
	got, _ := os.ReadFile(args)
	want := "--db " + filepath.Join(root, "cutlass", "compiled_cache.db") + " --shape B=1 --shape B=2"
	if string(got) != want {
		t.Errorf("args %q, want %q", got, want)
	}
	// A script whose last line is not the stage's JSON: recorded as skipped, naming it.
	os.WriteFile(filepath.Join(kern, "sweeps", "cutlass_warm.py"), []byte("print('done')\n"), 0o644)
	w = RunWarm(context.Background(), WarmConfig{Python: "python3", KernelsDir: kern, CacheRoot: root, Shapes: []string{"B=1"}})
	if w == nil || !strings.Contains(w.Skipped, `"done"`) {
		t.Errorf("warm = %+v, want skipped naming the line", w)
	}
	// No script: skipped, naming it; no shapes: no stage at all.
	w = RunWarm(context.Background(), WarmConfig{Python: "python3", KernelsDir: t.TempDir(), CacheRoot: root, Shapes: []string{"B=1"}})
	if w == nil || !strings.Contains(w.Skipped, WarmScript) {
		t.Errorf("warm without its script = %+v", w)
	}
	if RunWarm(context.Background(), WarmConfig{KernelsDir: kern}) != nil {
		t.Error("a warm stage ran with no shape to compile")
	}
}

func quotePy(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }

// TestSecondRunCompilesNothing: the fake runner "compiles" one kernel per
// cell into the Triton cache where the cache lacks it. A first run's check
// launch over 2 cells adds 2 entries and its timing launch none; a second
// run seeded with the first's caches (--compile-cache) adds none in either.
func TestSecondRunCompilesNothing(t *testing.T) {
	cfg, _ := fakeEnv(t)
	t.Setenv("FAKE_CACHE_WRITE", "1")
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1", "n=2"}
	cfg.Passes = []string{rundir.PassCheck, rundir.PassTiming}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	added := func(m *rundir.Manifest) []map[string]int {
		var out []map[string]int
		for _, l := range m.Launches {
			out = append(out, l.CacheAdded)
		}
		return out
	}
	if a := added(m); len(a) != 2 || a[0]["triton"] != 2 || len(a[0]) != 1 || a[1] != nil {
		t.Errorf("first run: cache added per launch %v, want check triton 2, timing nothing", a)
	}
	first := cfg.RunDir
	cfg.RunDir = filepath.Join(t.TempDir(), "second")
	cfg.CompileCache = first
	m, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a := added(m); len(a) != 2 || a[0] != nil || a[1] != nil {
		t.Errorf("second run: cache added per launch %v, want nothing", a)
	}
	if m.Options["compile_cache.seeded_from"] != first {
		t.Errorf("seeded_from option %q, want %q", m.Options["compile_cache.seeded_from"], first)
	}
	// A shared cache root outside the run directory (a --gpus run's shards).
	shared := filepath.Join(t.TempDir(), "run.cache")
	cfg.RunDir = filepath.Join(t.TempDir(), "third")
	cfg.CompileCache = ""
	cfg.CacheRoot = shared
	if _, err = Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if n := compilecache.Counts(shared)["triton"]; n != 2 {
		t.Errorf("shared cache holds %d Triton entries, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(cfg.RunDir, compilecache.Dir)); err == nil {
		t.Error("the run made its own cache folder beside the shared one")
	}
}

// TestSweepPicksKey: the Go side names a device's picks file as
// kernels/common/sweep_picks.gpu_key does (kernels/tests/test_sweep_picks.py).
func TestSweepPicksKey(t *testing.T) {
	for name, want := range map[string]string{"NVIDIA H200": "h200", "NVIDIA H100 80GB HBM3": "h100", "NVIDIA H100 PCIe": "h100", "Some GPU": ""} {
		if got := sweepPicksKey(name); got != want {
			t.Errorf("sweepPicksKey(%q) = %q, want %q", name, got, want)
		}
	}
}
