package launch

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/rangerule"
)

// rangeCell is what the range pass must record for one cell.
type rangeCell struct {
	process  string
	method   string
	attempts int
	sharedBy int
	l2       float64 // coverage's L2 ratio
}

// TestRangeProcess runs the range pass of the fake experiment's cells good,
// after (both replayed with range) and graphy (a CUDA-graph variant,
// app-range) at n=1 and n=2. The runner orders them by shape: good/n=1,
// after/n=1, graphy/n=1, good/n=2, after/n=2, graphy/n=2. The fake's kernel
// pass reads 2 kernels x 2,000,000 = 4,000,000 L2 bytes per cell; a complete
// range 4,120,000 (ratio 1.03), a complete app-range 4,080,000 (1.02). In one
// range process only the first range is complete (as ncu 2025.3.1 did on an
// H100) unless FAKE_RANGE_SHARED_OK=1.
func TestRangeProcess(t *testing.T) {
	const (
		g1, a1, y1 = "fake/good/n=1", "fake/after/n=1", "fake/graphy/n=1"
		g2, a2, y2 = "fake/good/n=2", "fake/after/n=2", "fake/graphy/n=2"
	)
	rangeBatch := []string{g1 + "/", a1 + "/", g2 + "/", a2 + "/"}
	graphBatch := []string{y1 + "/", y2 + "/"}
	for _, tc := range []struct {
		name     string
		process  string // Config.RangeProcess
		replays  int    // with rangerule.ReplaysForAll; 0: one round
		env      map[string]string
		modes    []string   // ncu invocations' replay modes, the kernel pass first
		includes [][]string // the --nvtx-include of each range invocation
		option   string     // the manifest option's first word
		launches int        // the manifest's range launches: a shared process counts with the cells it replayed alone
		cells    map[string]rangeCell
		warn     string // a warning that must be there ("": no range-partial warning)
	}{
		{
			name: "per-cell: one process per cell", process: RangeProcessPerCell,
			modes:    []string{"", "range", "range", "app-range", "range", "range", "app-range"},
			includes: [][]string{{g1 + "/"}, {a1 + "/"}, {y1 + "/"}, {g2 + "/"}, {a2 + "/"}, {y2 + "/"}},
			option:   "per-cell",
			launches: 6,
			cells: map[string]rangeCell{
				g1: {"alone", "range", 1, 1, 1.03}, a1: {"alone", "range", 1, 1, 1.03}, g2: {"alone", "range", 1, 1, 1.03}, a2: {"alone", "range", 1, 1, 1.03},
				y1: {"alone", "app-range", 1, 1, 1.02}, y2: {"alone", "app-range", 1, 1, 1.02},
			},
		},
		{
			// The shared range process gives a1, g2 and a2 partial: each
			// is replayed alone, complete there. graphy's two cells share
			// one app-range process.
			name: "per-experiment: partial cells retried alone", process: RangeProcessPerExperiment,
			modes:    []string{"", "range", "range", "range", "range", "app-range"},
			includes: [][]string{rangeBatch, {a1 + "/"}, {g2 + "/"}, {a2 + "/"}, graphBatch},
			option:   "per-experiment",
			launches: 2,
			cells: map[string]rangeCell{
				g1: {"shared", "range", 1, 4, 1.03}, a1: {"retried-alone", "range", 2, 4, 1.03}, g2: {"retried-alone", "range", 2, 4, 1.03}, a2: {"retried-alone", "range", 2, 4, 1.03},
				y1: {"shared", "app-range", 1, 2, 1.02}, y2: {"shared", "app-range", 1, 2, 1.02},
			},
		},
		{
			// Every shared range complete, two rounds: one range and one
			// app-range process per round.
			name: "per-experiment: one process per round and method", process: RangeProcessPerExperiment, replays: 2,
			env:      map[string]string{"FAKE_RANGE_SHARED_OK": "1", "FAKE_RANGE_NVTX": "1"},
			modes:    []string{"", "range", "app-range", "range", "app-range"},
			includes: [][]string{rangeBatch, graphBatch, rangeBatch, graphBatch},
			option:   "per-experiment",
			launches: 4,
			cells: map[string]rangeCell{
				g1: {"shared", "range", 2, 4, 1.03}, a1: {"shared", "range", 2, 4, 1.03}, g2: {"shared", "range", 2, 4, 1.03}, a2: {"shared", "range", 2, 4, 1.03},
				y1: {"shared", "app-range", 2, 2, 1.02}, y2: {"shared", "app-range", 2, 2, 1.02},
			},
		},
		{
			// after/n=2 is partial under range even alone: its app-range
			// retry measures it (3 processes: shared, alone, app-range).
			name: "per-experiment: partial alone too, app-range retry", process: RangeProcessPerExperiment,
			env:      map[string]string{"FAKE_RANGE_SHARED_OK": "1", "FAKE_RANGE_NVTX": "1", "FAKE_RANGE_PARTIAL": "after/n=2"},
			modes:    []string{"", "range", "range", "app-range", "app-range"},
			includes: [][]string{rangeBatch, {a2 + "/"}, {a2 + "/"}, graphBatch},
			option:   "per-experiment",
			launches: 2,
			cells: map[string]rangeCell{
				g1: {"shared", "range", 1, 4, 1.03}, a1: {"shared", "range", 1, 4, 1.03}, g2: {"shared", "range", 1, 4, 1.03}, a2: {"retried-alone", "app-range", 3, 4, 1.02},
				y1: {"shared", "app-range", 1, 2, 1.02}, y2: {"shared", "app-range", 1, 2, 1.02},
			},
		},
		{
			// after/n=2 comes back partial from the shared process (600,000
			// L2 bytes: 0.15), then fails alone under range and app-range:
			// the shared process's partial range stays, its CSV on disk.
			name: "per-experiment: partial, failed alone: the shared range kept", process: RangeProcessPerExperiment,
			env:      map[string]string{"FAKE_RANGE_SHARED_OK": "1", "FAKE_RANGE_NVTX": "1", "FAKE_RANGE_PARTIAL": "after/n=2", "FAKE_RANGE_ALONE_FAIL": "after/n=2", "FAKE_APPRANGE_FAIL": "after/n=2"},
			modes:    []string{"", "range", "range", "app-range", "app-range"},
			includes: [][]string{rangeBatch, {a2 + "/"}, {a2 + "/"}, graphBatch},
			option:   "per-experiment",
			launches: 2,
			cells: map[string]rangeCell{
				g1: {"shared", "range", 1, 4, 1.03}, a1: {"shared", "range", 1, 4, 1.03}, g2: {"shared", "range", 1, 4, 1.03}, a2: {"shared", "range", 3, 4, 0.15},
				y1: {"shared", "app-range", 1, 2, 1.02}, y2: {"shared", "app-range", 1, 2, 1.02},
			},
			// time 700 / 2 x 1000 ns = 0.35; app-range's status carries both methods' reasons
			warn: "range pass of fake/after/n=2: no replay method reached 0.90 of the kernel pass: range covers time 0.35, l2 bytes 0.15; app-range failed: range replay: ncu recorded nothing in NVTX range fake/after/n=2/",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := fakeEnv(t)
			ncuLog := t.TempDir() + "/ncu.jsonl"
			t.Setenv("FAKE_NCU_LOG", ncuLog)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg.Variants, cfg.Shapes = []string{"good", "after", "graphy"}, []string{"n=1", "n=2"}
			cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
			cfg.RangeProcess = tc.process
			if tc.replays > 0 {
				cfg.RangeReplays, cfg.RangeReplaysFor = tc.replays, rangerule.ReplaysForAll
			}
			m, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := ncuModes(t, ncuLog); !slices.Equal(got, tc.modes) {
				t.Errorf("ncu replay modes = %q, want %q", got, tc.modes)
			}
			inc := ncuIncludes(t, ncuLog)
			if jsonOf(inc) != jsonOf(tc.includes) {
				t.Errorf("range processes' --nvtx-include:\n%s\nwant\n%s", jsonOf(inc), jsonOf(tc.includes))
			}
			if opt := m.Options[rundir.OptionRangeProcess]; !strings.HasPrefix(opt, tc.option+":") {
				t.Errorf("manifest option %s = %q, want it to begin %q", rundir.OptionRangeProcess, opt, tc.option+":")
			}
			launches := 0
			for _, l := range m.Launches {
				if l.Pass == rundir.PassRange {
					launches++
				}
			}
			if launches != tc.launches {
				t.Errorf("range launches = %d, want %d", launches, tc.launches)
			}
			for c, want := range tc.cells {
				st := mustPass(t, m, c, rundir.PassRange, rundir.StatusOK, "")
				if st.Process != want.process || st.Method != want.method || st.Attempts != want.attempts || st.SharedBy != want.sharedBy {
					t.Errorf("%s: process %q, method %q, attempts %d, shared by %d; want %q, %q, %d, %d", c, st.Process, st.Method, st.Attempts, st.SharedBy, want.process, want.method, want.attempts, want.sharedBy)
				}
				if st.Coverage == nil || st.Coverage.L2Bytes == nil || math.Abs(*st.Coverage.L2Bytes-want.l2) > 1e-9 {
					t.Errorf("%s: coverage %s, want l2 ratio %g", c, jsonOf(st.Coverage), want.l2)
				}
				if _, err := os.Stat(filepath.Join(cfg.RunDir, filepath.FromSlash(st.Files[0]))); err != nil {
					t.Errorf("%s: its range CSV: %v", c, err)
				}
				for _, rp := range st.Replays {
					if rp.Process != want.process {
						t.Errorf("%s: replay %d process %q, want %q", c, rp.Replay, rp.Process, want.process)
					}
				}
			}
			if tc.warn == "" && hasWarning(m, "no replay method reached") {
				t.Errorf("warnings: %q", m.Warnings)
			}
			if hasWarning(m, "ingest left out") {
				t.Errorf("ingest left a file out: %q", m.Warnings)
			}
			if tc.warn != "" && !hasWarning(m, tc.warn) {
				t.Errorf("warnings = %q, want one containing %q", m.Warnings, tc.warn)
			}
		})
	}
}

