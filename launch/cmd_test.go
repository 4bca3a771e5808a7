package launch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
	"github.com/rooftool/rooftool/launch/cmdprog"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/rangerule"
	"github.com/rooftool/rooftool/spec"
)

// fakeProgram is the test program that marks its cells with the helper
// (testdata/cmd/marked.py), with args.
const fakeProgram = "python3 testdata/cmd/marked.py"

// cmdEnv is fakeEnv with cfg.Cmd set to the fake program plus args, 30
// reps, and $FAKE_CMD_LOG and $FAKE_NCU_LOG recording its runs.
func cmdEnv(t *testing.T, args, claims string) (Config, string, string) {
	t.Helper()
	cfg, _ := fakeEnv(t)
	tg, err := cmdprog.NewTarget(strings.TrimSpace(fakeProgram+" "+args), claims)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Cmd = tg
	cfg.Reps = 30
	tmp := t.TempDir()
	runs, ncuLog := filepath.Join(tmp, "runs.jsonl"), filepath.Join(tmp, "ncu.jsonl")
	t.Setenv("FAKE_CMD_LOG", runs)
	t.Setenv("FAKE_NCU_LOG", ncuLog)
	return cfg, runs, ncuLog
}

// The four cells marked.py marks, in the order it marks them.
var toyCells = []string{"toy/unfused/M=64,N=32", "toy/fused/M=64,N=32", "toy/unfused/M=128,N=32", "toy/fused/M=128,N=32"}

