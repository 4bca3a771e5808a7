package analysis

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// TestMaskedPasses: the tables of buildFixture hold every pass of both
// cells; a manifest that marks a pass of dual-acc failed (or skipped)
// leaves no fact of dual-acc drawn from that pass's rows, and unfused as it
// is. The facts that remain are those of a cell without that pass.
func TestMaskedPasses(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := buildFixture(t, mem)
	defer tb.Release()
	exps := []*spec.Experiment{testExperiment()}
	analyse := func(status map[string]string) *Run {
		t.Helper()
		ok := rundir.PassStatus{Status: rundir.StatusOK}
		passes := func() map[string]rundir.PassStatus {
			m := map[string]rundir.PassStatus{}
			for _, p := range rundir.AllPasses {
				m[p] = ok
			}
			return m
		}
		d := passes()
		for p, st := range status {
			d[p] = rundir.PassStatus{Status: st, Reason: "test"}
		}
		man := &rundir.Manifest{Cells: []rundir.Cell{
			{Experiment: expName, Variant: "unfused", Shape: shapeA, Passes: passes()},
			{Experiment: expName, Variant: "dual-acc", Shape: shapeA, Passes: d},
		}}
		run, err := Analyze(tb, exps, Options{Manifest: man})
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	cellOf := func(run *Run, variant string) CellFact {
		t.Helper()
		for _, c := range run.Cells {
			if c.Variant == variant && c.Shape == shapeA {
				return c
			}
		}
		t.Fatalf("no %s cell", variant)
		return CellFact{}
	}
	kernelsOf := func(run *Run, variant string) (names []string) {
		for _, k := range run.Kernels {
			if k.Variant == variant {
				names = append(names, k.Name)
			}
		}
		return names
	}
	whole := analyse(nil)
	u0, d0 := cellOf(whole, "unfused"), cellOf(whole, "dual-acc")
	if d0.KernelTimesNs[0] != 1_500_000 || d0.DRAMBytesRange != 1e8 || d0.Wall.N != 10 || len(kernelsOf(whole, "dual-acc")) != 1 {
		t.Fatalf("unmasked dual-acc: %+v", d0)
	}
	sameUnfused := func(run *Run, what string) {
		t.Helper()
		u := cellOf(run, "unfused")
		if !slices.Equal(u.KernelTimesNs, u0.KernelTimesNs) || u.DRAMBytesRange != u0.DRAMBytesRange || u.Wall != u0.Wall || u.FLOPs != u0.FLOPs {
			t.Errorf("%s: unfused changed: %+v", what, u)
		}
	}

	// nsys failed: the kernel list, times and GPU time come from the ncu
	// kernel pass (1.6 ms), as for a cell without a timeline.
	run := analyse(map[string]string{rundir.PassNsys: rundir.StatusFailed})
	d := cellOf(run, "dual-acc")
	if !slices.Equal(d.KernelNames, []string{"dual_acc"}) || !slices.Equal(d.KernelTimesNs, []float64{1_600_000}) || d.GPUTimeNs != 1_600_000 {
		t.Errorf("nsys failed: names %v times %v GPU time %v, want the ncu kernel pass's dual_acc, 1.6 ms", d.KernelNames, d.KernelTimesNs, d.GPUTimeNs)
	}
	if !hasWarning(d.Warnings, WarnMissing, "gpu_time_ns") {
		t.Errorf("nsys failed: no missing-metric warning on gpu_time_ns: %v", d.Warnings)
	}
	sameUnfused(run, "nsys failed")

	// ncu failed: no kernel fact, FLOPs, kernel-pass bytes or class; the
	// timeline still gives the kernel list.
	run = analyse(map[string]string{rundir.PassNCU: rundir.StatusFailed})
	d = cellOf(run, "dual-acc")
	if got := kernelsOf(run, "dual-acc"); len(got) != 0 {
		t.Errorf("ncu failed: kernel facts %v", got)
	}
	if d.FLOPs != 0 || d.DRAMBytesKernels != 0 || d.L2Bytes != 0 || d.Class != "" || d.KernelPassTimeNs != 0 {
		t.Errorf("ncu failed: FLOPs %v, kernel-pass DRAM %v, L2 %v, class %q, kernel-pass time %v", d.FLOPs, d.DRAMBytesKernels, d.L2Bytes, d.Class, d.KernelPassTimeNs)
	}
	if !slices.Equal(d.KernelTimesNs, []float64{1_500_000}) || d.DRAMBytesRange != 1e8 {
		t.Errorf("ncu failed: timeline %v, range DRAM %v", d.KernelTimesNs, d.DRAMBytesRange)
	}
	if got := kernelsOf(run, "unfused"); len(got) != 3 {
		t.Errorf("ncu failed for dual-acc: unfused kernel facts %v", got)
	}
	sameUnfused(run, "ncu failed")

	// range failed: no range bytes; the comparison's DRAM ratio is that of
	// the kernel-pass sums, as analysis gives it for any cell without a
	// range pass.
	run = analyse(map[string]string{rundir.PassRange: rundir.StatusFailed})
	d = cellOf(run, "dual-acc")
	if d.DRAMBytesRange != 0 || len(d.DRAMBytesRangeReplays) != 0 || d.RangeCoverage != nil {
		t.Errorf("range failed: range DRAM %v replays %v coverage %v", d.DRAMBytesRange, d.DRAMBytesRangeReplays, d.RangeCoverage)
	}
	if len(run.Comparisons) != 1 {
		t.Fatalf("range failed: %d comparisons", len(run.Comparisons))
	}
	near(t, "DRAM ratio of kernel-pass sums", run.Comparisons[0].DRAMRatio, 1.4e9/(3e9+1.2e7), 1e-12)
	sameUnfused(run, "range failed")

	// timing skipped: no wall or device time, no speedup.
	run = analyse(map[string]string{rundir.PassTiming: rundir.StatusSkipped})
	d = cellOf(run, "dual-acc")
	if d.Wall.N != 0 || len(d.WallSamplesMs) != 0 || run.Comparisons[0].Speedup.Center != 0 {
		t.Errorf("timing skipped: wall %+v, speedup %+v", d.Wall, run.Comparisons[0].Speedup)
	}
	sameUnfused(run, "timing skipped")

	// check failed: every pass is masked; the cell is still in the run.
	run = analyse(map[string]string{rundir.PassCheck: rundir.StatusFailed})
	d = cellOf(run, "dual-acc")
	if d.Status != "ok" || d.Kernels != 0 || d.DRAMBytesRange != 0 || d.Wall.N != 0 || d.FLOPs != 0 || len(kernelsOf(run, "dual-acc")) != 0 {
		t.Errorf("check failed: %+v", d)
	}
	sameUnfused(run, "check failed")
}
