package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rooftool/rooftool/metric"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/runtables"
)

// fakeEnv copies the fake tools into a folder whose name has a space (a
// shell line would split it) and returns a Config that uses them.
func fakeEnv(t *testing.T) (Config, string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH: the fake runner and profilers are Python scripts")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "fake tools")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"ncu", "nsys", "nvidia-smi"} {
		data, err := os.ReadFile(filepath.Join("testdata", "bin", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, n), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logf := filepath.Join(tmp, "runner.jsonl")
	t.Setenv("FAKE_LOG", logf)
	t.Setenv("FAKE_NCU_PERM", "")
	t.Setenv("FAKE_NSYS_NOLIB", "")
	for _, k := range []string{"FAKE_CODE", "FAKE_NCU_LOG", "FAKE_RANGE_FAIL", "FAKE_RANGE_PARTIAL", "FAKE_APPRANGE_FAIL", "FAKE_APPRANGE_PARTIAL",
		"FAKE_RANGE_DRAM", "FAKE_RANGE_DRAM_CELLS", "FAKE_RANGE_SHARED_OK", "FAKE_RANGE_NVTX", "FAKE_RANGE_ALONE_FAIL", "FAKE_L2_SIZE", "FAKE_NSYS_COPIES"} {
		t.Setenv(k, "")
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ROOFTOOL_") {
			t.Setenv(k, "") // restored after the test
			os.Unsetenv(k)
		}
	}
	cfg := Config{
		RunDir:     filepath.Join(tmp, "run dir"),
		KernelsDir: filepath.Join("testdata", "kernels"),
		GPU:        "h100",
		NCU:        filepath.Join(bin, "ncu"),
		Nsys:       filepath.Join(bin, "nsys"),
		NsysLibs:   filepath.Join(tmp, "libs"),
		SMI:        filepath.Join(bin, "nvidia-smi"),
		Timeout:    time.Minute,
		// One range replay per cell keeps the process counts the tests
		// pin; TestRangeReplays runs several.
		RangeReplays: 1,
		Version:      "test",
		Command:      []string{"rooftool", "profile", "--gpu", "h100"},
		Now:          func() time.Time { return time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC) },
	}
	return cfg, logf
}

// runnerCalls reads the fake runner's argument vectors.
func runnerCalls(t *testing.T, logf string) [][]string {
	t.Helper()
	f, err := os.Open(logf)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var argv []string
		if err := json.Unmarshal(sc.Bytes(), &argv); err != nil {
			t.Fatal(err)
		}
		out = append(out, argv)
	}
	return out
}

func cellsOf(argv []string) []string {
	var cs []string
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "--cell" {
			cs = append(cs, argv[i+1])
		}
	}
	return cs
}

func mustPass(t *testing.T, m *rundir.Manifest, cell, pass, status, reasonHas string) rundir.PassStatus {
	t.Helper()
	p := strings.SplitN(cell, "/", 3)
	st, ok := m.Pass(p[0], p[1], p[2], pass)
	if !ok {
		t.Fatalf("%s [%s]: no status recorded", cell, pass)
	}
	if st.Status != status {
		t.Fatalf("%s [%s]: status %q (%s), want %q", cell, pass, st.Status, st.Reason, status)
	}
	if !strings.Contains(st.Reason, reasonHas) {
		t.Fatalf("%s [%s]: reason %q, want it to contain %q", cell, pass, st.Reason, reasonHas)
	}
	return st
}