func TestCmdAllPasses(t *testing.T) {
	cfg, runsLog, ncuLog := cmdEnv(t, "", "")
	// Every range of the shared range process comes back complete, each
	// row with its NVTX path (TestCmdRangeShared has the partial ones).
	t.Setenv("FAKE_RANGE_SHARED_OK", "1")
	t.Setenv("FAKE_RANGE_NVTX", "1")
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range m.Cells {
		got = append(got, c.Key().String())
	}
	want := slices.Sorted(slices.Values(toyCells)) // the manifest sorts its cells
	if !slices.Equal(got, want) {
		t.Fatalf("cells = %q, want the program's %q", got, want)
	}
	if m.Options[cmdprog.Option] != fakeProgram || !slices.Equal(m.Passes, cmdprog.Passes) {
		t.Errorf("options cmd %q, passes %q", m.Options[cmdprog.Option], m.Passes)
	}
	for _, c := range toyCells {
		if _, ok := mustCellPass(t, m, c, rundir.PassCheck); ok {
			t.Errorf("%s has a check pass", c)
		}
		p := strings.SplitN(c, "/", 3)
		ts := mustPass(t, m, c, rundir.PassTiming, rundir.StatusOK, "")
		if ts.Files[0] != "raw/timing/toy/"+p[1]+"/"+p[2]+".json" {
			t.Errorf("%s timing files %q", c, ts.Files)
		}
		if st := mustPass(t, m, c, rundir.PassNCU, rundir.StatusOK, ""); len(st.Kernels) != 2 {
			t.Errorf("%s ncu kernels = %+v", c, st.Kernels)
		}
		if st := mustPass(t, m, c, rundir.PassRange, rundir.StatusOK, ""); st.Method != rundir.MethodRange {
			t.Errorf("%s range method %q", c, st.Method)
		}
		if st := mustPass(t, m, c, rundir.PassNsys, rundir.StatusOK, ""); len(st.Kernels) != 2 {
			t.Errorf("%s nsys kernels = %+v", c, st.Kernels)
		}
	}

	// One list run, one timing run over all cells, one ncu process, one
	// range process (one replay round), one nsys; each told which cells to mark.
	all := strings.Join(toyCells, "\n")
	wantRuns := [][]any{{"list", nil}, {"time", all}, {"profile", all}, {"profile", all}, {"profile", all}}
	if runs := readJSONLines(t, runsLog); jsonOf(runs) != jsonOf(wantRuns) {
		t.Errorf("program runs:\n%s\nwant\n%s", jsonOf(runs), jsonOf(wantRuns))
	}
	ncu := readJSONLines(t, ncuLog)
	first, _ := ncu[0].([]any)
	argv := jsonOf(first)
	for _, c := range toyCells {
		if !strings.Contains(argv, `"--nvtx-include","`+c+`/"`) {
			t.Errorf("ncu kernel pass lacks --nvtx-include %s/: %s", c, argv)
		}
	}
	if !strings.HasSuffix(argv, `"python3","testdata/cmd/marked.py"]`) {
		t.Errorf("ncu does not run the program: %s", argv)
	}

	// The spec snapshot: variants and shapes as marked, the first variant the baseline.
	e, err := spec.LoadDir(filepath.Join(cfg.RunDir, "specs", "toy"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Baseline() != "unfused" || e.Variant("fused").Role != spec.RoleCandidate || !slices.Equal(e.Shapes, []string{"M=64,N=32", "M=128,N=32"}) || !slices.Equal(e.Vars, []string{"M", "N"}) {
		t.Errorf("spec: baseline %q, shapes %q, vars %q", e.Baseline(), e.Shapes, e.Vars)
	}
	// The helper the program imported is kept with the run.
	helper, err := os.ReadFile(filepath.Join(cfg.RunDir, cmdprog.MarksHelperDir, "rooftool_marks", "__init__.py"))
	orig, _ := kernels.RunnerFS().(interface{ ReadFile(string) ([]byte, error) }).ReadFile("common/marks.py")
	if err != nil || string(helper) != string(orig) {
		t.Errorf("helper: %v (%d bytes, want %d)", err, len(helper), len(orig))
	}

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingest.ReadDir(filepath.Join(cfg.RunDir, rundir.TablesDir), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if n := tb.NumRows(ingest.TableTimings); n != 4*30 {
		t.Errorf("timings rows = %d, want 4 cells x 30 reps", n)
	}
	// 4 cells x (2 ncu kernels + 1 range + 3 nsys kernels, the warm-up included)
	if n := tb.NumRows(ingest.TableKernels); n != 4*(2+1+3) {
		t.Errorf("kernels rows = %d, want %d", n, 4*(2+1+3))
	}
	if hasWarning(m, "ingest left out") || hasWarning(m, "exited with status") {
		t.Errorf("warnings: %q", m.Warnings)
	}
}

func mustCellPass(t *testing.T, m *rundir.Manifest, cell, pass string) (rundir.PassStatus, bool) {
	t.Helper()
	p := strings.SplitN(cell, "/", 3)
	return m.Pass(p[0], p[1], p[2], pass)
}

func readJSONLines(t *testing.T, p string) []any {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, v)
	}
	return out
}

// A program that cannot run, marks nothing or marks badly is refused with
// the range or the command named, before any pass and without a manifest.
func TestCmdBadPrograms(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		config     bool // a plan.ConfigError (exit 2); else a failure (exit 1)
		want       []string
	}{
		{"marks nothing", fakeProgram + " --none", true, []string{`--cmd "` + fakeProgram + ` --none" marked no range`, "raw/marks/run.log"}},
		{"shape not name=integer", fakeProgram + " --shape M=64,bad", true, []string{`range "toy/fused/M=64,bad/"`, `"bad" is not name=value`}},
		{"shape with a blank", fakeProgram + " --shape 'M=64 N=32'", true, []string{"malformed range name", "toy/fused/M=64 N=32/", "white space"}},
		{"variant with a slash", fakeProgram + " --name a/b", true, []string{`range "toy/a/b/M=64,N=32/"`, `variant name "a/b"`}},
		{"a range twice", fakeProgram + " --twice", true, []string{`range "toy/fused/M=64,N=32/" marked twice`}},
		{"exits non-zero", fakeProgram + " --exit-in list", false, []string{"exited with status 5 in its discovery run", "raw/marks/run.log", "marked.py: 4 cells"}},
		{"crashes", fakeProgram + " --crash-in list", false, []string{"exited with status 3", "simulated crash"}},
		{"no such program", "no-such-program-rooftool --x", true, []string{`--cmd "no-such-program-rooftool --x"`, "executable file not found"}},
		{"two dtypes", fakeProgram + " --dtype bf16 --dtype-of-fused fp16", true, []string{`range "toy/fused/M=64,N=32/": dtype "fp16", but an earlier cell of toy was marked "bf16"`}},
		{"unknown dtype", fakeProgram + " --dtype bfloat16", true, []string{`dtype "bfloat16": want one of bf16, fp16, fp8, tf32, fp32, fp64`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, _ := cmdEnv(t, "", "")
			var err error
			if cfg.Cmd, err = cmdprog.NewTarget(tc.line, ""); err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), cfg)
			var ce *plan.ConfigError
			if err == nil || errors.As(err, &ce) != tc.config {
				t.Fatalf("err = %v (%T), want config error %v", err, err, tc.config)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := rundir.ReadManifest(cfg.RunDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a manifest was written: %v", err)
			}
		})
	}
}

