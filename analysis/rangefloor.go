package analysis

import (
	"fmt"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// WarnRangeBelowFloor: the range pass's DRAM bytes fall below the least
// the cell must move, its kernel pass's DRAM bytes plus its memory copies'
// and memsets' (nsys, inside the same NVTX range) less what L2 reuse can
// save (rundir.DRAMFloor), by more than their spread over the replays: ncu
// lost part of the range's traffic (on ncu 2025.3.1, the copies of a later
// range in a shared process). Its DRAM claims are void.
const WarnRangeBelowFloor = "range-below-floor"

// Which ncu process measured a cell's range, as CellFact.RangeProcess
// says it (from the manifest's rundir.PassStatus.Process).
var rangeProcessWords = map[string]string{
	rundir.ProcessShared:        "per-experiment",
	rundir.ProcessAlone:         "per-cell",
	rundir.ProcessRetriedAlone:  "retried alone",
	rundir.ProcessReplayedAlone: "replayed alone",
}

// RangeProcessWord says how a range process is named in reports: the
// manifest's process ("shared", "alone", ...) as "per-experiment",
// "per-cell", "retried alone" or "replayed alone"; "" stays "".
func RangeProcessWord(process string) string {
	if w, ok := rangeProcessWords[process]; ok {
		return w
	}
	return process
}

// rangeProcess is the process the manifest records for key's range pass
// ("" without a manifest or a record).
func rangeProcess(m *rundir.Manifest, key cellkey.Key) string {
	if m == nil {
		return ""
	}
	st, ok := m.Pass(key.Experiment, key.Variant, key.Shape, rundir.PassRange)
	if !ok || st.Status != rundir.StatusOK {
		return ""
	}
	return st.Process
}

// checkRangeFloor judges c's range replays against its DRAM floor: the
// kernel pass kf, the copies nsys traced in its range (cp; none where nsys
// did not run: the floor is lower, still a floor) and the L2 capacity l2.
// Nothing is judged without range replays, kernel-pass DRAM bytes or an L2
// capacity. A short range gets WarnRangeBelowFloor and RangeBelowFloor.
func checkRangeFloor(c *CellFact, kf []KernelFact, cp ingest.CopyTotals, l2 int64) {
	if len(c.DRAMBytesRangeReplays) == 0 || len(kf) == 0 || c.DRAMBytesKernels <= 0 || l2 <= 0 {
		return
	}
	f := rundir.NewDRAMFloor(c.DRAMBytesKernels, float64(cp.DRAMBytes), len(kf), cp.Count, float64(l2), c.DRAMBytesRangeReplays)
	if !f.Short {
		return
	}
	c.RangeBelowFloor = &f
	how := ""
	if c.RangeProcess != "" {
		how = ", measured " + RangeProcessWord(c.RangeProcess)
	}
	c.Warnings = append(c.Warnings, Warning{Code: WarnRangeBelowFloor, Metric: "dram_bytes",
		Msg: fmt.Sprintf("the ncu range pass's DRAM bytes fall %.3g GB below the least the cell moves%s: %s; its DRAM bytes are not the variant's",
			(f.FloorBytes-f.RangeDRAMBytes)/1e9, how, f.Describe())})
}
