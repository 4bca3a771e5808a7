package launch

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/ncu"
	"github.com/rooftool/rooftool/launch/rangerule"
	"github.com/rooftool/rooftool/launch/runtables"
)

// ncuModes reads the fake ncu's log: the --replay-mode of each profiling
// invocation ("" for the kernel pass).
func ncuModes(t *testing.T, logf string) []string {
	t.Helper()
	data, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var argv []string
		if err := json.Unmarshal([]byte(l), &argv); err != nil {
			t.Fatal(err)
		}
		mode := ""
		if i := slices.Index(argv, "--replay-mode"); i >= 0 {
			mode = argv[i+1]
		}
		out = append(out, mode)
	}
	return out
}

func TestRangeMethods(t *testing.T) {
	ratio := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name     string
		variant  string
		env      map[string]string
		passes   []string
		modes    []string // ncu invocations' replay modes
		method   string
		status   string
		reason   string
		attempts int
		l2       *float64 // coverage's L2 ratio; nil: no coverage
		warn     string   // a warning that must be there ("" : no range warning)
	}{
		{name: "complete range", variant: "good", modes: []string{"", "range"}, method: "range", status: "ok", attempts: 1, l2: ratio(1.03)},
		{name: "partial range, app-range complete", variant: "good", env: map[string]string{"FAKE_RANGE_PARTIAL": "good/n=1"},
			modes: []string{"", "range", "app-range"}, method: "app-range", status: "ok", attempts: 2, l2: ratio(1.02)},
		{name: "range fails, app-range measures", variant: "good", env: map[string]string{"FAKE_RANGE_FAIL": "good/n=1"},
			modes: []string{"", "range", "app-range"}, method: "app-range", status: "ok", attempts: 2, l2: ratio(1.02)},
		{name: "graph variant goes to app-range", variant: "graphy", modes: []string{"", "app-range"}, method: "app-range", status: "ok", attempts: 1, l2: ratio(1.02)},
		{name: "both partial: the better kept, warned", variant: "good",
			env:   map[string]string{"FAKE_RANGE_PARTIAL": "good/n=1", "FAKE_APPRANGE_PARTIAL": "good/n=1"},
			modes: []string{"", "range", "app-range"}, method: "app-range", status: "ok", attempts: 2, l2: ratio(0.5),
			warn: "range pass of fake/good/n=1: no replay method reached 0.90 of the kernel pass: app-range covers time 4.50, l2 bytes 0.50; range covers time 0.35, l2 bytes 0.15; kept app-range"},
		{name: "partial range, app-range fails: range kept, warned", variant: "good",
			env:   map[string]string{"FAKE_RANGE_PARTIAL": "good/n=1", "FAKE_APPRANGE_FAIL": "good/n=1"},
			modes: []string{"", "range", "app-range"}, method: "range", status: "ok", attempts: 2, l2: ratio(0.15),
			warn: "range pass of fake/good/n=1: no replay method reached 0.90 of the kernel pass: range covers time 0.35, l2 bytes 0.15; app-range failed: ncu recorded nothing"},
		{name: "both fail", variant: "good", env: map[string]string{"FAKE_RANGE_FAIL": "good/n=1", "FAKE_APPRANGE_FAIL": "good/n=1"},
			modes: []string{"", "range", "app-range"}, method: "app-range", status: "failed", attempts: 2,
			reason: "range replay: ncu recorded nothing in NVTX range fake/good/n=1/: ==ERROR== Failed to profile range: Unsupported API during capture (cuGraphLaunch) (RecordStatusUnsupportedApi); app-range replay: ncu recorded nothing"},
		{name: "graph variant partial under app-range: warned, no retry", variant: "graphy", env: map[string]string{"FAKE_APPRANGE_PARTIAL": "graphy/n=1"},
			modes: []string{"", "app-range"}, method: "app-range", status: "ok", attempts: 1, l2: ratio(0.5),
			warn: "range pass of fake/graphy/n=1: no replay method reached 0.90 of the kernel pass: app-range covers time 4.50, l2 bytes 0.50; kept app-range"},
		{name: "no kernel pass: nothing to compare", variant: "good", env: map[string]string{"FAKE_RANGE_PARTIAL": "good/n=1"},
			passes: []string{rundir.PassRange}, modes: []string{"range"}, method: "range", status: "ok", attempts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := fakeEnv(t)
			ncuLog := filepath.Join(t.TempDir(), "ncu.jsonl")
			t.Setenv("FAKE_NCU_LOG", ncuLog)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg.Variants = []string{tc.variant}
			cfg.Shapes = []string{"n=1"}
			cfg.Passes = tc.passes
			if cfg.Passes == nil {
				cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
			}
			m, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := ncuModes(t, ncuLog); !slices.Equal(got, tc.modes) {
				t.Errorf("ncu replay modes = %q, want %q", got, tc.modes)
			}
			st := mustPass(t, m, "fake/"+tc.variant+"/n=1", rundir.PassRange, tc.status, tc.reason)
			if st.Method != tc.method || st.Attempts != tc.attempts {
				t.Errorf("method %q, attempts %d; want %q, %d", st.Method, st.Attempts, tc.method, tc.attempts)
			}
			switch {
			case tc.l2 == nil && st.Coverage != nil:
				t.Errorf("coverage = %s, want none", jsonOf(st.Coverage))
			case tc.l2 != nil && (st.Coverage == nil || st.Coverage.L2Bytes == nil || math.Abs(*st.Coverage.L2Bytes-*tc.l2) > 1e-9):
				t.Errorf("coverage = %s, want l2 ratio %g", jsonOf(st.Coverage), *tc.l2)
			}
			if tc.status == rundir.StatusOK && !strings.HasSuffix(st.Files[0], "n=1."+tc.method+".csv") {
				t.Errorf("files = %q", st.Files)
			}
			if wantPasses := map[string]int{"range": 1, "app-range": 2}[tc.method]; tc.status == rundir.StatusOK && (len(st.Kernels) != 1 || st.Kernels[0].Passes != wantPasses) {
				t.Errorf("kernels = %+v, want one range of %d passes", st.Kernels, wantPasses)
			}
			if tc.warn == "" && hasWarning(m, "range pass of") {
				t.Errorf("unexpected range warning: %q", m.Warnings)
			}
			if tc.warn != "" && !hasWarning(m, tc.warn) {
				t.Errorf("warnings = %q, want one containing %q", m.Warnings, tc.warn)
			}
		})
	}
}

