package pipeline

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/analysis"
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

// The run-level figures of the timing pass (devices, methods, clock ranges
// per experiment) and the run-wide clocks-differ warning come from the
// passes the manifest keeps. dual-acc's timing rows name another device,
// the cuda-graph method and a 1000 MHz clock; with its timing pass failed
// they count for nothing, with every pass ok they count. With its ncu
// pass failed, that pass's 1000 MHz leaves the clocks-differ warning out.
func TestLoadMasksTimingEnv(t *testing.T) {
	const shape = "M=512,N=4096,K=7168"
	for _, tc := range []struct {
		failed               string // dual-acc's failed pass; "" none
		devices, methods, sm []string
		warnClocks           bool
	}{
		{"", []string{"GPU-A", "GPU-B"}, []string{"cuda-events", "cuda-graph"}, []string{"1000", "1980"}, true},
		{rundir.PassTiming, []string{"GPU-A"}, []string{"cuda-events"}, []string{"1980", "1980"}, false},
		{rundir.PassNCU, []string{"GPU-A", "GPU-B"}, []string{"cuda-events", "cuda-graph"}, []string{"1980", "1980"}, false},
	} {
		t.Run("failed="+tc.failed, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := filepath.Join(t.TempDir(), "2026-11-22-synthetic-1")
			b := ingest.NewBuilder(mem)
			for _, c := range []struct{ variant, device, method, smMHz string }{
				{"unfused", "GPU-A", "cuda-events", "1980"},
				{"dual-acc", "GPU-B", "cuda-graph", "1000"},
			} {
				for i := 0; i < 10; i++ {
					b.AddTiming(ingest.Timing{Experiment: "swiglu", Variant: c.variant, Shape: shape, File: shape + ".json", Device: c.device, Method: c.method, Rep: int32(i), Ms: 0.1 + float64(i)*1e-4})
				}
				// dual-acc's failed ncu pass ran at 1000 MHz (its timing
				// pass at 1980); else its timing pass did (ncu at 1980).
				sm, clock := c.smMHz, 1.98e9
				if c.variant == "dual-acc" && tc.failed == rundir.PassNCU {
					sm, clock = "1980", 1e9
				}
				b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: "swiglu/" + c.variant + "/" + shape + ".json", Key: "clock.sm_mhz", Value: sm})
				id := b.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, File: c.variant + ".ncu.csv", Pass: ingest.PassKernel,
					Experiment: "swiglu", Variant: c.variant, Shape: shape, Name: "k", ShortName: "k", DurationNs: 10000})
				b.AddMetric(ingest.Metric{KernelID: id, Name: "sm__cycles_elapsed.avg.per_second", Value: clock, Valid: true})
			}
			tb := b.Finish()
			b.Release()
			err := tb.Write(filepath.Join(dir, rundir.TablesDir), ingest.FormatParquet)
			tb.Release()
			if err != nil {
				t.Fatal(err)
			}
			passes := func(failed string) map[string]rundir.PassStatus {
				m := map[string]rundir.PassStatus{}
				for _, p := range []string{rundir.PassCheck, rundir.PassTiming, rundir.PassNCU} {
					m[p] = rundir.PassStatus{Status: rundir.StatusOK}
				}
				if failed != "" {
					m[failed] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: "superseded attempt"}
				}
				return m
			}
			m := &rundir.Manifest{Tool: "rooftool", Passes: []string{rundir.PassCheck, rundir.PassTiming, rundir.PassNCU}, Cells: []rundir.Cell{
				{Experiment: "swiglu", Variant: "unfused", Shape: shape, Passes: passes("")},
				{Experiment: "swiglu", Variant: "dual-acc", Shape: shape, Passes: passes(tc.failed)},
			}}
			if err := m.Write(dir); err != nil {
				t.Fatal(err)
			}
			res, err := Load(context.Background(), openRun(t, dir), mem)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.devices, res.TimingDevices["swiglu"]); d != "" {
				t.Errorf("timing devices (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.methods, res.TimingMethods["swiglu"]); d != "" {
				t.Errorf("timing methods (-want +got):\n%s", d)
			}
			var sm []string
			for _, v := range res.TimingClocks["swiglu"]["sm_mhz"] {
				sm = append(sm, strconv.FormatFloat(v, 'f', -1, 64))
			}
			if d := cmp.Diff(tc.sm, sm); d != "" {
				t.Errorf("timing SM clock range (-want +got):\n%s", d)
			}
			warned := false
			for _, w := range res.Run.Warnings {
				warned = warned || w.Code == analysis.WarnClocks
			}
			if warned != tc.warnClocks {
				t.Errorf("run-wide clocks-differ warning %v, want %v (%v)", warned, tc.warnClocks, res.Run.Warnings)
			}
		})
	}
}
