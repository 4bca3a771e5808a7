package analysis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rooftool/rooftool/ingest"
)

// ClockWarnings compares the SM clock the ncu kernel pass ran at (median of
// sm__cycles_elapsed.avg.per_second, or the details page's "SM Frequency")
// with the SM clock the timing pass recorded (timing JSON clocks.sm_mhz, meta
// key clock.sm_mhz). More than tol apart (e.g. 0.10), ncu's per-kernel rates
// and the timing pass's speedups were taken at different clocks.
func ClockWarnings(t *ingest.Tables, tol float64) []Warning {
	return clockWarnings(t, metricsByKernel(t), tol)
}

// clockWarnings is ClockWarnings on the metrics of t indexed by kernel.
func clockWarnings(t *ingest.Tables, byKernel metricIndex, tol float64) []Warning {
	var ncu []float64
	for _, m := range byKernel {
		if v, ok := m.get(MSMClock); ok && v > 0 {
			ncu = append(ncu, v)
		} else if v, ok := m.get(detSMFrequency); ok && v > 0 {
			ncu = append(ncu, v)
		}
	}
	var timing []float64
	for _, m := range t.Metas() {
		if m.Source == ingest.SourceTiming && m.Key == "clock.sm_mhz" {
			if v, err := strconv.ParseFloat(m.Value, 64); err == nil && v > 0 {
				timing = append(timing, v*1e6)
			}
		}
	}
	if len(ncu) == 0 || len(timing) == 0 {
		return nil
	}
	a, b := median(ncu), median(timing)
	if math.Abs(a-b) <= tol*b {
		return nil
	}
	return []Warning{{Code: WarnClocks, Metric: "",
		Msg: fmt.Sprintf("ncu kernels ran at %.0f MHz (median), the timing pass at %.0f MHz: per-kernel rates and timed speedups come from different clocks", a/1e6, b/1e6)}}
}
