package analysis

import (
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
)

// LoopSMClocks gives the SM clock (MHz) each cell's timed (wall-time) loop
// ran at: the median of the clocks read during the loop (meta rows
// clock_sample.<rep>.sm_mhz of source timing, the timing JSON's
// clock_samples), else the reading after the loop (clock.sm_mhz) for timing
// files without samples. perCell is TimingSMClocks's: false when the tables
// name timing files by their base name alone, and the caller must read the
// run's timing JSON instead.
func LoopSMClocks(t *ingest.Tables) (clocks map[cellkey.Key]float64, perCell bool) {
	clocks, perCell = TimingSMClocks(t)
	for k, s := range clockSamples(t, ingest.MetaClockSample) {
		clocks[k] = Median(s)
	}
	return clocks, perCell
}

// TimingDeviceSMClocks gives the SM clock (MHz) each cell's device-time
// (CUDA-graph replay) loop ran at: the median of its clock samples (meta rows
// device_clock_sample.<rep>.sm_mhz, the timing JSON's device_clock_samples).
// Cells whose timing file has no such samples are absent.
func TimingDeviceSMClocks(t *ingest.Tables) map[cellkey.Key]float64 {
	out := map[cellkey.Key]float64{}
	for k, s := range clockSamples(t, ingest.MetaDeviceClockSample) {
		out[k] = Median(s)
	}
	return out
}

// clockSamples gathers each cell's SM clock samples (meta keys
// <prefix><rep>.sm_mhz of source timing), MHz.
func clockSamples(t *ingest.Tables, prefix string) map[cellkey.Key][]float64 {
	cellOf := TimingFileCells(t.Timings())
	out := map[cellkey.Key][]float64{}
	for _, m := range t.Metas() {
		if m.Source != ingest.SourceTiming || !strings.HasPrefix(m.Key, prefix) || !strings.HasSuffix(m.Key, ".sm_mhz") {
			continue
		}
		k, _, ok := cellOf(m.File)
		v, err := strconv.ParseFloat(m.Value, 64)
		if !ok || err != nil || v <= 0 {
			continue
		}
		out[k] = append(out[k], v)
	}
	return out
}
