package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
)

// Metrics a claim can test (kernels.Claim.Metric).
const (
	MetricSpeedup            = "speedup"                  // baseline wall time / candidate wall time, 95% CI
	MetricTimeUs             = "time_us"                  // candidate median wall time, microseconds
	MetricDRAMRatio          = "dram_ratio"               // candidate / baseline DRAM bytes (range pass)
	MetricDRAMReduction      = "dram_reduction"           // 1 - dram_ratio
	MetricDRAMBytes          = "dram_bytes"               // candidate DRAM bytes (range pass)
	MetricElementwiseDRAM    = "elementwise_dram_ratio"   // elementwise DRAM traffic, candidate / baseline
	MetricKernelCount        = "kernel_count"             // candidate kernel launches per iteration
	MetricKernelReduction    = "kernel_reduction"         // baseline kernels - candidate kernels
	MetricElementwiseKernels = "elementwise_kernel_count" // candidate kernels with no tensor work
	MetricRelError           = "rel_error"                // candidate max relative error (check pass)
)

const (
	metricFamilyTime       = "time"
	metricFamilyDRAM       = "dram"
	metricFamilyKernels    = "kernels"
	metricFamilyError      = "error"
	modelLo, modelHi       = 0.5, 2.0 // measured/theory DRAM bytes outside this is reported
	defaultConfidenceLabel = "95%"
)

// Metrics lists every metric a claim may name.
var Metrics = []string{MetricSpeedup, MetricTimeUs, MetricDRAMRatio, MetricDRAMReduction, MetricDRAMBytes,
	MetricElementwiseDRAM, MetricKernelCount, MetricKernelReduction, MetricElementwiseKernels, MetricRelError}

// family groups metrics by what can void them. GPU time (nsys) is not
// wall time: nothing a claim tests is derived from it.
func family(metric string) string {
	switch {
	case metric == MetricSpeedup, metric == MetricTimeUs, strings.HasPrefix(metric, "wall"), strings.HasPrefix(metric, "time"):
		return metricFamilyTime
	case strings.HasPrefix(metric, "dram"), metric == MetricElementwiseDRAM:
		return metricFamilyDRAM
	case strings.HasPrefix(metric, "kernel"), metric == MetricElementwiseKernels:
		return metricFamilyKernels
	case metric == MetricRelError:
		return metricFamilyError
	}
	return metric
}

// voids reports whether warning w voids a claim metric:
//
//   - l2-resident voids DRAM metrics: the working set fits in L2, writes
//     can stay there and DRAM bytes undercount;
//   - few-samples voids times and speedups; clocks-differ voids the metric
//     it names (a speedup whose cells were timed at different clocks);
//   - launch-bound voids absolute times (time_us): a kernel shorter than
//     the launch overhead times the host, not the kernel. It does not void
//     a speedup, a ratio of real wall times in which the launches a fusion
//     saves are part of what it claims;
//   - missing-metric voids the family of the metric it names (e.g. no range
//     pass: DRAM ratios fall back to kernel-pass sums, which overstate what
//     fusion saves);
//   - model-mismatch and zero-on-log are reported, never void: the model
//     or the plot may be what is off.
func voids(w analysis.Warning, metric string) bool {
	fam := family(metric)
	switch w.Code {
	case analysis.WarnL2Resident:
		return fam == metricFamilyDRAM
	case analysis.WarnFewSamples:
		return fam == metricFamilyTime
	case analysis.WarnClocks:
		// Only clocks that differ between the timing passes of the cells
		// compared (clockCheck names the metric); ncu's clocks against the
		// timing pass's concern ncu's per-kernel rates, not timed speedups.
		return w.Metric != "" && family(w.Metric) == fam
	case analysis.WarnLaunchBound:
		return metric == MetricTimeUs
	case analysis.WarnMissing:
		return w.Metric != "" && family(w.Metric) == fam
	}
	return false
}

// passFor is the pass whose failure leaves a metric unmeasured.
func passFor(metric string) string {
	switch family(metric) {
	case metricFamilyTime:
		return rundir.PassTiming
	case metricFamilyDRAM:
		if metric == MetricElementwiseDRAM {
			return rundir.PassNCU
		}
		return rundir.PassRange
	case metricFamilyKernels:
		return rundir.PassNsys
	case metricFamilyError:
		return rundir.PassCheck
	}
	return ""
}

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

