package pipeline

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
	"github.com/rooftool/rooftool/testdata"
)

// openRun opens a run directory or fails the test.
func openRun(t *testing.T, dir string) *rundir.Run {
	t.Helper()
	run, err := rundir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// A run held in an fs.FS (an embedded one) is read in place.
func TestReadChecksFS(t *testing.T) {
	fsys := fstest.MapFS{
		"manifest.json": {Data: []byte(`{"tool":"rooftool"}`)},
		"raw/check/swiglu/dual-acc/M=1.check.json": {Data: []byte(`{"ok":true}`)},
	}
	run, err := rundir.OpenFS("r", fsys)
	if err != nil || run.Manifest == nil || run.Manifest.Tool != "rooftool" {
		t.Fatalf("OpenFS = %+v, %v", run, err)
	}
	checks, err := ReadChecks(run)
	if err != nil || len(checks) != 1 || checks[0].Experiment != "swiglu" || checks[0].Variant != "dual-acc" || checks[0].Shape != "M=1" {
		t.Errorf("ReadChecks = %+v, %v; want the path's experiment, variant and shape", checks, err)
	}
}

// TestTimingClocksSharedShapes: swiglu and swiglu_fp8 name their timing files
// by the same shapes. With experiment/variant/<shape>.json (as ingest names
// them) each experiment gets its own clocks; with bare base names (older
// tables) a shared shape is attributed to neither rather than to the wrong one.
func TestTimingClocksSharedShapes(t *testing.T) {
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	const shape = "M=512,N=4096,K=7168"
	timings := []ingest.Timing{{Experiment: "swiglu", Variant: "dual-acc", Shape: shape},
		{Experiment: "swiglu_fp8", Variant: "dual-acc", Shape: shape}}
	meta := func(file, v string) ingest.Meta {
		return ingest.Meta{Source: ingest.SourceTiming, File: file, Key: "clock.sm_mhz", Value: v}
	}
	got := timingClocks([]ingest.Meta{
		meta("swiglu/dual-acc/"+shape+".json", "1980"),
		meta("swiglu_fp8/dual-acc/"+shape+".json", "1470"),
		meta("swiglu_fp8/unfused/"+shape+".json", "1620"),
	}, timings, exps, nil)
	if r := got["swiglu"]["sm_mhz"]; len(r) != 2 || r[0] != 1980 || r[1] != 1980 {
		t.Errorf("swiglu sm_mhz = %v, want [1980 1980]", r)
	}
	if r := got["swiglu_fp8"]["sm_mhz"]; len(r) != 2 || r[0] != 1470 || r[1] != 1620 {
		t.Errorf("swiglu_fp8 sm_mhz = %v, want [1470 1620]", r)
	}
	old := timingClocks([]ingest.Meta{meta(shape+".json", "1980")}, timings, exps, nil)
	if len(old["swiglu"]) != 0 || len(old["swiglu_fp8"]) != 0 {
		t.Errorf("a base name both experiments share was attributed: %v", old)
	}
	only := timingClocks([]ingest.Meta{meta(shape+".json", "1980")}, timings[:1], exps, nil)
	if r := only["swiglu"]["sm_mhz"]; len(r) != 2 || r[0] != 1980 {
		t.Errorf("base name in a run with swiglu alone: %v", only)
	}
}

// TestCellSMClocksCommittedRuns: the per-cell SM clocks of every committed
// run come from its tables, which name each timing file's cell, and equal
// what its timing JSON holds; the same tables as ingested before timing
// meta rows named their cell (File the base name alone) give no per-cell
// clocks, and the JSON is read instead.
func TestCellSMClocksCommittedRuns(t *testing.T) {
	for _, name := range testdata.Runs() {
		t.Run(name, func(t *testing.T) {
			_, fsys, err := testdata.Run(name)
			if err != nil {
				t.Fatal(err)
			}
			run, err := rundir.OpenFS(name, fsys)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := run.Tables(memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			defer tables.Release()
			js, jsDev, err := timingJSONClocks(run)
			if err != nil || len(js) == 0 {
				t.Fatalf("timing JSON clocks: %d, %v", len(js), err)
			}
			fromTables, perCell := analysis.LoopSMClocks(tables)
			if !perCell {
				t.Errorf("tables give no per-cell clocks")
			}
			old := baseNamedTimingMetas(tables)
			defer old.Release()
			if _, oldPerCell := analysis.LoopSMClocks(old); oldPerCell {
				t.Errorf("tables with base-named timing metas give per-cell clocks")
			}
			if oldGot, _, err := cellSMClocks(run, old); err != nil || !cmp.Equal(js, oldGot) {
				t.Errorf("base-named timing metas: clocks differ from the timing JSON (err %v)", err)
			}
			got, gotDev, err := cellSMClocks(run, tables)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(jsDev, gotDev, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("device-loop clocks differ from the timing JSON (-json +got):\n%s", d)
			}
			if d := cmp.Diff(js, got); d != "" {
				t.Errorf("cell SM clocks differ from the timing JSON (-json +got):\n%s", d)
			}
			if perCell && len(fromTables) != len(got) {
				t.Errorf("tables give %d cells, cellSMClocks %d", len(fromTables), len(got))
			}
		})
	}
}

// baseNamedTimingMetas is t's timings and metas with each timing meta row's
// File its base name, as ingest wrote them before naming the cell.
func baseNamedTimingMetas(t *ingest.Tables) *ingest.Tables {
	b := ingest.NewBuilder(memory.DefaultAllocator)
	for _, m := range t.Metas() {
		if m.Source == ingest.SourceTiming {
			m.File = path.Base(m.File)
		}
		b.AddMeta(m)
	}
	for _, r := range t.Timings() {
		b.AddTiming(r)
	}
	return b.Finish()
}

// TestLoadPlainIngestDir: a directory `rooftool ingest -o DIR` wrote from
// an export made outside rooftool profile has no manifest and no kernel or
// timing of any experiment. Load refuses it as bad input (a
// *RunInputError) instead of judging every built-in claim NOT MEASURED; a
// folder without tables is refused the same way.
func TestLoadPlainIngestDir(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tb, err := detect.File("../testdata/realdata/gpu4/report.sqlite", ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	err = tb.Write(dir, ingest.FormatParquet)
	n := len(tb.Kernels())
	tb.Release()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("gpu4/report.sqlite ingested no kernels")
	}
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"plain ingest dir", dir, "no rooftool cells: use stats or roofline for exports made outside rooftool profile"},
		{"no tables", t.TempDir(), "no tables in"},
	} {
		res, err := Load(context.Background(), openRun(t, tc.dir), mem)
		if err == nil {
			t.Errorf("%s: loaded with %d cells; want a RunInputError", tc.name, len(res.Run.Cells))
			continue
		}
		var re *RunInputError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %T %v; want a *RunInputError with %q", tc.name, err, err, tc.want)
		}
	}
}