// A program that fails in a later pass fails its cells there with the
// reason; one that exits non-zero after writing its records is warned about.
func TestCmdFailsInAPass(t *testing.T) {
	cfg, _, _ := cmdEnv(t, "--crash-in time", "")
	cfg.Passes = []string{rundir.PassTiming}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range toyCells {
		mustPass(t, m, c, rundir.PassTiming, rundir.StatusFailed, "--cmd (timing run): exit status 3: marked.py: simulated crash")
	}

	cfg, _, _ = cmdEnv(t, "--exit-in time", "")
	cfg.Passes = []string{rundir.PassTiming}
	if m, err = Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	mustPass(t, m, toyCells[0], rundir.PassTiming, rundir.StatusOK, "")
	if !hasWarning(m, `timing pass: --cmd "`+fakeProgram+` --exit-in time" exited with status 5 after writing every record (log raw/timing/toy/runner.log)`) {
		t.Errorf("warnings: %q", m.Warnings)
	}
}

func TestCmdClaims(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("claims.yaml", `experiment: toy
claims:
  - {id: fewer, source: "notes.md", line: 3, metric: kernel_count, candidate: unfused, baseline: fused, op: "<=", threshold: 2}
`)
	cfg, _, _ := cmdEnv(t, "", good)
	cfg.Passes = []string{rundir.PassTiming}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	e, err := spec.LoadDir(filepath.Join(cfg.RunDir, "specs", "toy"))
	if err != nil {
		t.Fatal(err)
	}
	// The claim's baseline is the baseline, whatever the program marked first.
	if e.Baseline() != "fused" || e.Variant("unfused").Role != spec.RoleCandidate || len(e.Claims) != 1 || e.Claims[0].ID != "fewer" {
		t.Errorf("spec: baseline %q, claims %+v", e.Baseline(), e.Claims)
	}

	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"unmarked variant", "experiment: toy\nclaims:\n  - {id: c1, source: x, metric: speedup, candidate: nope, op: \">=\", threshold: 1}\n", []string{"claim c1 names variant \"nope\""}},
		{"other experiment", "experiment: other\nclaims: []\n", []string{`experiment "other", but the program marked only toy`}},
		{"unknown field", "experiment: toy\nclams: []\n", []string{"field clams not found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.body)
			cfg, _, _ := cmdEnv(t, "", p)
			_, err := Run(context.Background(), cfg)
			var ce *plan.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a config error", err)
			}
			for _, w := range append(tc.want, p) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A --cmd run resumes with the same command line only; the program's own
// PYTHONPATH= comes after the helper's folder.
func TestCmdResume(t *testing.T) {
	cfg, runsLog, _ := cmdEnv(t, "", "")
	cfg.Passes = []string{rundir.PassTiming}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Resume = true
	var err error
	if cfg.Cmd, err = cmdprog.NewTarget("PYTHONPATH=elsewhere "+fakeProgram, ""); err != nil {
		t.Fatal(err)
	}
	var ce *plan.ConfigError
	if _, err := Run(context.Background(), cfg); !errors.As(err, &ce) || !strings.Contains(err.Error(), "give it another -o") {
		t.Fatalf("resume with another command: %v", err)
	}
	cfg.RunDir += "-2"
	cfg.Resume = false
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("PYTHONPATH= in the command line: %v", err)
	}
	if n := len(readJSONLines(t, runsLog)); n != 4 { // list and time, twice
		t.Errorf("%d runs of the program, want 4", n)
	}
}