// judge applies DESIGN.md's rule to a measured value with its interval;
// the reason formats numbers in the metric's unit.
func judge(metric string, m Value, op string, thr float64) (verdict, reason string) {
	f := func(v float64) string { return fmtMetric(metric, v) }
	test := op + " " + f(thr)
	c := clears(m.Center, op, thr)
	lo, hi := clears(m.Lo, op, thr), clears(m.Hi, op, thr)
	iv := func() string {
		return fmt.Sprintf("%s interval [%s, %s]", defaultConfidenceLabel, boundStr(metric, m.Lo), boundStr(metric, m.Hi))
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

// cellMissing is CellFact.Status for a cell of the spec without data.
const cellMissing = "missing"

// index gives fast access to a run's facts.
type index struct {
	run      *analysis.Run
	man      *rundir.Manifest
	cells    map[string]*analysis.CellFact
	comps    map[string]*analysis.Comparison
	kernels  map[string][]*analysis.KernelFact // exp/variant/shape
	checks   map[string]*Check
	inRun    map[string]bool // experiment has cells in the run
	manCells map[string]*rundir.Cell
	clocks   map[string]float64 // exp/variant/shape -> SM MHz after the timing pass
	extra    []analysis.Warning // warnings of the decision being made
}

func key(parts ...string) string { return strings.Join(parts, "/") }

func newIndex(run *analysis.Run, man *rundir.Manifest, checks []Check) *index {
	x := &index{run: run, man: man, cells: map[string]*analysis.CellFact{}, comps: map[string]*analysis.Comparison{},
		kernels: map[string][]*analysis.KernelFact{}, checks: map[string]*Check{}, inRun: map[string]bool{}, manCells: map[string]*rundir.Cell{}}
	if run != nil {
		for i := range run.Cells {
			c := &run.Cells[i]
			if c.Status == cellMissing {
				continue // analysis lists every spec cell; a missing one is not in the run
			}
			x.cells[key(c.Experiment, c.Variant, c.Shape)] = c
			x.inRun[c.Experiment] = true
		}
		for i := range run.Comparisons {
			c := &run.Comparisons[i]
			x.comps[key(c.Experiment, c.Shape, c.Baseline, c.Candidate)] = c
		}
		for i := range run.Kernels {
			k := &run.Kernels[i]
			kk := key(k.Experiment, k.Variant, k.Shape)
			x.kernels[kk] = append(x.kernels[kk], k)
		}
	}
	if man != nil {
		for i := range man.Cells {
			c := &man.Cells[i]
			x.manCells[c.Key().String()] = c
			x.inRun[c.Experiment] = true
		}
	}
	for i := range checks {
		c := &checks[i]
		x.checks[key(c.Experiment, c.Variant, c.Shape)] = c
	}
	x.mask()
	return x
}

// MaskRun returns a copy of run without the facts of passes the manifest
// marks failed or skipped (see index.mask), for plots that must agree with
// the report's tables. run itself is not changed.
func MaskRun(run *analysis.Run, man *rundir.Manifest) *analysis.Run {
	if run == nil || man == nil {
		return run
	}
	x := newIndex(run, man, nil)
	out := *run
	out.Cells = make([]analysis.CellFact, 0, len(run.Cells))
	for _, c := range run.Cells {
		if m := x.cells[key(c.Experiment, c.Variant, c.Shape)]; m != nil {
			c = *m
		}
		out.Cells = append(out.Cells, c)
	}
	out.Kernels = nil
	for _, k := range run.Kernels {
		if _, ok := x.kernels[key(k.Experiment, k.Variant, k.Shape)]; ok {
			out.Kernels = append(out.Kernels, k)
		}
	}
	out.Comparisons = make([]analysis.Comparison, 0, len(run.Comparisons))
	for _, c := range run.Comparisons {
		if m := x.comps[key(c.Experiment, c.Shape, c.Baseline, c.Candidate)]; m != nil {
			c = *m
		}
		out.Comparisons = append(out.Comparisons, c)
	}
	return &out
}

// passOK reports whether the manifest lets a cell's pass be used: true
// without a manifest or a record of the pass, false when the pass failed
// or was skipped (tables can still hold rows of a failed attempt, e.g. one
// the runner superseded).
func (x *index) passOK(k, pass string) bool {
	mc := x.manCells[k]
	if mc == nil {
		return true
	}
	ps, ok := mc.Passes[pass]
	return !ok || ps.Status == rundir.StatusOK
}

// mask drops from the cells, kernels and comparisons every fact that comes
// from a pass the manifest marks failed or skipped, so that no verdict or
// table rests on a measurement the run itself rejected.
func (x *index) mask() {
	if x.man == nil {
		return
	}
	masked := map[string]bool{}
	for k, c := range x.cells {
		timing, ncu, rng, nsys := x.passOK(k, rundir.PassTiming), x.passOK(k, rundir.PassNCU), x.passOK(k, rundir.PassRange), x.passOK(k, rundir.PassNsys)
		if !x.passOK(k, rundir.PassCheck) {
			timing, ncu, rng, nsys = false, false, false, false
		}
		if timing && ncu && rng && nsys {
			continue
		}
		m := *c // a copy: the run's facts stay as analysis made them
		masked[k] = true
		var drop []string
		if !timing {
			m.Wall, m.WallSamplesMs = analysis.Interval{}, nil
			drop = append(drop, "wall", "speedup", "time")
		}
		if !ncu {
			m.FLOPs, m.L2Bytes, m.Class, m.DRAMBytesKernels = 0, 0, "", 0
			delete(x.kernels, k)
		}
		if !rng {
			m.DRAMBytesRange = 0
			drop = append(drop, "dram")
		}
		if !nsys {
			// Kernel list from the ncu kernel pass where that pass is good.
			m.Kernels, m.ElementwiseKernels, m.KernelNames, m.GPUTimeNs = 0, 0, nil, 0
			if ncu {
				for _, kf := range x.kernels[k] {
					m.Kernels++
					m.KernelNames = append(m.KernelNames, kf.Name)
					m.GPUTimeNs += kf.DurationNs
					if kf.Elementwise {
						m.ElementwiseKernels++
					}
				}
			}
			drop = append(drop, "launch")
		}
		var ws []analysis.Warning
		for _, w := range c.Warnings {
			switch {
			case w.Code == analysis.WarnModelMismatch && !rng,
				w.Code == analysis.WarnLaunchBound && !nsys,
				w.Code == analysis.WarnFewSamples && !timing:
				continue
			}
			ws = append(ws, w)
		}
		m.Warnings = ws
		x.cells[k] = &m
	}
	for k, c := range x.comps {
		bk, ck := key(c.Experiment, c.Baseline, c.Shape), key(c.Experiment, c.Candidate, c.Shape)
		if !masked[bk] && !masked[ck] {
			continue
		}
		m := *c
		b, cc := x.cells[bk], x.cells[ck]
		if b == nil || cc == nil || b.Wall.N == 0 || cc.Wall.N == 0 {
			m.Speedup, m.P, m.Significant = analysis.Interval{}, 1, false
		}
		m.DRAMRatio, m.DRAMReduction = 0, 0
		if b != nil && cc != nil && b.DRAMBytesRange > 0 && cc.DRAMBytesRange > 0 {
			m.DRAMRatio = cc.DRAMBytesRange / b.DRAMBytesRange
			m.DRAMReduction = 1 - m.DRAMRatio
		}
		x.comps[k] = &m
	}
}

// Cell states besides launch's ok, failed and skipped.
const (
	cellPartial = "partial" // some passes failed or were skipped, others gave data
)

// status is a cell's overall state from the manifest (else the analysis)
// and why when not ok: failed or skipped when its check pass (or every pass)
// failed or was skipped; partial when some passes did and others gave data;
// missing when the run lacks the cell.
func (x *index) status(exp, variant, shape string) (string, string) {
	if mc := x.manCells[key(exp, variant, shape)]; mc != nil {
		if len(mc.Passes) == 0 {
			return cellMissing, "no pass ran"
		}
		var bad []string
		ok, failed := 0, false
		group := map[string][]string{} // "status: reason" -> passes
		for _, p := range rundir.AllPasses {
			ps, has := mc.Passes[p]
			switch {
			case !has:
			case ps.Status == rundir.StatusOK:
				ok++
			default:
				failed = failed || ps.Status == rundir.StatusFailed
				g := ps.Status + ": " + orDash(ps.Reason)
				if group[g] == nil {
					bad = append(bad, g)
				}
				group[g] = append(group[g], p)
			}
		}
		for i, g := range bad {
			ps := group[g]
			noun := "pass"
			if len(ps) > 1 {
				noun = "passes"
			}
			bad[i] = strings.Join(ps, ", ") + " " + noun + " " + g
		}
		if len(bad) == 0 {
			return rundir.StatusOK, ""
		}
		data := 0 // passes that give data: every pass but check
		for _, p := range []string{rundir.PassTiming, rundir.PassNCU, rundir.PassRange, rundir.PassNsys} {
			if ps, has := mc.Passes[p]; has && ps.Status == rundir.StatusOK {
				data++
			}
		}
		if ck, has := mc.Passes[rundir.PassCheck]; (has && ck.Status != rundir.StatusOK) || ok == 0 || data == 0 {
			st := rundir.StatusSkipped
			if failed {
				st = rundir.StatusFailed
			}
			return st, bad[0]
		}
		return cellPartial, strings.Join(bad, "; ")
	}
	if c := x.cells[key(exp, variant, shape)]; c != nil {
		if c.Status == "" || c.Status == rundir.StatusOK {
			return rundir.StatusOK, ""
		}
		return c.Status, "analysis: cell " + c.Status
	}
	if x.man != nil {
		return cellMissing, "not in the run's manifest"
	}
	return cellMissing, "not in the run"
}

// whyMissing explains why a variant's measurement for metric is absent.
func (x *index) whyMissing(exp, variant, shape, metric, what string) string {
	if !x.inRun[exp] {
		return "experiment " + exp + " is not in this run"
	}
	pass := passFor(metric)
	if x.man != nil && len(x.man.Passes) > 0 && pass != "" {
		has := false
		for _, p := range x.man.Passes {
			has = has || p == pass
		}
		if !has {
			return fmt.Sprintf("this run made no %s pass (passes: %s)", pass, strings.Join(x.man.Passes, ", "))
		}
	}
	if mc := x.manCells[key(exp, variant, shape)]; mc != nil {
		if ps, ok := mc.Passes[pass]; ok && ps.Status != rundir.StatusOK {
			return fmt.Sprintf("%s: %s pass %s: %s", variant, pass, ps.Status, orDash(ps.Reason))
		}
	}
	st, why := x.status(exp, variant, shape)
	if st != rundir.StatusOK && st != cellPartial {
		return variant + ": " + why
	}
	if mc := x.manCells[key(exp, variant, shape)]; mc != nil && pass != "" {
		if _, ok := mc.Passes[pass]; !ok {
			return fmt.Sprintf("%s: the %s pass did not run", variant, pass)
		}
	}
	return fmt.Sprintf("%s has no %s at this shape", variant, what)
}

func orDash(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// warningsFor gathers the warnings on the cells and comparison a claim uses.
func (x *index) warningsFor(exp, shape, cand, base string) []analysis.Warning {
	var out []analysis.Warning
	if c := x.cells[key(exp, cand, shape)]; c != nil {
		out = append(out, c.Warnings...)
	}
	if base != "" {
		if c := x.cells[key(exp, base, shape)]; c != nil {
			out = append(out, c.Warnings...)
		}
		if c := x.comparison(exp, shape, base, cand); c != nil {
			out = append(out, c.Warnings...)
		}
	}
	return out
}

// shapesFor lists the shapes a claim is judged at.
func (x *index) shapesFor(e *kernels.Experiment, c kernels.Claim) []string {
	if len(c.Shapes) > 0 {
		return c.Shapes
	}
	var out []string
	for _, s := range e.AllShapes() {
		for _, v := range []string{c.Candidate, c.Baseline} {
			if v == "" {
				continue
			}
			if x.cells[key(e.Name, v, s)] != nil || x.manCells[key(e.Name, v, s)] != nil {
				out = append(out, s)
				break
			}
		}
	}
	if len(out) == 0 {
		return e.AllShapes()
	}
	return out
}

// decide judges one claim at one shape.
func (x *index) decide(e *kernels.Experiment, c kernels.Claim, shape string) Decision {
	base := c.Baseline
	if base == "" && needsBaseline(c.Metric) {
		base = e.BaselineFor(c.Candidate)
	}
	d := Decision{Experiment: e.Name, Claim: c.ID, Seed: c.Seed, Line: c.Line, Quote: c.Quote, Metric: c.Metric,
		Candidate: c.Candidate, Baseline: base, Op: c.Op, Threshold: c.Threshold, Shape: shape, Note: c.Note}
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
	if c.Metric == MetricSpeedup {
		if w, note := x.clockCheck(e.Name, shape, d.Baseline, c.Candidate, m, c.Op, c.Threshold, d.Verdict); w != nil {
			x.extra = append(x.extra, *w)
			defer func() { x.extra = x.extra[:0] }()
		} else if note != "" {
			d.Reason += "; " + note
		}
	}
	var vw []analysis.Warning
	for _, w := range append(x.warningsFor(e.Name, shape, c.Candidate, d.Baseline), x.extra...) {
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
	if voiding := summarizeWarnings(vw); len(voiding) > 0 {
		if d.Verdict == VerdictInconclusive {
			d.Reason = fmt.Sprintf("%s; the metric is also voided by %s", d.Reason, strings.Join(voiding, "; "))
		} else {
			d.Reason = fmt.Sprintf("would be %s (%s), but voided by %s", d.Verdict, d.Reason, strings.Join(voiding, "; "))
			d.Verdict = VerdictInconclusive
		}
	}
	return d
}

func needsBaseline(metric string) bool {
	switch metric {
	case MetricSpeedup, MetricDRAMRatio, MetricDRAMReduction, MetricElementwiseDRAM, MetricKernelReduction:
		return true
	}
	return false
}

func point(v float64) Value { return Value{Center: v, Lo: v, Hi: v} }

// dramOf is a cell's DRAM bytes: the range pass, else the sum over the
// kernel pass (noted: per-kernel replay flushes L2 and overstates a chain).
func dramOf(c *analysis.CellFact) (float64, string) {
	if c == nil {
		return 0, ""
	}
	if c.DRAMBytesRange > 0 {
		return c.DRAMBytesRange, ""
	}
	if c.DRAMBytesKernels > 0 {
		return c.DRAMBytesKernels, "from the ncu kernel pass (no range pass): L2 flushed per kernel"
	}
	return 0, ""
}

// measure returns the claim metric's measured value, or why it has none,
// and a note on how it was measured.
func (x *index) measure(e *kernels.Experiment, metric, cand, base, shape string) (v Value, missing, note string) {
	cc := x.cells[key(e.Name, cand, shape)]
	bc := x.cells[key(e.Name, base, shape)]
	okCell := func(c *analysis.CellFact) bool {
		return c != nil && c.Status != cellMissing && c.Status != rundir.StatusFailed && c.Status != rundir.StatusSkipped
	}
	switch metric {
	case MetricSpeedup:
		cmp := x.comparison(e.Name, shape, base, cand)
		if cmp == nil || cmp.Speedup.N == 0 {
			if !okCell(bc) || bc.Wall.N == 0 {
				return v, x.whyMissing(e.Name, base, shape, metric, "wall-time samples"), ""
			}
			return v, x.whyMissing(e.Name, cand, shape, metric, "wall-time samples"), ""
		}
		s := cmp.Speedup
		note = fmt.Sprintf("p%s, n=%d", pvalEq(cmp.P), s.N)
		return Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N}, "", note
	case MetricTimeUs:
		if !okCell(cc) || cc.Wall.N == 0 {
			return v, x.whyMissing(e.Name, cand, shape, metric, "wall-time samples"), ""
		}
		w := cc.Wall
		return Value{Center: w.Center * 1e3, Lo: w.Lo * 1e3, Hi: w.Hi * 1e3, N: w.N}, "", fmt.Sprintf("n=%d", w.N)
	case MetricKernelCount, MetricElementwiseKernels:
		if !okCell(cc) || cc.Kernels == 0 {
			return v, x.whyMissing(e.Name, cand, shape, metric, "kernel count"), ""
		}
		if metric == MetricKernelCount {
			return point(float64(cc.Kernels)), "", ""
		}
		n, how := x.elementwiseCount(cc)
		if how == "" {
			how = fmt.Sprintf("of %d kernels", cc.Kernels)
		}
		return point(float64(n)), "", how
	case MetricKernelReduction:
		if !okCell(bc) || bc.Kernels == 0 {
			return v, x.whyMissing(e.Name, base, shape, metric, "kernel count"), ""
		}
		if !okCell(cc) || cc.Kernels == 0 {
			return v, x.whyMissing(e.Name, cand, shape, metric, "kernel count"), ""
		}
		return point(float64(bc.Kernels - cc.Kernels)), "", fmt.Sprintf("%d -> %d kernels", bc.Kernels, cc.Kernels)
	case MetricDRAMRatio, MetricDRAMReduction:
		bb, bn := dramOf(bc)
		if !okCell(bc) || bb == 0 {
			return v, x.whyMissing(e.Name, base, shape, metric, "DRAM bytes"), ""
		}
		cb, cn := dramOf(cc)
		if !okCell(cc) || cb == 0 {
			return v, x.whyMissing(e.Name, cand, shape, metric, "DRAM bytes"), ""
		}
		if bn != "" || cn != "" {
			note = "DRAM bytes " + firstNonEmpty(bn, cn)
		}
		r := cb / bb
		note = joinNote(fmt.Sprintf("%s / %s", Bytes(cb), Bytes(bb)), note)
		if metric == MetricDRAMReduction {
			return point(1 - r), "", note
		}
		return point(r), "", note
	case MetricDRAMBytes:
		cb, cn := dramOf(cc)
		if !okCell(cc) || cb == 0 {
			return v, x.whyMissing(e.Name, cand, shape, metric, "DRAM bytes"), ""
		}
		return point(cb), "", cn
	case MetricElementwiseDRAM:
		return x.elementwiseDRAM(e, cand, base, shape)
	case MetricRelError:
		ck := x.checks[key(e.Name, cand, shape)]
		if ck == nil || ck.MaxRelErr == nil {
			if ck != nil && ck.Error != "" {
				return v, cand + ": check: " + ck.Error, ""
			}
			return v, x.whyMissing(e.Name, cand, shape, metric, "check result"), ""
		}
		r := *ck.MaxRelErr
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return v, fmt.Sprintf("%s: check gave a max relative error of %v", cand, r), ""
		}
		how := "max relative error against the reference (check pass)"
		if ck.Metric != "" {
			how += ": " + ck.Metric
		}
		return point(r), "", how
	}
	return v, fmt.Sprintf("claims.yaml: unknown metric %q (want one of %s)", metric, strings.Join(Metrics, ", ")), ""
}

// elementwiseDRAM measures the seed-000 style "elementwise traffic" ratio
// from the ncu kernel pass: the baseline's elementwise kernels carry its
// elementwise traffic; the candidate's is what its kernels move beyond the
// baseline's GEMM kernels (GEMM traffic taken as unchanged).
func (x *index) elementwiseDRAM(e *kernels.Experiment, cand, base, shape string) (v Value, missing, note string) {
	bk := x.kernels[key(e.Name, base, shape)]
	ck := x.kernels[key(e.Name, cand, shape)]
	if len(bk) == 0 {
		return v, x.whyMissing(e.Name, base, shape, MetricElementwiseDRAM, "per-kernel DRAM bytes"), ""
	}
	if len(ck) == 0 {
		return v, x.whyMissing(e.Name, cand, shape, MetricElementwiseDRAM, "per-kernel DRAM bytes"), ""
	}
	var bElem, bGEMM, cTotal float64
	for _, k := range bk {
		b := k.DRAMReadBytes + k.DRAMWriteBytes
		if k.Elementwise {
			bElem += b
		} else {
			bGEMM += b
		}
	}
	for _, k := range ck {
		cTotal += k.DRAMReadBytes + k.DRAMWriteBytes
	}
	if bElem == 0 {
		return v, base + ": no elementwise kernel with DRAM bytes in the ncu kernel pass", ""
	}
	cElem := cTotal - bGEMM
	note = fmt.Sprintf("baseline elementwise %s, GEMM %s; candidate total %s (ncu kernel pass)", Bytes(bElem), Bytes(bGEMM), Bytes(cTotal))
	if cElem < 0 {
		note += "; candidate moves less than the baseline's GEMMs alone: ratio taken as 0"
		cElem = 0
	}
	return point(cElem / bElem), "", note
}

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
	return "=" + pval(p)
}

func pval(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// theoryOf is the claim metric under the claims.yaml models, if they give
// one. For speedup and time_us it is the roofline bound of the models:
// t = max(DRAM bytes / DRAM roof, FLOPs / compute roof of the experiment's
// dtype), so a reader sees the floor a latency target has to beat.
func (x *index) theoryOf(e *kernels.Experiment, metric, cand, base, shape string) *float64 {
	get := func(v string) (b float64, ok bool) {
		th, has := e.Theory[v]
		if !has || th.DRAMBytes == "" {
			return 0, false
		}
		b, _, err := EvalTheory(th, shape)
		return b, err == nil && b > 0
	}
	f := func(v float64) *float64 { return &v }
	switch metric {
	case MetricDRAMRatio, MetricDRAMReduction, MetricElementwiseDRAM:
		cb, ok1 := get(cand)
		bb, ok2 := get(base)
		if !ok1 || !ok2 {
			return nil
		}
		if metric == MetricDRAMReduction {
			return f(1 - cb/bb)
		}
		return f(cb / bb)
	case MetricDRAMBytes:
		if cb, ok := get(cand); ok {
			return f(cb)
		}
	case MetricKernelCount:
		if v := e.Variant(cand); v != nil && v.Kernels > 0 {
			return f(float64(v.Kernels))
		}
	case MetricKernelReduction:
		cv, bv := e.Variant(cand), e.Variant(base)
		if cv != nil && bv != nil && cv.Kernels > 0 && bv.Kernels > 0 {
			return f(float64(bv.Kernels - cv.Kernels))
		}
	case MetricTimeUs:
		if t, ok := x.rooflineTime(e, cand, shape); ok {
			return f(t * 1e6)
		}
	case MetricSpeedup:
		tc, ok1 := x.rooflineTime(e, cand, shape)
		tb, ok2 := x.rooflineTime(e, base, shape)
		if ok1 && ok2 {
			return f(tb / tc)
		}
	}
	return nil
}

// ceiling returns a roof of the run by name, preferring the device's own
// (ncu), then measured, then catalog figures.
func (x *index) ceiling(name string) (float64, bool) {
	if x.run == nil {
		return 0, false
	}
	for _, pre := range []string{"device", "measured", "catalog", ""} {
		if c, ok := x.run.Ceilings.Get(name, pre); ok && c.Value > 0 {
			return c.Value, true
		}
	}
	return 0, false
}

// computeRoof names the compute ceiling of a dtype.
func computeRoof(dtype string) string {
	switch dtype {
	case "bf16", "fp16", "fp8", "tf32":
		return "tensor " + dtype
	}
	return dtype
}

// rooflineTime is the roofline lower bound of a variant's run time under
// its models, in seconds.
func (x *index) rooflineTime(e *kernels.Experiment, variant, shape string) (float64, bool) {
	th, ok := e.Theory[variant]
	if !ok {
		return 0, false
	}
	b, fl, err := EvalTheory(th, shape)
	if err != nil || b <= 0 || fl <= 0 {
		return 0, false
	}
	bw, ok1 := x.ceiling(analysis.CeilDRAM)
	peak, ok2 := x.ceiling(computeRoof(e.DType))
	if !ok1 || !ok2 {
		return 0, false
	}
	return math.Max(b/bw, fl/peak), true
}

// comparison returns analysis's comparison of cand against base at shape,
// or, where analysis made none (it compares with an experiment's first
// baseline only; a forward+backward candidate has its own), one derived the
// same way from the two cells' wall-time samples.
func (x *index) comparison(exp, shape, base, cand string) *analysis.Comparison {
	k := key(exp, shape, base, cand)
	if c := x.comps[k]; c != nil {
		return c
	}
	bc, cc := x.cells[key(exp, base, shape)], x.cells[key(exp, cand, shape)]
	if bc == nil || cc == nil || len(bc.WallSamplesMs) == 0 || len(cc.WallSamplesMs) == 0 {
		return nil
	}
	c := &analysis.Comparison{Experiment: exp, Shape: shape, Baseline: base, Candidate: cand,
		Speedup: analysis.SpeedupInterval(bc.Wall, cc.Wall), KernelDelta: cc.Kernels - bc.Kernels}
	p, ws := analysis.MannWhitneyP(bc.WallSamplesMs, cc.WallSamplesMs, 0.05)
	c.P, c.Significant, c.Warnings = p, p < 0.05, ws
	if n := min(len(bc.WallSamplesMs), len(cc.WallSamplesMs)); n < 6 {
		c.Warnings = append(c.Warnings, analysis.Warning{Code: analysis.WarnFewSamples, Metric: MetricSpeedup,
			Msg: fmt.Sprintf("%d timing samples in the smaller cell, fewer than 6", n)})
	}
	if bb, cb := bc.DRAMBytesRange, cc.DRAMBytesRange; bb > 0 && cb > 0 {
		c.DRAMRatio = cb / bb
		c.DRAMReduction = 1 - c.DRAMRatio
	}
	x.comps[k] = c
	return c
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

// elementwiseCount is the number of a cell's kernels without tensor work:
// from the ncu kernel pass's tensor counters where that pass saw as many
// kernels as the cell has (a measurement), else analysis's count (nsys
// kernel names matched to ncu, else a name heuristic).
func (x *index) elementwiseCount(c *analysis.CellFact) (int, string) {
	ks := x.kernels[key(c.Experiment, c.Variant, c.Shape)]
	if len(ks) == 0 || len(ks) != c.Kernels {
		return c.ElementwiseKernels, "" // the passes disagree on the kernels: keep analysis's count
	}
	n := 0
	for _, k := range ks {
		if k.Elementwise {
			n++
		}
	}
	return n, fmt.Sprintf("of %d kernels in the ncu kernel pass (tensor counters)", len(ks))
}

// clockCheck looks at the SM clocks read after the two cells' timing
// passes. Where they differ, a compute-bound candidate's time could be off
// by up to the clock ratio, so the speedup corrected for clocks lies
// between the measured interval and that interval scaled by
// f_baseline/f_candidate. When that wider interval would not give the same
// verdict, the clocks void the speedup (a clocks-differ warning); when it
// would, a note says so.
func (x *index) clockCheck(exp, shape, base, cand string, m Value, op string, thr float64, verdict string) (*analysis.Warning, string) {
	fb, fc := x.clocks[key(exp, base, shape)], x.clocks[key(exp, cand, shape)]
	if fb <= 0 || fc <= 0 || fb == fc {
		return nil, ""
	}
	k := fb / fc
	w := Value{Center: m.Center, Lo: math.Min(m.Lo, m.Lo*k), Hi: math.Max(m.Hi, m.Hi*k), N: m.N}
	if unbounded(m.Hi) {
		w.Hi = m.Hi
	}
	if v, _ := judge(MetricSpeedup, w, op, thr); v == verdict {
		return nil, fmt.Sprintf("SM clocks after timing %.0f MHz (%s) and %.0f MHz (%s): a clock correction would not change the verdict", fb, base, fc, cand)
	}
	return &analysis.Warning{Code: analysis.WarnClocks, Metric: MetricSpeedup,
		Msg: fmt.Sprintf("SM clock after timing was %.0f MHz for %s and %.0f MHz for %s; corrected for clocks the speedup could lie anywhere in [%s, %s]",
			fb, base, fc, cand, boundStr(MetricSpeedup, w.Lo), boundStr(MetricSpeedup, w.Hi))}, ""
}
