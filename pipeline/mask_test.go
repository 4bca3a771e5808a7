package pipeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// A cell whose timing pass the manifest marks skipped has no wall time and
// no loop clock in the Result, though the tables hold its timing rows and
// the clock read after its loop; the other cell keeps both.
func TestLoadMasksTimingClocks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "2026-11-22-synthetic-1")
	const shape = "M=512,N=4096,K=7168"
	b := ingest.NewBuilder(mem)
	for _, v := range []string{"unfused", "dual-acc"} {
		for i := 0; i < 10; i++ {
			b.AddTiming(ingest.Timing{Experiment: "swiglu", Variant: v, Shape: shape, File: shape + ".json", Method: "cuda-events", Rep: int32(i), Ms: 0.1 + float64(i)*1e-4})
		}
		b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: "swiglu/" + v + "/" + shape + ".json", Key: "clock.sm_mhz", Value: "1980"})
	}
	tb := b.Finish()
	b.Release()
	err := tb.Write(filepath.Join(dir, rundir.TablesDir), ingest.FormatParquet)
	tb.Release()
	if err != nil {
		t.Fatal(err)
	}
	passes := func(timing string) map[string]rundir.PassStatus {
		return map[string]rundir.PassStatus{rundir.PassCheck: {Status: rundir.StatusOK}, rundir.PassTiming: {Status: timing}}
	}
	m := &rundir.Manifest{Tool: "rooftool", Passes: []string{rundir.PassCheck, rundir.PassTiming}, Cells: []rundir.Cell{
		{Experiment: "swiglu", Variant: "unfused", Shape: shape, Passes: passes(rundir.StatusOK)},
		{Experiment: "swiglu", Variant: "dual-acc", Shape: shape, Passes: passes(rundir.StatusSkipped)},
	}}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	res, err := Load(context.Background(), openRun(t, dir), mem)
	if err != nil {
		t.Fatal(err)
	}
	u, d := cellkey.New("swiglu", "unfused", shape), cellkey.New("swiglu", "dual-acc", shape)
	if res.CellSMClocks[u] != 1980 {
		t.Errorf("unfused loop clock %v, want 1980", res.CellSMClocks[u])
	}
	if v, ok := res.CellSMClocks[d]; ok {
		t.Errorf("dual-acc (timing skipped) has a loop clock: %v", v)
	}
	for _, c := range res.Run.Cells {
		if c.Shape != shape {
			continue
		}
		if got := c.Wall.N; (c.Variant == "unfused") != (got == 10) || (c.Variant == "dual-acc" && got != 0) {
			t.Errorf("%s: %d wall samples", c.Variant, got)
		}
	}
}