func TestRangeProcessBadValue(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.RangeProcess = "per-shape"
	_, err := Run(context.Background(), cfg)
	var ce *plan.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `--range-process "per-shape"`) {
		t.Fatalf("err = %v, want a plan.ConfigError naming --range-process", err)
	}
}

// A --cmd program given --range-process per-cell runs once per cell in the
// range pass: the 4 toy cells, 4 range processes, each cell alone.
func TestCmdRangePerCell(t *testing.T) {
	cfg, runsLog, ncuLog := cmdEnv(t, "", "")
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
	cfg.RangeProcess = RangeProcessPerCell
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantRuns := []any{[]any{"list", nil}, []any{"profile", strings.Join(toyCells, "\n")}}
	for _, c := range toyCells {
		wantRuns = append(wantRuns, []any{"profile", c})
	}
	if runs := readJSONLines(t, runsLog); jsonOf(runs) != jsonOf(wantRuns) {
		t.Errorf("program runs:\n%s\nwant\n%s", jsonOf(runs), jsonOf(wantRuns))
	}
	if got := ncuModes(t, ncuLog); !slices.Equal(got, []string{"", "range", "range", "range", "range"}) {
		t.Errorf("ncu replay modes = %q", got)
	}
	for _, c := range toyCells {
		if st := mustPass(t, m, c, rundir.PassRange, rundir.StatusOK, ""); st.Process != "alone" || st.Attempts != 1 || st.SharedBy != 1 {
			t.Errorf("%s: process %q, attempts %d, shared by %d; want alone, 1, 1", c, st.Process, st.Attempts, st.SharedBy)
		}
	}
	if opt := m.Options[rundir.OptionRangeProcess]; !strings.HasPrefix(opt, "per-cell:") {
		t.Errorf("manifest option %s = %q", rundir.OptionRangeProcess, opt)
	}
}

