package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// ClockWarnings compares the SM clock the ncu kernel pass ran at (median of
// sm__cycles_elapsed.avg.per_second, or the details page's "SM Frequency",
// over the kernel pass's rows: range-pass rows are left out)
// with the SM clock the timing pass recorded (timing JSON clocks.sm_mhz, meta
// key clock.sm_mhz). More than tol apart (Analyze: ClockTolPasses), ncu's per-kernel rates
// and the timing pass's speedups were taken at different clocks. The rows
// of the passes man marks failed or skipped (PassMask) are left out on
// both sides; a clock row that names its timing file alone (tables
// ingested before meta rows named their cell) cannot be told apart by
// variant and is kept.
func ClockWarnings(t *ingest.Tables, tol float64, man *rundir.Manifest) []Warning {
	return clockWarnings(t, metricsByKernel(t), tol, MaskOf(man))
}

// clockWarnings is ClockWarnings on the metrics of t indexed by kernel.
func clockWarnings(t *ingest.Tables, byKernel metricIndex, tol float64, mask PassMask) []Warning {
	// Only the kernel pass's rows: a range row's clock is the clock over a
	// whole NVTX range, gaps between kernels included, not the clock the
	// kernels ran at.
	kernelPass := map[int64]bool{}
	for _, k := range t.Kernels() {
		if k.Source == ingest.SourceNCU && k.Pass != ingest.PassRange && k.Pass != ingest.PassTimeline && (mask == nil || !mask.KernelMasked(k)) {
			kernelPass[k.ID] = true
		}
	}
	var ncu []float64
	for id, m := range byKernel {
		if !kernelPass[id] {
			continue
		}
		if v, ok := m.get(metric.SMClock); ok && v > 0 {
			ncu = append(ncu, v)
		} else if v, ok := m.get(metric.DetailSMFrequency); ok && v > 0 {
			ncu = append(ncu, v)
		}
	}
	cellOf := TimingFileCells(t.Timings())
	var timing []float64
	for _, m := range t.Metas() {
		if m.Source == ingest.SourceTiming && m.Key == "clock.sm_mhz" {
			if k, _, ok := cellOf(m.File); ok && mask.Masked(k, rundir.PassTiming) {
				continue
			}
			if v, err := strconv.ParseFloat(m.Value, 64); err == nil && v > 0 {
				timing = append(timing, v*1e6)
			}
		}
	}
	if len(ncu) == 0 || len(timing) == 0 {
		return nil
	}
	a, b := Median(ncu), Median(timing)
	if math.Abs(a-b) <= tol*b {
		return nil
	}
	return []Warning{{Code: WarnClocks, Metric: "",
		Msg: fmt.Sprintf("ncu kernel pass ran at %.0f MHz (median), the timing pass at %.0f MHz: per-kernel rates and timed speedups come from different clocks", a/1e6, b/1e6)}}
}

// TimingSMClocks gives the SM clock (MHz) the timing pass read after each
// cell's timed loop: the meta rows clock.sm_mhz of source timing, whose File
// is "<experiment>/<variant>/<timing file>" (ingest/timing), matched to
// their cell through the file column of the timings table. perCell is false
// when the tables hold clock rows that name the timing file alone (tables
// ingested before File carried the experiment and variant): the variants of
// a shape share that name, so those rows are left out and the caller must
// find the cells' clocks elsewhere (the run's timing JSON).
func TimingSMClocks(t *ingest.Tables) (clocks map[cellkey.Key]float64, perCell bool) {
	cellOf := TimingFileCells(t.Timings())
	clocks, perCell = map[cellkey.Key]float64{}, true
	for _, m := range t.Metas() {
		if m.Source != ingest.SourceTiming || m.Key != "clock.sm_mhz" {
			continue
		}
		k, named, ok := cellOf(m.File)
		if !named {
			perCell = false
			continue
		}
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(m.Value, 64); err == nil && v > 0 {
			clocks[k] = v
		}
	}
	return clocks, perCell
}

