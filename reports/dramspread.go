package reports

import (
	"fmt"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
)

// The DRAM bytes a range-decided verdict judges come with the spread of the
// range pass's replays (each its own ncu process): the centre is their
// median, the interval their min..max, N their count. Judged like a time,
// a verdict is GO only when the whole interval clears the threshold,
// NO-GO when all of it misses, INCONCLUSIVE when the threshold lies
// inside. A cell replayed once (older runs) gives a point, and its verdict
// carries analysis.WarnDRAMOneReplay.

// dramValue is a cell's DRAM bytes with the spread of its range replays
// (kernels.SpreadOf); a point (N 0) where the bytes come from the kernel pass.
func dramValue(c *analysis.CellFact) Value {
	b, _ := dramOf(c)
	v := point(b)
	if c != nil && c.DRAMBytesRange > 0 && len(c.DRAMBytesRangeReplays) > 0 {
		s := kernels.SpreadOf(c.DRAMBytesRangeReplays)
		v.Lo, v.Hi, v.N = s.Lo, s.Hi, s.N
	}
	return v
}

func spreadOf(v Value) kernels.DRAMSpread {
	return kernels.DRAMSpread{Center: v.Center, Lo: v.Lo, Hi: v.Hi, N: v.N}
}

func valueOf(s kernels.DRAMSpread) Value { return Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N} }

// dramRatio is cand / base over their spreads (kernels.DRAMRatio).
func dramRatio(cand, base Value) Value {
	return valueOf(kernels.DRAMRatio(spreadOf(cand), spreadOf(base)))
}

// spreadNote says a DRAM value's replays: "n=3 range replays, 68.50
// MB..70.38 MB"; nothing for one replay (dram-one-replay says that).
func spreadNote(v Value) string {
	if v.N < 2 {
		return ""
	}
	return fmt.Sprintf("n=%d range replays, %s..%s", v.N, Bytes(v.Lo), Bytes(v.Hi))
}

// dramSpreadCheck adds to a range-decided DRAM decision whose bytes rest on
// one replay the WarnDRAMOneReplay warning: it keeps its point verdict.
func dramSpreadCheck(d *Decision, m Value) {
	if passFor(d.Metric) != rundir.PassRange || family(d.Metric) != metricFamilyDRAM || m.N != 1 {
		return
	}
	w := analysis.Warning{Code: analysis.WarnDRAMOneReplay, Metric: d.Metric,
		Msg: "the range pass replayed the cells once (n=1): their DRAM bytes have no spread, so this is a point verdict"}
	d.Warnings = append(d.Warnings, w)
	d.Reason += "; " + w.Code + ": " + w.Msg
}

// intervalLabel names the interval a verdict's reason quotes: the spread
// of the range replays for range-decided DRAM metrics, the confidence
// interval of the medians for the others.
func intervalLabel(metric string) string {
	if passFor(metric) == rundir.PassRange && family(metric) == metricFamilyDRAM {
		return "range-replay spread"
	}
	return confidenceLabel + " interval"
}

// dramCell formats a table's DRAM figure: the bytes, and for range bytes
// the replays behind them ("68.78 MB (n=3: 68.50 MB..70.38 MB)", "(n=1)").
func dramCell(row CellRow) string {
	if row.DRAMBytes == 0 && row.DRAMBytesKernels > 0 {
		return Bytes(row.DRAMBytesKernels) + "*"
	}
	s := Bytes(row.DRAMBytes)
	switch n := len(row.DRAMBytesReplays); {
	case row.DRAMBytes == 0 || n == 0:
	case n == 1:
		s += " (n=1)"
	default:
		lo, hi := row.DRAMBytesReplays[0], row.DRAMBytesReplays[0]
		for _, x := range row.DRAMBytesReplays {
			lo, hi = min(lo, x), max(hi, x)
		}
		s += fmt.Sprintf(" (n=%d: %s..%s)", n, Bytes(lo), Bytes(hi))
	}
	return s
}
