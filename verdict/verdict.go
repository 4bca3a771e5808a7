package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/spec"
)

// voidRule is one warning code's rule: which claim metrics it voids.
type voidRule struct {
	code  string
	why   string
	voids func(w analysis.Warning, metric string) bool
}

// sameFamily voids the family of the metric the warning names.
func sameFamily(w analysis.Warning, metric string) bool {
	f := family(w.Metric)
	return f != "" && f == family(metric)
}

func inFamily(fams ...string) func(analysis.Warning, string) bool {
	return func(_ analysis.Warning, metric string) bool {
		for _, f := range fams {
			if family(metric) == f {
				return true
			}
		}
		return false
	}
}

// voidRules lists every warning that voids claims (METHOD.md, "Warning
// codes"). model-mismatch and zero-on-log are reported, never void: the
// model or the plot may be what is off.
var voidRules = []voidRule{
	{analysis.WarnL2Resident, "the working set fits in L2: writes can stay there and DRAM bytes undercount",
		inFamily(metricFamilyDRAM)},
	{analysis.WarnFewSamples, "too few samples to bound an interval: voids the times it names (wall time when it names none)",
		func(w analysis.Warning, metric string) bool {
			if w.Metric == "" {
				return family(metric) == metricFamilyTime
			}
			return sameFamily(w, metric)
		}},
	{analysis.WarnClocks, "the cells compared were timed at different clocks (only the metric clockCheck names; ncu's clocks concern its own rates)",
		sameFamily},
	{analysis.WarnLaunchBound, "a kernel shorter than the launch overhead times the host: voids absolute times, not speedups, whose saved launches are part of the claim",
		func(_ analysis.Warning, metric string) bool { return metric == MetricTimeUs }},
	{analysis.WarnMissing, "a fact the metric needs is absent or measured another way than the claim states",
		sameFamily},
	{analysis.WarnRangePartial, "the range pass covers part of the cell: its DRAM bytes are not the variant's",
		func(_ analysis.Warning, metric string) bool { return passFor(metric) == rundir.PassRange }},
	{analysis.WarnRangeBelowFloor, "the range pass's DRAM bytes fall below the kernel pass's plus the copies nsys saw in the range, less L2 reuse: ncu lost part of the range's traffic",
		func(_ analysis.Warning, metric string) bool { return passFor(metric) == rundir.PassRange }},
	{analysis.WarnPassesDiffer, "the passes of the cell ran different code: figures from different passes describe different kernels",
		func(_ analysis.Warning, metric string) bool { return family(metric) != metricFamilyError }},
	{analysis.WarnHostBound, "wall time is host overhead of an isolated call, not GPU work: voids wall-time figures, not device time",
		inFamily(metricFamilyTime)},
	{analysis.WarnDeviceAboveWall, "a device-time median above the same cell's wall median is no figure of one call (only where deviceCheck names the metric: capping it changes the verdict)",
		sameFamily},
	{analysis.WarnBimodal, "wall-time samples in two groups: the median is not a stable figure",
		inFamily(metricFamilyTime)},
}

// voids reports whether warning w voids a claim metric.
func voids(w analysis.Warning, metric string) bool {
	for _, r := range voidRules {
		if r.code == w.Code {
			return r.voids(w, metric)
		}
	}
	return false
}

// ConfidenceLabel is the level of the medians' intervals as the reasons
// and the reports state it, "95%".
var ConfidenceLabel = fmt.Sprintf("%.0f%%", 100*analysis.DefaultStats().Confidence)

// clears reports whether v satisfies "v op threshold".
func clears(v float64, op string, thr float64) bool {
	switch op {
	case ">":
		return v > thr
	case ">=":
		return v >= thr
	case "<":
		return v < thr
	case "<=":
		return v <= thr
	}
	return false
}

