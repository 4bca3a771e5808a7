package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/compilecache"
)

// TestRunRecordsTime runs check and timing over two cells with a runner that
// sleeps 0.3 s before its first cell and 0.2 s in each cell: each launch
// ran 2 cells, so a cell's share is half the launch, its own clock at
// least 0.2 s, and the startup at least 0.3 s.
func TestRunRecordsTime(t *testing.T) {
	cfg, _ := fakeEnv(t)
	t.Setenv("FAKE_STARTUP", "0.3")
	t.Setenv("FAKE_CELL_SLEEP", "0.2")
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1", "n=2"}
	cfg.Passes = []string{rundir.PassCheck, rundir.PassTiming}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Launches) != 2 {
		t.Fatalf("launches = %+v, want check and timing", m.Launches)
	}
	for _, l := range m.Launches {
		if l.Experiment != "fake" || l.Cells != 2 {
			t.Errorf("launch %+v: want experiment fake, 2 cells", l)
		}
		// 0.3 s before the first cell, then 2 cells of 0.2 s: at least 0.7 s.
		if l.StartupSeconds < 0.3 || l.StartupSeconds > l.Seconds-0.4 || l.Seconds < 0.7 {
			t.Errorf("launch %s: %.3f s, startup %.3f s; want startup >= 0.3 and the launch >= startup + 0.4", l.Pass, l.Seconds, l.StartupSeconds)
		}
		for _, sh := range []string{"n=1", "n=2"} {
			st, _ := m.Pass("fake", "good", sh, l.Pass)
			if st.SharedBy != 2 || st.CellSeconds < 0.2 || st.CellSeconds > l.Seconds {
				t.Errorf("%s %s: shared_by %d, cell_seconds %.3f; want 2 and 0.2 <= it <= the launch's %.3f", l.Pass, sh, st.SharedBy, st.CellSeconds, l.Seconds)
			}
			// half the launch, to the millisecond the manifest keeps
			if d := st.Seconds - l.Seconds/2; d < -0.001 || d > 0.001 {
				t.Errorf("%s %s: seconds %.3f, want half of %.3f", l.Pass, sh, st.Seconds, l.Seconds)
			}
		}
	}
	if m.IngestSeconds <= 0 {
		t.Errorf("ingest_seconds = %v, want the ingest's wall time", m.IngestSeconds)
	}
}

// TestCompileCacheEnv: every runner process of a run gets the same cache
// folders under RUNDIR/cache, a resumed run the same again, and a run with
// NoCompileCache none of them.
func TestCompileCacheEnv(t *testing.T) {
	cfg, _ := fakeEnv(t)
	envLog := filepath.Join(t.TempDir(), "env.jsonl")
	t.Setenv("FAKE_ENV_LOG", envLog)
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassCheck, rundir.PassTiming, rundir.PassNCU, rundir.PassNsys}
	// A compiled_cache.db in the working directory seeds the run's.
	wd, _ := os.Getwd()
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "compiled_cache.db"), []byte("seed"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.KernelsDir = filepath.Join(wd, cfg.KernelsDir)
	t.Chdir(work)
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(cfg.RunDir, "cache")
	want := []string{filepath.Join(cache, "inductor"), filepath.Join(cache, "triton"), filepath.Join(cache, "cute"),
		filepath.Join(cache, "cutlass", "compiled_cache.db"), "1", "1"}
	rows := readEnvLog(t, envLog)
	if len(rows) != 4 { // check, time, profile under ncu, profile under nsys
		t.Fatalf("%d runner processes logged, want 4: %q", len(rows), rows)
	}
	for _, r := range rows {
		for i, w := range want {
			if r[i+1] != w {
				t.Errorf("%s process: variable %d = %q, want %q", r[0], i, r[i+1], w)
			}
		}
	}
	for _, d := range want[:3] {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Errorf("%s: not made: %v", d, err)
		}
	}
	if b, err := os.ReadFile(want[3]); err != nil || string(b) != "seed" {
		t.Errorf("cutlass database %q, %v: want the working directory's copied", b, err)
	}
	if m.Options[compilecache.Option] != "cache/" || m.Options["compile_cache.TRITON_CACHE_DIR"] != "cache/triton" {
		t.Errorf("options: compile_cache %q, TRITON_CACHE_DIR %q", m.Options[compilecache.Option], m.Options["compile_cache.TRITON_CACHE_DIR"])
	}
	if _, ok := m.Options["env.ROOFTOOL_CUTLASS_CACHE_DB"]; ok {
		t.Errorf("the cache database is recorded as a knob: %q", m.Options)
	}

	// --resume: the same folders; the run's database is kept, not re-seeded.
	os.WriteFile(want[3], []byte("grown"), 0o644)
	os.Remove(envLog)
	cfg.Resume = true
	cfg.Shapes = []string{"n=1", "n=2"}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	rows = readEnvLog(t, envLog)
	if len(rows) == 0 {
		t.Fatal("resume ran no runner process")
	}
	for _, r := range rows {
		if r[1] != want[0] || r[4] != want[3] {
			t.Errorf("resumed %s process: %q, want the run's cache folders", r[0], r)
		}
	}
	if b, _ := os.ReadFile(want[3]); string(b) != "grown" {
		t.Errorf("resume replaced the run's cutlass database: %q", b)
	}

	// NoCompileCache: no cache variables, the option says off.
	os.Remove(envLog)
	cfg.Resume = false
	cfg.NoCompileCache = true
	cfg.RunDir = filepath.Join(t.TempDir(), "off")
	m, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readEnvLog(t, envLog) {
		for i, v := range r[1:5] {
			if v != "" {
				t.Errorf("%s process with the cache off: variable %d = %q", r[0], i, v)
			}
		}
	}
	if m.Options[compilecache.Option] != "off" {
		t.Errorf("compile_cache option %q, want off", m.Options[compilecache.Option])
	}
}

func readEnvLog(t *testing.T, p string) [][]string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row []*string
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		r := make([]string, len(row))
		for i, v := range row {
			if v != nil {
				r[i] = *v
			}
		}
		out = append(out, r)
	}
	return out
}