func hasWarning(m *rundir.Manifest, sub string) bool {
	return slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, sub) })
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRunAllPasses(t *testing.T) {
	cfg, logf := fakeEnv(t)
	t.Setenv("ROOFTOOL_MM_IMPL", "tma")
	cfg.Variants = []string{"good", "wrong", "needs"}
	cfg.RangeProcess = RangeProcessPerCell // the files and launches below are those of one process per range
	var lines strings.Builder
	cfg.Progress = NewProgress(&lines, false)
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}

	// The device it really ran on, and the warning about --gpu.
	if m.GPU.Name != "NVIDIA H200" || m.GPU.SMCount != 132 || m.GPU.L2Bytes != 62914560 || m.GPU.MaxMemClockMHz != 3201 {
		t.Errorf("gpu = %+v", m.GPU)
	}
	if !hasWarning(m, "--gpu h100 was asked, but this machine has NVIDIA H200") {
		t.Errorf("no warning about the GPU model: %q", m.Warnings)
	}
	for k, want := range map[string]string{"ncu": "2025.3.1.0", "nsys": "2025.3.1.90", "torch": "2.11.0", "triton": "3.6.0", "driver": "580.65.06", "python": "3.12.0", "rooftool": "test"} {
		if m.Versions[k] != want {
			t.Errorf("versions[%s] = %q, want %q", k, m.Versions[k], want)
		}
	}
	// dfma is not in the fake device's metric list (names as an H200 lists them).
	if !hasWarning(m, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum") {
		t.Errorf("no warning about the missing dfma metric: %q", m.Warnings)
	}
	if ms := m.Options["ncu.metrics"]; !strings.Contains(ms, "sm__ops_path_tensor_src_fp8.sum") || !strings.Contains(ms, "sm__ops_path_tensor_src_fp16.sum") || strings.Contains(ms, "dfma") {
		t.Errorf("ncu.metrics = %s", ms)
	}

	for _, sh := range []string{"n=1", "n=2"} {
		c := "fake/good/" + sh
		mustPass(t, m, c, rundir.PassCheck, rundir.StatusOK, "")
		mustPass(t, m, c, rundir.PassTiming, rundir.StatusOK, "")
		st := mustPass(t, m, c, rundir.PassNCU, rundir.StatusOK, "")
		if len(st.Kernels) != 2 || st.Kernels[0].Passes < 3 || st.Kernels[0].Name != "void fake_kernel_a<float>(float*, int)" {
			t.Errorf("%s ncu kernels = %+v", c, st.Kernels)
		}
		if st.Files[0] != "raw/ncu/fake/good/"+sh+".csv" {
			t.Errorf("%s ncu files = %q", c, st.Files)
		}
		data, err := os.ReadFile(filepath.Join(cfg.RunDir, st.Files[0]))
		if err != nil {
			t.Fatal(err)
		}
		// header + units row + the cell's two kernels, as ncu wrote them
		if n := strings.Count(string(data), "\n"); n != 4 || !strings.Contains(string(data), `"fake_kernel_b(float*)"`) {
			t.Errorf("%s: split CSV has %d lines:\n%s", st.Files[0], n, data)
		}
		if st.Method != rundir.MethodKernel {
			t.Errorf("%s ncu method = %q", c, st.Method)
		}
		// One ncu process per cell: both ranges complete (the fake, like
		// ncu, returns a later range of a process partial).
		rs := mustPass(t, m, c, rundir.PassRange, rundir.StatusOK, "")
		if len(rs.Kernels) != 1 || rs.Kernels[0].Name != "range" {
			t.Errorf("%s range kernels = %+v", c, rs.Kernels)
		}
		if rs.Method != rundir.MethodRange || rs.Files[0] != "raw/ncu-range/fake/good/"+sh+".range.csv" || rs.Attempts != 1 {
			t.Errorf("%s range: method %q, files %q, attempts %d", c, rs.Method, rs.Files, rs.Attempts)
		}
		wantCov := rundir.Coverage{KernelTimeNs: 2000, RangeTimeNs: 2400, KernelL2Bytes: 4e6, RangeL2Bytes: 4.12e6}
		if cv := rs.Coverage; cv == nil || cv.Time == nil || *cv.Time != 1.2 || cv.L2Bytes == nil || *cv.L2Bytes != 1.03 ||
			cv.KernelTimeNs != wantCov.KernelTimeNs || cv.RangeTimeNs != wantCov.RangeTimeNs || cv.KernelL2Bytes != wantCov.KernelL2Bytes || cv.RangeL2Bytes != wantCov.RangeL2Bytes {
			t.Errorf("%s range coverage = %s", c, jsonOf(rs.Coverage))
		}
		ns := mustPass(t, m, c, rundir.PassNsys, rundir.StatusOK, "")
		if !strings.HasSuffix(ns.Files[0], ".sqlite") {
			t.Errorf("nsys files = %q", ns.Files)
		}
		// The kernels nsys traced in the cell's range: the warm-up is outside.
		if len(ns.Kernels) != 2 || ns.Kernels[0].Name != "void fake_kernel_a<float>(float*, int)" || ns.Kernels[1].Name != "fake_kernel_b(float*)" {
			t.Errorf("%s nsys kernels = %+v", c, ns.Kernels)
		}
		// Every pass records the code the runner reported.
		for _, p := range []string{rundir.PassCheck, rundir.PassTiming, rundir.PassNCU, rundir.PassRange, rundir.PassNsys} {
			st, _ := m.Pass("fake", "good", sh, p)
			if want := `{"knobs":{"ROOFTOOL_MM_IMPL":"tma"},"picks":{"num_warps":"4","tile":"128x64"},"launch":"plan"}`; jsonOf(st.Code) != want {
				t.Errorf("%s [%s] code = %s, want %s", c, p, jsonOf(st.Code), want)
			}
		}
	}
	// The runner's ROOFTOOL_* environment, and the snapshot of the spec.
	if m.Options["env.ROOFTOOL_MM_IMPL"] != "tma" || !strings.HasSuffix(m.Options["env.ROOFTOOL_PICKS"], PicksFile) {
		t.Errorf("options = %v", m.Options)
	}
	snap, err := os.ReadFile(filepath.Join(cfg.RunDir, filepath.FromSlash(rundir.SpecsPath("fake", "spec.yaml"))))
	if orig, _ := os.ReadFile(filepath.Join(cfg.KernelsDir, "fake", "spec.yaml")); err != nil || string(snap) != string(orig) {
		t.Errorf("specs/fake/spec.yaml: %v, %d bytes, want the checkout's %d", err, len(snap), len(orig))
	}
	if _, err := os.Stat(filepath.Join(cfg.RunDir, "specs", "fake", "claims.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("claims.yaml snapshot of an experiment without claims: %v", err)
	}
	// A sweep shape runs under check and timing only.
	mustPass(t, m, "fake/good/n=3", rundir.PassTiming, rundir.StatusOK, "")
	if _, ok := m.Pass("fake", "good", "n=3", rundir.PassNCU); ok {
		t.Errorf("sweep shape n=3 was profiled under ncu")
	}
	// A failing check stops its cell; a missing package skips it.
	mustPass(t, m, "fake/wrong/n=1", rundir.PassCheck, rundir.StatusFailed, "max rel err")
	mustPass(t, m, "fake/wrong/n=1", rundir.PassTiming, rundir.StatusSkipped, "check failed")
	mustPass(t, m, "fake/wrong/n=1", rundir.PassNsys, rundir.StatusSkipped, "check failed")
	mustPass(t, m, "fake/needs/n=2", rundir.PassCheck, rundir.StatusSkipped, "requires nothere")
	mustPass(t, m, "fake/needs/n=2", rundir.PassNCU, rundir.StatusSkipped, "requires nothere")

	// One runner process per pass; argument vectors arrive intact.
	calls := runnerCalls(t, logf)
	modes := map[string]int{}
	for _, argv := range calls {
		modes[argv[0]]++
	}
	// profile: ncu once, range once per cell, nsys once
	if modes["env"] != 1 || modes["check"] != 1 || modes["time"] != 1 || modes["profile"] != 4 {
		t.Errorf("runner calls per mode = %v", modes)
	}
	for _, argv := range calls {
		if argv[0] == "check" {
			// Grouped by shape: a shape's variants share its reference.
			want := []string{"good/n=1", "wrong/n=1", "needs/n=1", "good/n=2", "wrong/n=2", "needs/n=2", "good/n=3", "wrong/n=3", "needs/n=3"}
			if got := cellsOf(argv); !slices.Equal(got, want) {
				t.Errorf("check cells = %q, want %q", got, want)
			}
		}
		if argv[0] == "profile" {
			want := []string{"good/n=1", "good/n=2"}
			if strings.Contains(strings.Join(argv, " "), "ncu-range") {
				want = want[:1]
				if slices.Contains(cellsOf(argv), "good/n=2") {
					want = []string{"good/n=2"}
				}
			}
			if got := cellsOf(argv); !slices.Equal(got, want) {
				t.Errorf("profile cells = %q, want %q", got, want)
			}
		}
	}

	// Tables: every export is read.
	if hasWarning(m, "ingest left out") {
		t.Errorf("ingest left an export out: %q", m.Warnings)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingest.ReadDir(filepath.Join(cfg.RunDir, rundir.TablesDir), mem)
	if err != nil {
		t.Fatal(err)
	}
	if n := tb.NumRows(ingest.TableTimings); n != 3*30 {
		t.Errorf("timings rows = %d, want %d", n, 3*30)
	}
	// 2 cells x (2 ncu kernels + 1 range + 3 nsys kernels, the warm-ups included)
	if n := tb.NumRows(ingest.TableKernels); n != 2*(2+1+3) {
		t.Errorf("kernels rows = %d, want %d", n, 2*(2+1+3))
	}
	tb.Release()

	// The manifest on disk is the one returned, finished.
	disk, err := rundir.ReadManifest(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if disk.Finished.IsZero() || len(disk.Cells) != 9 {
		t.Errorf("manifest on disk: finished %v, %d cells", disk.Finished, len(disk.Cells))
	}
	if !strings.Contains(lines.String(), "fake ncu: 2 ok") {
		t.Errorf("progress lines:\n%s", lines.String())
	}
	// No temp file is left behind.
	filepath.WalkDir(cfg.RunDir, func(p string, d os.DirEntry, err error) error {
		if strings.Contains(filepath.Base(p), ".tmp") {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

func TestRunCrashAndTimeout(t *testing.T) {
	cfg, logf := fakeEnv(t)
	cfg.Variants = []string{"good", "crash", "hang", "after"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassCheck, rundir.PassTiming}
	cfg.Timeout = 2 * time.Second
	start := time.Now()
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("took %s: the hanging cell was not cut at its timeout", el)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassTiming, rundir.StatusOK, "")
	mustPass(t, m, "fake/crash/n=1", rundir.PassTiming, rundir.StatusFailed, "exit status 139")
	mustPass(t, m, "fake/crash/n=1", rundir.PassTiming, rundir.StatusFailed, "Segmentation fault (simulated)")
	mustPass(t, m, "fake/hang/n=1", rundir.PassTiming, rundir.StatusFailed, "timeout")
	mustPass(t, m, "fake/after/n=1", rundir.PassTiming, rundir.StatusOK, "")
	var times [][]string
	for _, argv := range runnerCalls(t, logf) {
		if argv[0] == "time" {
			times = append(times, cellsOf(argv))
		}
	}
	want := [][]string{{"good/n=1", "crash/n=1", "hang/n=1", "after/n=1"}, {"hang/n=1", "after/n=1"}, {"after/n=1"}}
	if len(times) != len(want) {
		t.Fatalf("time calls = %q, want %q", times, want)
	}
	for i := range want {
		if !slices.Equal(times[i], want[i]) {
			t.Errorf("time call %d cells = %q, want %q", i, times[i], want[i])
		}
	}
}

func TestRunCancelAndResume(t *testing.T) {
	cfg, logf := fakeEnv(t)
	cfg.Variants = []string{"good", "hang"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassCheck, rundir.PassTiming, rundir.PassNCU}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel while the timing runner sits in the hanging cell: once the
	// good cell's timing file is there.
	cfg.Progress = &cancelAt{pass: "fake timing", wait: filepath.Join(cfg.RunDir, "raw", "timing", "fake", "good", "n=1.json"), cancel: cancel}
	_, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	m, err := rundir.ReadManifest(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassCheck, rundir.StatusOK, "")
	mustPass(t, m, "fake/hang/n=1", rundir.PassCheck, rundir.StatusOK, "")
	mustPass(t, m, "fake/good/n=1", rundir.PassTiming, rundir.StatusOK, "") // finished before the cancel
	if st, ok := m.Pass("fake", "hang", "n=1", rundir.PassTiming); ok {
		t.Errorf("interrupted cell has a timing status: %+v", st)
	}
	if !m.Finished.IsZero() {
		t.Errorf("interrupted run marked finished")
	}

	// Without --resume the directory is refused.
	cfg.Progress = nil
	if _, err := Run(context.Background(), cfg); !errors.As(err, new(*plan.ConfigError)) {
		t.Fatalf("rerun without resume: err = %v, want a plan.ConfigError", err)
	}

	// --resume runs only what is not finished.
	os.Remove(logf)
	cfg.Resume = true
	cfg.Variants = []string{"good"}
	m, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, argv := range runnerCalls(t, logf) {
		got = append(got, argv[0]+" "+strings.Join(cellsOf(argv), ","))
	}
	if want := []string{"env ", "profile good/n=1"}; !slices.Equal(got, want) {
		t.Errorf("resume ran %q, want %q", got, want)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassNCU, rundir.StatusOK, "")
	if m.Finished.IsZero() {
		t.Errorf("resumed run not finished")
	}
}

// cancelAt cancels the run once the file wait exists, after a pass whose
// description starts with pass has begun.
type cancelAt struct {
	pass   string
	wait   string
	cancel context.CancelFunc
	once   sync.Once
}

func (c *cancelAt) Start(int) {}
func (c *cancelAt) Begin(what string) {
	if strings.HasPrefix(what, c.pass) {
		c.once.Do(func() {
			go func() {
				for i := 0; i < 2000; i++ {
					if _, err := os.Stat(c.wait); err == nil {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond) // the runner moves on to the hanging cell
				c.cancel()
			}()
		})
	}
}
func (c *cancelAt) Done(int, string) {}
func (c *cancelAt) Finish()          {}

func TestRunProfilerFaults(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange, rundir.PassNsys}
	t.Setenv("FAKE_NCU_PERM", "1")
	t.Setenv("FAKE_NSYS_NOLIB", "1")
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassNCU, rundir.StatusFailed, "ERR_NVGPUCTRPERM")
	mustPass(t, m, "fake/good/n=1", rundir.PassRange, rundir.StatusFailed, "ERR_NVGPUCTRPERM")
	mustPass(t, m, "fake/good/n=1", rundir.PassNsys, rundir.StatusFailed, "libdw.so.1")
	if !hasWarning(m, "no raw export to ingest") {
		t.Errorf("warnings = %q", m.Warnings)
	}
}

func TestRunDropsRejectedMetric(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassNCU}
	old := metric.Kernel
	metric.Kernel = append(slices.Clip(old), "bogus__thing.sum")
	defer func() { metric.Kernel = old }()
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassNCU, rundir.StatusOK, "")
	if !hasWarning(m, "ncu rejected metric(s) bogus__thing.sum") {
		t.Errorf("warnings = %q", m.Warnings)
	}
}

// TestRunNoTools: a run whose passes need tools this machine lacks stops
// before any cell and before making the run directory, naming each.
func TestRunNoTools(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassNCU, rundir.PassNsys}
	cfg.NCU = filepath.Join(t.TempDir(), "no-ncu")
	cfg.Nsys = filepath.Join(t.TempDir(), "no-nsys")
	_, err := Run(context.Background(), cfg)
	var pe *PreflightError
	if !errors.As(err, &pe) || len(pe.Missing) != 2 || !strings.Contains(pe.Missing[0], "no-ncu") || !strings.Contains(pe.Missing[1], "no-nsys") {
		t.Fatalf("err = %v; want a PreflightError naming no-ncu and no-nsys", err)
	}
	if !strings.Contains(err.Error(), "rooftool doctor") {
		t.Errorf("err = %v; want it to point at rooftool doctor", err)
	}
	if _, err := os.Stat(cfg.RunDir); !os.IsNotExist(err) {
		t.Errorf("run directory %s: %v; want none made before the tools are found", cfg.RunDir, err)
	}
}

func TestRunBadSelection(t *testing.T) {
	cfg, _ := fakeEnv(t)
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"experiment", func(c *Config) { c.Experiments = []string{"nope"} }, `--experiment "nope"`},
		{"variant", func(c *Config) { c.Variants = []string{"nope"} }, `--variant "nope"`},
		{"shape", func(c *Config) { c.Shapes = []string{"n=9"} }, `--shape "n=9"`},
		{"pass", func(c *Config) { c.Passes = []string{"bogus"} }, `unknown pass "bogus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			tc.mod(&c)
			_, err := Run(context.Background(), c)
			var ce *plan.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a plan.ConfigError containing %q", err, tc.want)
			}
		})
	}
}

func TestResumeOnAnotherDevice(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassCheck}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	smi := filepath.Join(t.TempDir(), "nvidia-smi")
	if err := os.WriteFile(smi, []byte("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, GPU-h100, 580.65.06, 1980 MHz, 2619 MHz, 1980 MHz, 2619 MHz, 81559 MiB'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.SMI = smi
	cfg.Resume = true
	cfg.Passes = []string{rundir.PassTiming}
	cfg.Command = []string{"rooftool", "profile", "--resume"}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.GPU.Name != "NVIDIA H200" {
		t.Errorf("resumed run's GPU = %q, want the one it began on", m.GPU.Name)
	}
	if len(m.Resumed) != 1 || m.Resumed[0].GPU != "NVIDIA H100 80GB HBM3" || !slices.Equal(m.Resumed[0].Command, cfg.Command) {
		t.Errorf("resumed = %+v", m.Resumed)
	}
	if !slices.Equal(m.Command, []string{"rooftool", "profile", "--gpu", "h100"}) {
		t.Errorf("command = %q, want the first invocation's", m.Command)
	}
	if !slices.Equal(m.Passes, []string{rundir.PassCheck, rundir.PassTiming}) {
		t.Errorf("passes = %q", m.Passes)
	}
	if !hasWarning(m, "resumed on NVIDIA H100 80GB HBM3; the run began on NVIDIA H200") {
		t.Errorf("warnings = %q", m.Warnings)
	}
	mustPass(t, m, "fake/good/n=1", rundir.PassCheck, rundir.StatusOK, "")
	mustPass(t, m, "fake/good/n=1", rundir.PassTiming, rundir.StatusOK, "")
	// The unit each pass ran on: the timing pass ran on the resumed one.
	if m.GPU.UUID == "GPU-h100" || m.Resumed[0].GPUUUID != "GPU-h100" {
		t.Errorf("run GPU %q, resumed on %q: want the first unit and GPU-h100", m.GPU.UUID, m.Resumed[0].GPUUUID)
	}
	chk, _ := m.Pass("fake", "good", "n=1", rundir.PassCheck)
	tim, _ := m.Pass("fake", "good", "n=1", rundir.PassTiming)
	if chk.GPUUUID != "" || tim.GPUUUID != "GPU-h100" {
		t.Errorf("pass units: check %q, timing %q; want \"\" (the run's) and GPU-h100", chk.GPUUUID, tim.GPUUUID)
	}
}

func TestReingest(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants = []string{"good"}
	cfg.Passes = []string{rundir.PassTiming}
	cfg.NoIngest = true
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.RunDir, rundir.TablesDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--no-ingest wrote tables (stat: %v)", err)
	}
	m, warns, err := runtables.Reingest(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 || m.Options["tables"] != rundir.TablesDir {
		t.Errorf("warnings %q, tables option %q", warns, m.Options["tables"])
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingest.ReadDir(filepath.Join(cfg.RunDir, rundir.TablesDir), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if n := tb.NumRows(ingest.TableTimings); n != 3*30 {
		t.Errorf("timings rows = %d, want %d", n, 3*30)
	}
}

func TestQdstrmImporters(t *testing.T) {
	root := t.TempDir()
	nsys := filepath.Join(root, "2025.3.1", "host", "target-linux-x64", "nsys")
	imp := filepath.Join(root, "2025.3.1", "host", "linux-desktop-glibc_2_11_3-x64", "QdstrmImporter")
	for _, p := range []string{nsys, imp} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := QdstrmImporters(nsys); !slices.Equal(got, []string{imp}) {
		t.Errorf("importers = %q, want %q", got, []string{imp})
	}
}

// A run records the commit it ran, and says so when the tree's tracked files differ from it.
func TestGitCommitDirty(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	f := filepath.Join(dir, "run.py")
	if err := os.WriteFile(f, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "run.py")
	git("commit", "-q", "-m", "x")
	c := gitCommit(context.Background(), dir)
	if len(c) != 40 || strings.HasSuffix(c, "-dirty") {
		t.Fatalf("clean tree: %q", c)
	}
	if err := os.WriteFile(f, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := gitCommit(context.Background(), dir); d != c+"-dirty" {
		t.Errorf("edited tree: %q, want %q", d, c+"-dirty")
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("checkout", "-q", "run.py")
	if d := gitCommit(context.Background(), dir); d != c {
		t.Errorf("untracked file only: %q, want %q", d, c)
	}
}