// judge applies METHOD.md "Claims and verdicts" to a measured value with its interval;
// the reason formats numbers in the metric's unit.
func judge(metric string, m Value, op string, thr float64) (verdict, reason string) {
	f := func(v float64) string { return FormatMetric(metric, v) }
	test := op + " " + f(thr)
	c := clears(m.Center, op, thr)
	lo, hi := clears(m.Lo, op, thr), clears(m.Hi, op, thr)
	iv := func() string {
		return fmt.Sprintf("%s [%s, %s]", intervalLabel(metric), FormatBound(metric, m.Lo), FormatBound(metric, m.Hi))
	}
	point := m.Lo == m.Center && m.Hi == m.Center
	switch {
	case c && lo && hi:
		if point {
			return VerdictGo, fmt.Sprintf("%s clears %s", f(m.Center), test)
		}
		return VerdictGo, fmt.Sprintf("%s and its whole %s clear %s", f(m.Center), iv(), test)
	case !c && !lo && !hi:
		if point {
			return VerdictNoGo, fmt.Sprintf("%s misses %s", f(m.Center), test)
		}
		return VerdictNoGo, fmt.Sprintf("%s and its whole %s miss %s", f(m.Center), iv(), test)
	}
	return VerdictInconclusive, fmt.Sprintf("the %s straddles %s (median %s)", iv(), test, f(m.Center))
}

// decide judges one claim at one shape; a best-of claim on the best member
// of its fusion (decideBestOf).
func (x *index) decide(e *spec.Experiment, c spec.Claim, shape string) Decision {
	if g, ok := c.BestOf(); ok {
		return x.decideBestOf(e, c, g, shape)
	}
	return x.decideOne(e, c, shape)
}

