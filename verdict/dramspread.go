package verdict

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/spec"
)

// The DRAM bytes a range-decided verdict judges come with the spread of the
// range pass's replays (each its own ncu process): the centre is their
// median, the interval their min..max, N their count. Judged like a time,
// a verdict is GO only when the whole interval clears the threshold,
// NO-GO when all of it misses, INCONCLUSIVE when the threshold lies
// inside. A cell replayed once (older runs) gives a point, and its verdict
// carries analysis.WarnDRAMOneReplay.

// dramValue is a cell's DRAM bytes with the spread of its range replays
// (spec.SpreadOf); a point (N 0) where the bytes come from the kernel pass.
func dramValue(c *analysis.CellFact) Value {
	b, _ := dramOf(c)
	v := point(b)
	if c != nil && c.DRAMBytesRange > 0 && len(c.DRAMBytesRangeReplays) > 0 {
		s := spec.SpreadOf(c.DRAMBytesRangeReplays)
		v.Lo, v.Hi, v.N = s.Lo, s.Hi, s.N
	}
	return v
}

func spreadOf(v Value) spec.DRAMSpread {
	return spec.DRAMSpread{Center: v.Center, Lo: v.Lo, Hi: v.Hi, N: v.N}
}

func valueOf(s spec.DRAMSpread) Value { return Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N} }

// dramRatio is cand / base over their spreads (spec.DRAMRatio).
func dramRatio(cand, base Value) Value {
	return valueOf(spec.DRAMRatio(spreadOf(cand), spreadOf(base)))
}

// spreadNote says a DRAM value's replays: "n=3 range replays, 68.50
// MB..70.38 MB"; nothing for one replay (dram-one-replay says that).
func spreadNote(v Value) string {
	if v.N < 2 {
		return ""
	}
	return fmt.Sprintf("n=%d range replays, %s..%s", v.N, figure.Bytes(v.Lo), figure.Bytes(v.Hi))
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

// ReplayBasis is one cell of a range-decided DRAM decision: the range
// replays its DRAM bytes rest on and why the range pass made that many
// (the manifest's replay_reason; empty in runs made before it was
// recorded).
type ReplayBasis struct {
	Variant string `json:"variant"`
	N       int    `json:"n"`
	Reason  string `json:"reason,omitempty"`
}

// replayBasis sets a measured range-decided DRAM decision's RangeReplays
// (candidate, then baseline where the metric has one) and says it in its
// reason: "rests on 3 range replays (near threshold after 3: ...)", or,
// where the cells differ, "rests on range replays: fused 1 (...), unfused
// 3 (...)".
func (x *index) replayBasis(e *spec.Experiment, d *Decision) {
	if d.Measured == nil || passFor(d.Metric) != rundir.PassRange || family(d.Metric) != metricFamilyDRAM {
		return
	}
	variants := []string{d.Candidate}
	if d.Baseline != "" {
		variants = append(variants, d.Baseline)
	}
	for _, v := range variants {
		c := x.cells[cellkey.New(e.Name, v, d.Shape)]
		if c == nil || len(c.DRAMBytesRangeReplays) == 0 {
			return // bytes of the kernel pass: no range replays to speak of
		}
		b := ReplayBasis{Variant: v, N: len(c.DRAMBytesRangeReplays)}
		if x.man != nil {
			if st, ok := x.man.Pass(e.Name, v, d.Shape, rundir.PassRange); ok {
				b.Reason = st.ReplayReason
			}
		}
		d.RangeReplays = append(d.RangeReplays, b)
	}
	same := true
	for _, b := range d.RangeReplays[1:] {
		same = same && b == ReplayBasis{Variant: b.Variant, N: d.RangeReplays[0].N, Reason: d.RangeReplays[0].Reason}
	}
	paren := func(r string) string {
		if r == "" {
			return ""
		}
		return " (" + r + ")"
	}
	if same {
		b := d.RangeReplays[0]
		d.Reason += fmt.Sprintf("; rests on %s%s", figure.Plural(b.N, "range replay"), paren(b.Reason))
		return
	}
	parts := make([]string, len(d.RangeReplays))
	for i, b := range d.RangeReplays {
		parts[i] = fmt.Sprintf("%s %d%s", b.Variant, b.N, paren(b.Reason))
	}
	d.Reason += "; rests on range replays: " + strings.Join(parts, ", ")
}

// intervalLabel names the interval a verdict's reason quotes: the spread
// of the range replays for range-decided DRAM metrics, the confidence
// interval of the medians for the others.
func intervalLabel(metric string) string {
	if passFor(metric) == rundir.PassRange && family(metric) == metricFamilyDRAM {
		return "range-replay spread"
	}
	return ConfidenceLabel + " interval"
}

// WarnReplaysCut marks a range-decided DRAM decision whose cells have fewer
// range replays than the run's replay rule asked for (the round was cut:
// the run was interrupted, or a replay failed).
const WarnReplaysCut = "range-replays-cut"

// replaysCut checks a measured range-decided DRAM decision against the
// run's replay rule (the manifest's ncu.range_replays and
// ncu.range_replays_for): with "all" every cell was to have n replays; with
// "decisions" a value near its threshold (spec.Nearness) was to be replayed
// up to n times. A decision whose cells have fewer says its replays were
// cut; one whose value lies within spec.NearFloor of the threshold is
// INCONCLUSIVE, since the replays it lacks are the ones that could turn it.
// Runs made before the rule recorded its options are not checked.
func (x *index) replaysCut(d *Decision, m Value) {
	if d.Measured == nil || len(d.RangeReplays) == 0 || x.man == nil {
		return
	}
	n, err := strconv.Atoi(x.man.Options[rundir.OptionRangeReplays])
	if err != nil || n < 2 {
		return
	}
	dist, _, margin := spec.Nearness(spreadOf(m), d.Threshold)
	switch x.man.Options[rundir.OptionRangeReplaysFor] {
	case "all":
	case "decisions":
		if dist > margin {
			return // clear of the margin: the rule asked for no more
		}
	default:
		return
	}
	var short []string
	for _, b := range d.RangeReplays {
		if b.N < n {
			short = append(short, fmt.Sprintf("%s %d", b.Variant, b.N))
		}
	}
	if len(short) == 0 {
		return
	}
	w := analysis.Warning{Code: WarnReplaysCut, Metric: d.Metric,
		Msg: fmt.Sprintf("its range replays were cut: the rule asked for up to %d replays of its cells (value %.1f%% off the threshold, margin %.1f%%), they have %s",
			n, 100*dist, 100*margin, strings.Join(short, ", "))}
	d.Warnings = append(d.Warnings, w)
	if dist <= spec.NearFloor && (d.Verdict == VerdictGo || d.Verdict == VerdictNoGo) {
		d.Reason = fmt.Sprintf("would be %s (%s), but %s: %s", d.Verdict, d.Reason, w.Code, w.Msg)
		d.Verdict = VerdictInconclusive
		d.VoidedBy = append(d.VoidedBy, w.Code)
		return
	}
	d.Reason += "; " + w.Code + ": " + w.Msg
}
