package verdict

import (
	"fmt"
	"math"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/internal/figure"
)

// deviceCheck looks at the two cells of a device-time speedup. Where a
// cell's device-time median exceeds its wall median (device-above-wall),
// one call's device time is at most that wall median: the speedup with
// such device times capped at their wall medians is shown beside the
// measured one, and the true speedup lies between the measured interval and
// that interval scaled to the capped times. Where that wider interval would
// give another verdict, the warning voids the speedup.
func (x *index) deviceCheck(exp, shape, base, cand string, m Value, op string, thr float64, verdict string) (*analysis.Warning, string) {
	bc, cc := x.cells[cellkey.New(exp, base, shape)], x.cells[cellkey.New(exp, cand, shape)]
	if !okCell(bc) || !okCell(cc) {
		return nil, ""
	}
	bd, _ := bc.DeviceTimeMs()
	cd, _ := cc.DeviceTimeMs()
	bCap, bn := oneCallDeviceMs(bc)
	cCap, cn := oneCallDeviceMs(cc)
	if len(bn)+len(cn) == 0 || bd <= 0 || cd <= 0 || cCap <= 0 {
		return nil, ""
	}
	k := (bCap / bd) * (cd / cCap)
	w := Value{Center: m.Center, Lo: math.Min(m.Lo, m.Lo*k), Hi: math.Max(m.Hi, m.Hi*k), N: m.N}
	if figure.Unbounded(m.Hi) {
		w.Hi = m.Hi
	}
	note := fmt.Sprintf("with device times capped at their cells' wall medians (%s), the speedup is %s (measured %s)", joinNotes(append(bn, cn...)), figure.Ratio(m.Center*k), figure.Ratio(m.Center))
	if v, _ := judge(MetricGPUSpeedup, w, op, thr); v == verdict {
		return nil, note + ": the cap would not change the verdict"
	}
	return &analysis.Warning{Code: analysis.WarnDeviceAboveWall, Metric: MetricGPUSpeedup,
		Msg: fmt.Sprintf("%s; capped at the wall medians the speedup could lie anywhere in [%s, %s]", joinNotes(append(bn, cn...)), FormatBound(MetricGPUSpeedup, w.Lo), FormatBound(MetricGPUSpeedup, w.Hi))}, note
}

func joinNotes(ns []string) string {
	out := ""
	for _, n := range ns {
		out = joinNote(out, n)
	}
	return out
}