// decideOne judges a claim on one candidate at one shape.
func (x *index) decideOne(e *spec.Experiment, c spec.Claim, shape string) Decision {
	base := c.Baseline
	if base == "" && needsBaseline(c.Metric) {
		base = e.BaselineFor(c.Candidate)
	}
	d := Decision{Experiment: e.Name, Claim: c.ID, Seed: c.Seed, Source: c.Source, Line: c.Line, Quote: c.Quote, Metric: c.Metric,
		Candidate: c.Candidate, Baseline: base, Op: c.Op, Threshold: c.Threshold, Shape: shape, Note: c.Note}
	x.extra = x.extra[:0] // warnings of this decision only
	x.judged = judged{}
	defer func() { x.extra, x.judged = x.extra[:0], judged{} }()
	if r, ok := metricOf(c.Metric); ok {
		d.Quantity = r.quantity
	}
	d.Theory = x.theoryOf(e, c.Metric, c.Candidate, base, shape)
	if !needsBaseline(c.Metric) {
		d.Baseline = ""
	}
	switch c.Op {
	case ">", ">=", "<", "<=":
	default:
		d.Verdict, d.Reason = VerdictNotMeasured, fmt.Sprintf("claims.yaml: op %q, want >, >=, < or <=", c.Op)
		return d
	}
	if e.Variant(c.Candidate) == nil {
		d.Verdict, d.Reason = VerdictNotMeasured, notInSpec(c.Candidate)
		return d
	}
	m, missing, extra := x.measure(e, c.Metric, c.Candidate, base, shape)
	if missing != "" {
		d.Verdict, d.Reason = VerdictNotMeasured, missing
		return d
	}
	d.Measured = &m
	d.Verdict, d.Reason = judge(c.Metric, m, c.Op, c.Threshold)
	if extra != "" {
		d.Reason += "; " + extra
	}
	dramSpreadCheck(&d, m)
	x.replayBasis(e, &d)
	x.replaysCut(&d, m)
	if c.Metric == MetricGPUSpeedup {
		if w, note := x.deviceCheck(e.Name, shape, d.Baseline, c.Candidate, m, c.Op, c.Threshold, d.Verdict); note != "" {
			d.Reason += "; " + note
			if w != nil {
				x.extra = append(x.extra, *w)
			}
		}
	}
	if c.Metric == MetricSpeedup || c.Metric == MetricGPUSpeedup {
		d.Launch, d.Timing = x.judged.launch, "separate"
		if x.judged.paired != nil {
			d.Timing = "paired"
		}
	}
	// Paired timing: both halves of each pair kept ran at the same clock
	// (pairs whose halves differ were left out): no cross-loop clock check.
	if (c.Metric == MetricSpeedup || c.Metric == MetricGPUSpeedup) && x.judged.paired == nil {
		w, note := x.clockCheck(c.Metric, e.Name, shape, d.Baseline, c.Candidate, m, c.Op, c.Threshold, d.Verdict)
		if w != nil {
			x.extra = append(x.extra, *w)
		}
		if note != "" {
			d.Reason += "; " + note
		}
	}
	if note := x.gpuUnitNote(e.Name, shape, d.Baseline, c.Candidate); note != "" {
		d.Reason += "; " + note
	}
	var vw []analysis.Warning
	for _, w := range append(x.warningsFor(e.Name, shape, c.Candidate, d.Baseline), x.extra...) {
		if w.Code == analysis.WarnHostBound && x.judged.launch == analysis.LaunchGraph {
			continue // host overhead of an eager call: this metric was judged on the graph launch
		}
		if voids(w, c.Metric) {
			vw = append(vw, w)
		}
	}
	if x.run != nil {
		// Run-level warnings are listed under the decisions; only clocks
		// that differ between passes reach every cell's times.
		for _, w := range x.run.Warnings {
			if w.Code == analysis.WarnClocks && voids(w, c.Metric) {
				vw = append(vw, w)
			}
		}
	}
	d.BoundFraction = x.boundFraction(e, c.Candidate, shape)
	x.limitedBy(e, &d)
	x.l2AlreadySaves(e, &d)
	if voiding := summarizeWarnings(vw); len(voiding) > 0 {
		d.VoidedBy = appendCodes(d.VoidedBy, vw)
		if d.Verdict == VerdictInconclusive {
			d.Reason = fmt.Sprintf("%s; the metric is also voided by %s", d.Reason, strings.Join(voiding, "; "))
		} else {
			d.Reason = fmt.Sprintf("would be %s (%s), but voided by %s", d.Verdict, d.Reason, strings.Join(voiding, "; "))
			d.Verdict = VerdictInconclusive
		}
	}
	if why := x.passNotRun(e.Name, c.Metric, shape, c.Candidate, d.Baseline); why != "" && (d.Verdict == VerdictGo || d.Verdict == VerdictNoGo) {
		d.PassNotRun = why
		d.Reason = fmt.Sprintf("would be %s (%s), but %s: the figure was measured another way than the claim states", d.Verdict, d.Reason, why)
		d.Verdict = VerdictInconclusive
	}
	return d
}

// passNotRun says which of the variants' cells lack the pass that decides
// metric (passFor): it never ran for the cell, or did not end ok; "" where
// every cell the manifest lists has it (a run without a manifest is not
// checked). A decision measured all the same took its figure from another
// pass (a kernel count from the ncu kernel pass where nsys never ran), so
// it can be no GO or NO-GO.
func (x *index) passNotRun(exp, metric, shape string, variants ...string) string {
	pass := passFor(metric)
	if pass == "" || x.man == nil {
		return ""
	}
	var why []string
	for _, v := range variants {
		if v == "" {
			continue
		}
		mc := x.manCells[cellkey.New(exp, v, shape)]
		if mc == nil {
			continue
		}
		switch ps, ok := mc.Passes[pass]; {
		case !ok:
			why = append(why, fmt.Sprintf("the %s pass never ran for %s", pass, v))
		case ps.Status != rundir.StatusOK:
			why = append(why, fmt.Sprintf("the %s pass of %s %s (%s)", pass, v, ps.Status, orDash(ps.Reason)))
		}
	}
	return strings.Join(why, "; ")
}

// appendCodes adds to codes each warning code of ws it lacks, in order.
func appendCodes(codes []string, ws []analysis.Warning) []string {
	for _, w := range ws {
		if !slices.Contains(codes, w.Code) {
			codes = append(codes, w.Code)
		}
	}
	return codes
}

