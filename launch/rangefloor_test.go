package launch

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/rangerule"
)

// TestRangeFloor runs the ncu, range and nsys passes of the fake
// experiment's good and after at n=1 and n=2 in one shared range process
// (per-experiment). nsys sees memory copies inside the n=2 ranges that ncu's
// kernel pass cannot see; the shared range process drops their traffic.
//
// By hand, with the fake's kernel pass (2 kernels x 1,048,576 DRAM bytes =
// 2,097,152) and an L2 of 65,536 bytes:
//   - good/n=2: a device-to-device copy of 8,388,608 bytes (read and
//     written: 16,777,216) and a memset of 1,048,576: copies 17,825,792;
//     L2 reuse (2 kernels + 2 copies + 1) x 65,536 = 327,680; floor
//     2,097,152 + 17,825,792 - 327,680 = 19,595,264. Shared: 2,150,000,
//     short by 17,445,264 (spread 0): replayed alone, 20,000,000 there,
//     above the floor.
//   - after/n=2: one copy of 8,388,608 (16,777,216); reuse 4 x 65,536 =
//     262,144; floor 2,097,152 + 16,777,216 - 262,144 = 18,612,224. Shared
//     2,150,000, alone 2,160,000: still short, warned, claims void.
//   - n=1: no copies; floor 2,097,152 - 3 x 65,536 = 1,900,544; ranges of
//     2,000,000: above it, not replayed.
func TestRangeFloor(t *testing.T) {
	cfg, _ := fakeEnv(t)
	ncuLog := t.TempDir() + "/ncu.jsonl"
	t.Setenv("FAKE_NCU_LOG", ncuLog)
	t.Setenv("FAKE_RANGE_SHARED_OK", "1")
	t.Setenv("FAKE_RANGE_NVTX", "1")
	t.Setenv("FAKE_L2_SIZE", "65536")
	t.Setenv("FAKE_NSYS_COPIES", `{"good/n=2": [[8, 8388608], [-1, 1048576]], "after/n=2": [[8, 8388608]]}`)
	t.Setenv("FAKE_RANGE_DRAM_COUNTER", filepath.Join(t.TempDir(), "dram.json"))
	t.Setenv("FAKE_RANGE_DRAM_CELLS", `{"good/n=1": "2000000", "after/n=1": "2000000", "good/n=2": "2150000,20000000", "after/n=2": "2150000,2160000"}`)
	cfg.Variants, cfg.Shapes = []string{"good", "after"}, []string{"n=1", "n=2"}
	cfg.Passes = []string{rundir.PassNCU, rundir.PassRange, rundir.PassNsys}
	cfg.RangeProcess = RangeProcessPerExperiment
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cell                     string
		process                  string
		floor, rangeDRAM, shared float64
		short, alone             bool
	}{
		{"fake/good/n=1", rundir.ProcessShared, 1900544, 2000000, 0, false, false},
		{"fake/after/n=1", rundir.ProcessShared, 1900544, 2000000, 0, false, false},
		{"fake/good/n=2", rundir.ProcessReplayedAlone, 19595264, 20000000, 2150000, false, true},
		{"fake/after/n=2", rundir.ProcessReplayedAlone, 18612224, 2160000, 2150000, true, true},
	} {
		st := mustPass(t, m, tc.cell, rundir.PassRange, rundir.StatusOK, "")
		f := st.DRAMFloor
		if f == nil {
			t.Errorf("%s: no DRAM floor recorded", tc.cell)
			continue
		}
		if st.Process != tc.process || math.Abs(f.FloorBytes-tc.floor) > 0.5 || math.Abs(f.RangeDRAMBytes-tc.rangeDRAM) > 0.5 ||
			f.Short != tc.short || f.ReplayedAlone != tc.alone || math.Abs(f.SharedDRAMBytes-tc.shared) > 0.5 {
			t.Errorf("%s: process %q, floor %s; want process %q, floor %.0f, range %.0f, short %v, replayed alone %v (shared %.0f)",
				tc.cell, st.Process, jsonOf(f), tc.process, tc.floor, tc.rangeDRAM, tc.short, tc.alone, tc.shared)
		}
		for _, rp := range st.Replays {
			if rp.Process != tc.process {
				t.Errorf("%s: replay %d process %q, want %q", tc.cell, rp.Replay, rp.Process, tc.process)
			}
		}
	}
	if !hasWarning(m, "range pass of fake/after/n=2: "+rangerule.WarnRangeBelowFloor+": shared process range 0.00215 GB") || !hasWarning(m, "still short") {
		t.Errorf("warnings = %q, want after/n=2 below its floor, replayed alone, still short", m.Warnings)
	}
	if hasWarning(m, "fake/good/n=2: "+rangerule.WarnRangeBelowFloor) {
		t.Errorf("warnings = %q: good/n=2 measured its floor alone", m.Warnings)
	}
}