// The worked example's claims load against the cells the example marks.
func TestCmdExampleClaims(t *testing.T) {
	cfg, _, _ := cmdEnv(t, "--example", filepath.Join("..", "kernels", "examples", "cmd", "claims.yaml"))
	cfg.Passes = []string{rundir.PassTiming}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	e, err := spec.LoadDir(filepath.Join(cfg.RunDir, "specs", "bias_gelu_cmd"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Baseline() != "unfused" || len(e.Claims) != 4 || len(e.Theory) != 3 {
		t.Errorf("baseline %q, %d claims, %d theories", e.Baseline(), len(e.Claims), len(e.Theory))
	}
}

// A dtype the program gives its marks becomes the experiment's dtype in the
// run's spec snapshot (the report's roofline floor needs it).
func TestCmdDType(t *testing.T) {
	cfg, _, _ := cmdEnv(t, "", "")
	var err error
	if cfg.Cmd, err = cmdprog.NewTarget(fakeProgram+" --dtype bf16", ""); err != nil {
		t.Fatal(err)
	}
	cfg.Passes = []string{rundir.PassTiming}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(cfg.RunDir, rundir.SpecsPath("toy", "spec.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\ndtype: bf16\n") {
		t.Errorf("spec snapshot lacks dtype: bf16:\n%s", data)
	}
}

// ncuIncludes reads the fake ncu's log: the --nvtx-include filters of each
// range-replay invocation.
func ncuIncludes(t *testing.T, logf string) [][]string {
	t.Helper()
	var out [][]string
	for _, l := range readJSONLines(t, logf) {
		argv, _ := l.([]any)
		var inc []string
		rangeMode := false
		for i := 0; i+1 < len(argv); i++ {
			switch argv[i] {
			case "--nvtx-include":
				inc = append(inc, argv[i+1].(string))
			case "--replay-mode":
				rangeMode = true
			}
		}
		if rangeMode {
			out = append(out, inc)
		}
	}
	return out
}

// A --cmd program's replay round is one ncu process over the cells the
// round needs, one --nvtx-include each. With a dram_ratio claim (fused /
// unfused <= 0.7) the M=64 cells read 710,000 / 1,000,000 = 0.71, 1.4% off
// the threshold: replayed in rounds 2 and 3; the M=128 cells read 500,000 /
// 1,000,000 = 0.5, 28.6% off: one replay.
func TestCmdRangeRounds(t *testing.T) {
	claims := filepath.Join(t.TempDir(), "claims.yaml")
	if err := os.WriteFile(claims, []byte(`experiment: toy
claims:
  - {id: d1, source: notes.md, metric: dram_ratio, candidate: fused, baseline: unfused, op: "<=", threshold: 0.7}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, ncuLog := cmdEnv(t, "", claims)
	t.Setenv("FAKE_RANGE_SHARED_OK", "1")
	t.Setenv("FAKE_RANGE_NVTX", "1")
	t.Setenv("FAKE_RANGE_DRAM_CELLS", `{"unfused/M=64,N=32": "1000000", "fused/M=64,N=32": "710000", "unfused/M=128,N=32": "1000000", "fused/M=128,N=32": "500000"}`)
	t.Setenv("FAKE_RANGE_DRAM_COUNTER", filepath.Join(t.TempDir(), "count.json"))
	cfg.RangeReplays = 3
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	near := []string{"toy/unfused/M=64,N=32/", "toy/fused/M=64,N=32/"}
	all := append(slices.Clone(near), "toy/unfused/M=128,N=32/", "toy/fused/M=128,N=32/")
	got := ncuIncludes(t, ncuLog)
	if len(got) != 3 || !sameSet(got[0], all) || !sameSet(got[1], near) || !sameSet(got[2], near) {
		t.Errorf("range processes' --nvtx-include = %q, want all four cells, then the M=64 two twice", got)
	}
	for _, tc := range []struct {
		cell    string
		replays int
		reason  string
	}{
		{"toy/fused/M=64,N=32", 3, "near threshold after 3, the --range-replays most: claim d1 dram_ratio 0.71 vs <= 0.7, 1.4% off, within 5%"},
		{"toy/unfused/M=64,N=32", 3, "near threshold after 3, the --range-replays most: claim d1 dram_ratio 0.71 vs <= 0.7, 1.4% off, within 5%"},
		{"toy/fused/M=128,N=32", 1, "clear of threshold after 1: claim d1 dram_ratio 0.5 vs <= 0.7, 28.6% off, beyond 5%"},
		{"toy/unfused/M=128,N=32", 1, "clear of threshold after 1: claim d1 dram_ratio 0.5 vs <= 0.7, 28.6% off, beyond 5%"},
	} {
		st := mustPass(t, m, tc.cell, rundir.PassRange, rundir.StatusOK, "")
		if len(st.Replays) != tc.replays || st.Attempts != tc.replays || st.ReplayReason != tc.reason {
			t.Errorf("%s: %d replays, %d attempts, reason %q; want %d, %d, %q", tc.cell, len(st.Replays), st.Attempts, st.ReplayReason, tc.replays, tc.replays, tc.reason)
		}
		for i, rp := range st.Replays {
			if rp.Status != rundir.StatusOK || rp.Coverage == nil || !rp.Coverage.Complete(rp.Method) {
				t.Errorf("%s replay %d = %s, want ok and complete", tc.cell, i+1, jsonOf(rp))
			}
		}
	}
	if m.Options[rundir.OptionRangeReplaysFor] != rangerule.ReplaysForDecisions || !strings.HasPrefix(m.Options[rundir.OptionRangeProcess], "per-experiment:") {
		t.Errorf("options: %s %q, %s %q", rundir.OptionRangeReplaysFor, m.Options[rundir.OptionRangeReplaysFor], rundir.OptionRangeProcess, m.Options[rundir.OptionRangeProcess])
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// A later range of the shared process comes back partial (the fake ncu, as
// ncu 2025.3.1 did on an H100): each such cell is replayed alone, in its
// own process, and the complete range stands.
func TestCmdRangeShared(t *testing.T) {
	cfg, runsLog, ncuLog := cmdEnv(t, "", "")
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(toyCells, "\n")
	wantRuns := []any{[]any{"list", nil}, []any{"profile", all}, []any{"profile", all}}
	for _, c := range toyCells[1:] {
		wantRuns = append(wantRuns, []any{"profile", c})
	}
	if runs := readJSONLines(t, runsLog); jsonOf(runs) != jsonOf(wantRuns) {
		t.Errorf("program runs:\n%s\nwant\n%s", jsonOf(runs), jsonOf(wantRuns))
	}
	if got := ncuModes(t, ncuLog); !slices.Equal(got, []string{"", "range", "range", "range", "range"}) {
		t.Errorf("ncu replay modes = %q", got)
	}
	for i, c := range toyCells {
		st := mustPass(t, m, c, rundir.PassRange, rundir.StatusOK, "")
		wantAttempts, wantProcess := 2, "retried-alone" // the shared process, then alone
		if i == 0 {
			wantAttempts, wantProcess = 1, "shared"
		}
		if st.Method != rundir.MethodRange || st.Attempts != wantAttempts || st.Coverage == nil || !st.Coverage.Complete(st.Method) || len(st.Replays) != 1 {
			t.Errorf("%s: method %q, attempts %d (want %d), coverage %s, replays %d", c, st.Method, st.Attempts, wantAttempts, jsonOf(st.Coverage), len(st.Replays))
		}
		if st.Process != wantProcess || st.Replays[0].Process != wantProcess {
			t.Errorf("%s: process %q, replay 1 process %q; want %q", c, st.Process, st.Replays[0].Process, wantProcess)
		}
	}
	if hasWarning(m, "no replay method reached") {
		t.Errorf("warnings: %q", m.Warnings)
	}
}