// hasWarning reports whether ws has a warning of code.
func hasWarning(ws []analysis.Warning, code string) bool {
	return slices.ContainsFunc(ws, func(w analysis.Warning) bool { return w.Code == code })
}

// summarizeWarnings lists each warning code once, with its first message
// and how many more of that code there were.
func summarizeWarnings(ws []analysis.Warning) []string {
	var order []string
	first := map[string]string{}
	count := map[string]int{}
	seen := map[analysis.Warning]bool{}
	for _, w := range ws {
		if seen[w] {
			continue
		}
		seen[w] = true
		if _, ok := first[w.Code]; !ok {
			order = append(order, w.Code)
			first[w.Code] = w.Msg
		}
		count[w.Code]++
	}
	var out []string
	for _, c := range order {
		s := c + ": " + first[c]
		if n := count[c] - 1; n > 0 {
			s += fmt.Sprintf(" (and %d more)", n)
		}
		out = append(out, s)
	}
	return out
}

// clockCheck looks at the SM clocks of the two cells' timed loops (the
// median of their clock samples). Where they differ by more than
// analysis.ClockTolCells, the note gives the clock-normalised speedup (the
// candidate's time scaled to the baseline's clock, as a compute-bound
// kernel's would scale) beside the measured one.
// The speedup corrected for clocks lies between the measured interval and
// that interval scaled by f_baseline/f_candidate; when that wider interval
// would not give the same verdict, the clocks void the speedup (a
// clocks-differ warning). A gpu_speedup is checked on the clocks of the
// device-time (graph-replay) loops, where both cells sampled them.
func (x *index) clockCheck(metric, exp, shape, base, cand string, m Value, op string, thr float64, verdict string) (*analysis.Warning, string) {
	clocks, loop := x.clocks, "timed loop"
	if metric == MetricGPUSpeedup || x.judged.launch == analysis.LaunchGraph {
		clocks, loop = x.deviceClocks, "device-time loop"
	}
	fb, fc := clocks[cellkey.New(exp, base, shape)], clocks[cellkey.New(exp, cand, shape)]
	if fb <= 0 || fc <= 0 || fb == fc {
		return nil, ""
	}
	k := fb / fc
	w := Value{Center: m.Center, Lo: math.Min(m.Lo, m.Lo*k), Hi: math.Max(m.Hi, m.Hi*k), N: m.N}
	if figure.Unbounded(m.Hi) {
		w.Hi = m.Hi
	}
	note := ""
	if math.Abs(k-1) > analysis.ClockTolCells {
		note = fmt.Sprintf("SM clocks of the %ss %.0f MHz (%s) and %.0f MHz (%s), %.0f%% apart: clock-normalised speedup %s (measured %s)",
			loop, fb, base, fc, cand, 100*math.Abs(k-1), figure.Ratio(m.Center*k), figure.Ratio(m.Center))
	}
	if v, _ := judge(metric, w, op, thr); v == verdict {
		if note == "" {
			note = fmt.Sprintf("SM clocks of the %ss %.0f MHz (%s) and %.0f MHz (%s)", loop, fb, base, fc, cand)
		}
		return nil, note + ": a clock correction would not change the verdict"
	}
	return &analysis.Warning{Code: analysis.WarnClocks, Metric: metric,
		Msg: fmt.Sprintf("SM clock of the %s was %.0f MHz for %s and %.0f MHz for %s; corrected for clocks the speedup could lie anywhere in [%s, %s]",
			loop, fb, base, fc, cand, FormatBound(metric, w.Lo), FormatBound(metric, w.Hi))}, note
}

func point(v float64) Value { return Value{Center: v, Lo: v, Hi: v} }

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func joinNote(a, b string) string {
	if b == "" {
		return a
	}
	if a == "" {
		return b
	}
	return a + "; " + b
}

// pvalEq formats "=0.028" or "<0.001".
func pvalEq(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return "=" + figure.PValue(p)
}