// TestRangeInterruptedAlone: a run interrupted while a cell that came back
// partial from the shared range process is replayed alone records neither
// that cell nor the batch's cells not yet checked as measured, so that
// --resume measures them again. Before, the cell kept the shared process's
// ok status naming its range CSV, which the replay alone had removed and
// never wrote: a resumed run ingested without it.
func TestRangeInterruptedAlone(t *testing.T) {
	cfg, _ := fakeEnv(t)
	mark := filepath.Join(t.TempDir(), "hang")
	for k, v := range map[string]string{"FAKE_RANGE_SHARED_OK": "1", "FAKE_RANGE_NVTX": "1",
		"FAKE_RANGE_PARTIAL": "after/n=1", "FAKE_RANGE_ALONE_HANG": "after/n=1", "FAKE_HANG_MARK": mark} {
		t.Setenv(k, v)
	}
	cfg.Variants, cfg.Shapes = []string{"good", "after"}, []string{"n=1", "n=2"}
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
	cfg.RangeProcess = RangeProcessPerExperiment
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := os.Stat(mark); err == nil {
				cancel()
				return
			}
		}
	}()
	if _, err := Run(ctx, cfg); err == nil {
		t.Fatal("the run was not interrupted (the fake ncu never hung)")
	}
	m, err := rundir.ReadManifest(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range cfg.Variants {
		for _, s := range cfg.Shapes {
			st, ok := m.Pass("fake", v, s, rundir.PassRange)
			if !ok || st.Status != rundir.StatusOK {
				continue
			}
			if v+"/"+s == "after/n=1" {
				t.Errorf("after/n=1: range recorded ok (%+v) though its replay alone was interrupted", st)
			}
			for _, f := range st.Files {
				if strings.HasSuffix(f, ".ncu-rep") {
					continue
				}
				if _, err := os.Stat(filepath.Join(cfg.RunDir, filepath.FromSlash(f))); err != nil {
					t.Errorf("%s/%s: range ok names %s: %v", v, s, f, err)
				}
			}
		}
	}
}