// ClockSpread is the range of the SM clock read during one cell's timed
// loop (the timing JSON's clock_samples or device_clock_samples), MHz.
type ClockSpread struct{ MinMHz, MaxMHz float64 }

// TimingClockSpreads gives each cell's SM clock range over its timed
// (wall-time) loop, for cells whose timing JSON recorded clock samples.
func TimingClockSpreads(t *ingest.Tables) map[cellkey.Key]ClockSpread {
	return clockSpreads(t, ingest.MetaClockSample)
}

// DeviceClockSpreads gives each cell's SM clock range over its device-time
// (CUDA-graph replay) loop, for cells whose timing JSON recorded
// device_clock_samples.
func DeviceClockSpreads(t *ingest.Tables) map[cellkey.Key]ClockSpread {
	return clockSpreads(t, ingest.MetaDeviceClockSample)
}

// clockSpreads reads the meta rows "<prefix><rep>.sm_mhz" of source timing.
func clockSpreads(t *ingest.Tables, prefix string) map[cellkey.Key]ClockSpread {
	cellOf := TimingFileCells(t.Timings())
	out := map[cellkey.Key]ClockSpread{}
	for _, m := range t.Metas() {
		if m.Source != ingest.SourceTiming || !strings.HasPrefix(m.Key, prefix) || !strings.HasSuffix(m.Key, ".sm_mhz") {
			continue
		}
		k, _, ok := cellOf(m.File)
		v, err := strconv.ParseFloat(m.Value, 64)
		if !ok || err != nil || v <= 0 {
			continue
		}
		s, seen := out[k]
		if !seen || v < s.MinMHz {
			s.MinMHz = v
		}
		if v > s.MaxMHz {
			s.MaxMHz = v
		}
		out[k] = s
	}
	return out
}

// Clock tolerances: how far apart (relative) two SM clocks may be before
// the check that compares them reports it. The one table of them.
const (
	// ClockTolPasses: the median SM clock of the ncu kernel pass against
	// the timing pass's (a run-level WarnClocks from Analyze).
	ClockTolPasses = 0.10
	// ClockTolLoop: the lowest and highest SM clock sampled during one
	// cell's timed loop or device-time loop (a cell-level WarnClocks).
	ClockTolLoop = 0.05
	// ClockTolCells: the SM clocks of the loops of two cells a speedup
	// compares; beyond it a report shows the clock-normalised speedup.
	ClockTolCells = 0.05
)

// checkClockSpread warns where the SM clock moved by more than tol
// (relative) during one of a cell's timed loops (loop names it: "timed
// loop", "device-time loop"): its samples mix clock states.
func checkClockSpread(c *CellFact, s ClockSpread, loop string, tol float64) {
	if s.MinMHz <= 0 || s.MaxMHz/s.MinMHz-1 <= tol {
		return
	}
	c.Warnings = append(c.Warnings, Warning{Code: WarnClocks,
		Msg: fmt.Sprintf("%s: the SM clock moved between %.0f and %.0f MHz during the %s (%.0f%%): its samples mix clock states", c.Variant, s.MinMHz, s.MaxMHz, loop, 100*(s.MaxMHz/s.MinMHz-1))})
}

// TimingFileCells maps a timing meta row's File ("<exp>/<variant>/<file>",
// as ingest names it) to the cell whose timings (rows of ts) came from that
// file. named is false for a File that names the file alone (tables
// ingested before meta rows named their cell); ok is false when no timing
// row matches.
func TimingFileCells(ts []ingest.Timing) func(file string) (k cellkey.Key, named, ok bool) {
	type fileOf struct{ experiment, variant, file string }
	cells := map[fileOf]cellkey.Key{}
	for _, r := range ts {
		cells[fileOf{r.Experiment, r.Variant, r.File}] = r.Key()
	}
	return func(file string) (cellkey.Key, bool, bool) {
		exp, rest, ok := strings.Cut(file, "/")
		variant, name, ok2 := strings.Cut(rest, "/")
		if !ok || !ok2 {
			return cellkey.Key{}, false, false
		}
		k, found := cells[fileOf{exp, variant, name}]
		return k, true, found
	}
}