// The kernel pass must come before the range pass: a range is checked
// against the kernels of the same cell.
func TestKernelPassBeforeRange(t *testing.T) {
	if slices.Index(rundir.AllPasses, rundir.PassNCU) > slices.Index(rundir.AllPasses, rundir.PassRange) {
		t.Fatalf("AllPasses = %q: ncu after range", rundir.AllPasses)
	}
}

func TestAttributeRangeRows(t *testing.T) {
	rows := func(cells ...string) *ncu.Split {
		s := &ncu.Split{}
		for i, c := range cells {
			s.Rows = append(s.Rows, ncu.Row{ID: i, Name: "range", Cell: c})
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		split *ncu.Split
		cells []string
		ok    []string
		want  []string
		warn  bool
	}{
		{"one cell takes every row", rows("", ""), []string{"v/a"}, []string{"v/a"}, []string{"v/a", "v/a"}, false},
		{"one cell the runner failed", rows(""), []string{"v/a"}, nil, []string{""}, false},
		{"launch order", rows("", ""), []string{"v/a", "v/b"}, []string{"v/a", "v/b"}, []string{"v/a", "v/b"}, true},
		{"count mismatch", rows(""), []string{"v/a", "v/b"}, []string{"v/a", "v/b"}, []string{""}, false},
		{"already attributed", rows("v/b", ""), []string{"v/a", "v/b"}, []string{"v/a", "v/b"}, []string{"v/b", "v/a"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok := map[string]bool{}
			for _, c := range tc.ok {
				ok[c] = true
			}
			w := attributeRangeRows(tc.split, tc.cells, ok)
			var got []string
			for _, r := range tc.split.Rows {
				got = append(got, r.Cell)
			}
			if !slices.Equal(got, tc.want) || (w != "") != tc.warn {
				t.Errorf("cells %q, warning %q; want %q, warning %v", got, w, tc.want, tc.warn)
			}
		})
	}
}

// TestRangeReplays: with --range-replays-for all, three replays of a cell
// (no claim rests on it), each its own ncu process and
// CSV, each checked for coverage; ingest keeps each replay apart, and the
// cell's facts carry every replay's DRAM bytes (the fake's range rows read
// 1,000,000, 1,100,000 and 1,050,000 bytes in turn, written 0: median
// 1,050,000) while its kernels are the kernel pass's two, counted once.
func TestRangeReplays(t *testing.T) {
	cfg, _ := fakeEnv(t)
	ncuLog := filepath.Join(t.TempDir(), "ncu.jsonl")
	t.Setenv("FAKE_NCU_LOG", ncuLog)
	t.Setenv("FAKE_RANGE_DRAM", "1000000,1100000,1050000")
	t.Setenv("FAKE_RANGE_DRAM_COUNTER", filepath.Join(t.TempDir(), "count"))
	cfg.RangeReplays, cfg.RangeReplaysFor = 3, rangerule.ReplaysForAll
	cfg.Variants, cfg.Shapes = []string{"good"}, []string{"n=1"}
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ncuModes(t, ncuLog), []string{"", "range", "range", "range"}; !slices.Equal(got, want) {
		t.Errorf("ncu replay modes = %q, want %q", got, want)
	}
	if got := m.Options[rundir.OptionRangeReplays]; got != "3" {
		t.Errorf("manifest option %s = %q, want 3", rundir.OptionRangeReplays, got)
	}
	st := mustPass(t, m, "fake/good/n=1", rundir.PassRange, rundir.StatusOK, "")
	if st.Attempts != 3 || len(st.Replays) != 3 {
		t.Fatalf("attempts %d, replays %s; want 3 of each", st.Attempts, jsonOf(st.Replays))
	}
	for i, rp := range st.Replays {
		want := []string{"n=1.range.csv", "n=1.range.r2.csv", "n=1.range.r3.csv"}[i]
		if rp.Replay != i+1 || rp.Status != rundir.StatusOK || rp.Method != rundir.MethodRange || len(rp.Files) == 0 || path.Base(rp.Files[0]) != want {
			t.Errorf("replay %d = %s, want replay %d ok by range in %s", i, jsonOf(rp), i+1, want)
			continue
		}
		if _, err := os.Stat(filepath.Join(cfg.RunDir, filepath.FromSlash(rp.Files[0]))); err != nil {
			t.Errorf("replay %d: %v", i+1, err)
		}
		if rp.Coverage == nil || rp.Coverage.L2Bytes == nil {
			t.Errorf("replay %d: coverage %s, want the kernel pass compared", i+1, jsonOf(rp.Coverage))
		}
	}
	if want := "every cell: 3 of --range-replays 3 (--range-replays-for all)"; st.ReplayReason != want {
		t.Errorf("replay reason %q, want %q", st.ReplayReason, want)
	}
	if path.Base(st.Files[0]) != "n=1.range.csv" {
		t.Errorf("files = %q, want the first replay's CSV first", st.Files)
	}
	if _, err := runtables.Ingest(cfg.RunDir, m); err != nil {
		t.Fatal(err)
	}
	tb, err := ingest.ReadDir(filepath.Join(cfg.RunDir, rundir.TablesDir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	kf := analysis.KernelFacts(tb, gpu.Ceilings{}, analysis.Options{})
	found := false
	for _, c := range analysis.CellFacts(tb, kf, nil, gpu.Ceilings{}, analysis.Options{}) {
		if c.Variant != "good" {
			continue
		}
		found = true
		if !slices.Equal(c.DRAMBytesRangeReplays, []float64{1e6, 1.1e6, 1.05e6}) || c.DRAMBytesRange != 1.05e6 {
			t.Errorf("range DRAM replays %v, median %v; want [1e6 1.1e6 1.05e6], 1.05e6", c.DRAMBytesRangeReplays, c.DRAMBytesRange)
		}
		if c.Kernels != 2 {
			t.Errorf("kernels = %d, want the kernel pass's 2 (range rows are not kernels)", c.Kernels)
		}
	}
	if !found {
		t.Error("no cell fact for fake/good/n=1")
	}
}

// TestRangeReplaysForDecisions: with --range-replays-for decisions a cell no
// DRAM claim rests on (the fake experiment has no claims) is replayed once,
// and the manifest says which cells got the replays.
func TestRangeReplaysForDecisions(t *testing.T) {
	cfg, _ := fakeEnv(t)
	ncuLog := filepath.Join(t.TempDir(), "ncu.jsonl")
	t.Setenv("FAKE_NCU_LOG", ncuLog)
	cfg.RangeReplays, cfg.RangeReplaysFor = 3, rangerule.ReplaysForDecisions
	cfg.Variants, cfg.Shapes = []string{"good"}, []string{"n=1"}
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ncuModes(t, ncuLog), []string{"", "range"}; !slices.Equal(got, want) {
		t.Errorf("ncu replay modes = %q, want %q", got, want)
	}
	if got := m.Options[rundir.OptionRangeReplaysFor]; got != rangerule.ReplaysForDecisions {
		t.Errorf("manifest option %s = %q, want %q", rundir.OptionRangeReplaysFor, got, rangerule.ReplaysForDecisions)
	}
	if st := mustPass(t, m, "fake/good/n=1", rundir.PassRange, rundir.StatusOK, ""); len(st.Replays) != 1 || st.ReplayReason != "one replay: no range-decided claim rests on the cell" {
		t.Errorf("replays %s, reason %q; want one, no claim", jsonOf(st.Replays), st.ReplayReason)
	}
}
