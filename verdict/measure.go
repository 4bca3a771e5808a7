package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/spec"
)

// dramOf is a cell's DRAM bytes (analysis.CellFact.DRAM).
func dramOf(c *analysis.CellFact) (float64, string) {
	if c == nil {
		return 0, ""
	}
	return c.DRAM()
}

// measure returns the claim metric's measured value, or why it has none,
// and a note on how it was measured (metricTable's measure).
func (x *index) measure(e *spec.Experiment, metric, cand, base, shape string) (v Value, missing, note string) {
	r, ok := metricOf(metric)
	if !ok {
		return v, fmt.Sprintf("claims.yaml: unknown metric %q (want one of %s)", metric, strings.Join(Metrics, ", ")), ""
	}
	return r.measure(x, e, cand, base, shape)
}

// okCell reports whether a cell has data a verdict may use.
func okCell(c *analysis.CellFact) bool {
	return c != nil && c.Status != cellMissing && c.Status != rundir.StatusFailed && c.Status != rundir.StatusSkipped
}

func (x *index) cellsOf(e *spec.Experiment, cand, base, shape string) (cc, bc *analysis.CellFact) {
	return x.cells[cellkey.New(e.Name, cand, shape)], x.cells[cellkey.New(e.Name, base, shape)]
}

func (x *index) measureSpeedup(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, bc := x.cellsOf(e, cand, base, shape)
	launch := launchFor(bc, cc)
	x.judged = judged{launch: launch}
	if p := x.pairedFor(MetricSpeedup, e.Name, shape, base, cand, launch); p != nil {
		return Value{Center: p.Speedup.Center, Lo: p.Speedup.Lo, Hi: p.Speedup.Hi, N: p.Speedup.N}, "", pairedNote(p)
	}
	if launch == analysis.LaunchGraph {
		s, ws := analysis.RatioInterval(bc.DeviceSamplesMs, cc.DeviceSamplesMs, analysis.DefaultStats().Confidence)
		for _, w := range ws {
			w.Metric = MetricSpeedup
			x.extra = append(x.extra, w)
		}
		note = "both cells launched as a CUDA graph (host-bound when launched eagerly), separate timing loops"
		if cmp := x.comparison(e.Name, shape, base, cand); cmp != nil && cmp.Speedup.N > 0 {
			note += fmt.Sprintf("; eager wall-time speedup %s", figure.Ratio(cmp.Speedup.Center))
		}
		return Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N}, "", note
	}
	cmp := x.comparison(e.Name, shape, base, cand)
	if cmp == nil || cmp.Speedup.N == 0 {
		if !okCell(bc) || bc.Wall.N == 0 {
			return v, x.whyMissing(e.Name, base, shape, MetricSpeedup, "wall-time samples"), ""
		}
		return v, x.whyMissing(e.Name, cand, shape, MetricSpeedup, "wall-time samples"), ""
	}
	s := cmp.Speedup
	note = fmt.Sprintf("wall time, p%s, n=%d", pvalEq(cmp.P), s.N)
	if dv, how, ok := deviceSpeedup(bc, cc); ok {
		note += fmt.Sprintf("; device-time speedup %s (%s)", figure.Ratio(dv.Center), how)
	}
	return Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N}, "", note
}

// deviceSpeedup is base / cand device time: from the timing pass's
// CUDA-graph replays where both cells have them (an interval), else from
// the cells' kernel sums (one profiled call each: a point, n=1).
func deviceSpeedup(bc, cc *analysis.CellFact) (Value, string, bool) {
	if !okCell(bc) || !okCell(cc) {
		return Value{}, "", false
	}
	if bc.Device.N > 0 && cc.Device.N > 0 {
		s, _ := analysis.RatioInterval(bc.DeviceSamplesMs, cc.DeviceSamplesMs, analysis.DefaultStats().Confidence)
		return Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N}, "CUDA-graph replay, timing pass", true
	}
	bd, _ := bc.DeviceTimeMs()
	cd, _ := cc.DeviceTimeMs()
	if bd <= 0 || cd <= 0 {
		return Value{}, "", false
	}
	v := bd / cd
	return Value{Center: v, Lo: v, Hi: v, N: 1}, "kernel sums of one profiled call", true
}

func (x *index) measureGPUSpeedup(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, bc := x.cellsOf(e, cand, base, shape)
	x.judged = judged{launch: analysis.LaunchGraph}
	if p := x.pairedFor(MetricGPUSpeedup, e.Name, shape, base, cand, analysis.LaunchGraph); p != nil {
		return Value{Center: p.Speedup.Center, Lo: p.Speedup.Lo, Hi: p.Speedup.Hi, N: p.Speedup.N}, "", "device time, " + pairedNote(p)
	}
	dv, how, ok := deviceSpeedup(bc, cc)
	if !ok {
		if !okCell(bc) {
			return v, x.whyMissing(e.Name, base, shape, MetricGPUSpeedup, "device time"), ""
		}
		return v, x.whyMissing(e.Name, cand, shape, MetricGPUSpeedup, "device time"), ""
	}
	note = "device time, " + how
	if dv.N == 1 {
		x.extra = append(x.extra, analysis.Warning{Code: analysis.WarnFewSamples, Metric: MetricGPUSpeedup,
			Msg: "device time from one profiled call per cell (this run's timing pass has no CUDA-graph replays): no interval"})
	}
	if cmp := x.comparison(e.Name, shape, base, cand); cmp != nil && cmp.Speedup.N > 0 {
		note += fmt.Sprintf("; wall-time speedup %s", figure.Ratio(cmp.Speedup.Center))
	}
	return dv, "", note
}

func (x *index) measureTime(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, _ := x.cellsOf(e, cand, base, shape)
	if !okCell(cc) || cc.Wall.N == 0 {
		return v, x.whyMissing(e.Name, cand, shape, MetricTimeUs, "wall-time samples"), ""
	}
	w := cc.Wall
	note = fmt.Sprintf("n=%d", w.N)
	if d, how := cc.DeviceTimeMs(); d > 0 {
		note += fmt.Sprintf("; device time %s (%s)", figure.SI(d/1e3, "s"), how)
	}
	return Value{Center: w.Center * 1e3, Lo: w.Lo * 1e3, Hi: w.Hi * 1e3, N: w.N}, "", note
}

func (x *index) measureKernelCount(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, _ := x.cellsOf(e, cand, base, shape)
	if !okCell(cc) || cc.Kernels == 0 {
		return v, x.whyMissing(e.Name, cand, shape, MetricKernelCount, "kernel count"), ""
	}
	return point(float64(cc.Kernels)), "", ""
}

func (x *index) measureElementwiseKernels(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, _ := x.cellsOf(e, cand, base, shape)
	if !okCell(cc) || cc.Kernels == 0 {
		return v, x.whyMissing(e.Name, cand, shape, MetricElementwiseKernels, "kernel count"), ""
	}
	n, how := x.elementwiseCount(cc)
	if how == "" {
		how = fmt.Sprintf("of %d kernels", cc.Kernels)
	}
	return point(float64(n)), "", how
}

func (x *index) measureKernelReduction(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, bc := x.cellsOf(e, cand, base, shape)
	if !okCell(bc) || bc.Kernels == 0 {
		return v, x.whyMissing(e.Name, base, shape, MetricKernelReduction, "kernel count"), ""
	}
	if !okCell(cc) || cc.Kernels == 0 {
		return v, x.whyMissing(e.Name, cand, shape, MetricKernelReduction, "kernel count"), ""
	}
	return point(float64(bc.Kernels - cc.Kernels)), "", fmt.Sprintf("%d -> %d kernels", bc.Kernels, cc.Kernels)
}

func (x *index) measureDRAMRatio(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, bc := x.cellsOf(e, cand, base, shape)
	bb, bn := dramOf(bc)
	if !okCell(bc) || bb == 0 {
		return v, x.whyMissing(e.Name, base, shape, MetricDRAMRatio, "DRAM bytes"), ""
	}
	cb, cn := dramOf(cc)
	if !okCell(cc) || cb == 0 {
		return v, x.whyMissing(e.Name, cand, shape, MetricDRAMRatio, "DRAM bytes"), ""
	}
	if bn != "" || cn != "" {
		note = "DRAM bytes " + firstNonEmpty(bn, cn)
	}
	cv, bv := dramValue(cc), dramValue(bc)
	note = joinNote(fmt.Sprintf("%s / %s", figure.Bytes(cb), figure.Bytes(bb)), note)
	if cv.N > 1 && bv.N > 1 {
		note = joinNote(note, fmt.Sprintf("%s: %s; %s: %s", cand, spreadNote(cv), base, spreadNote(bv)))
	}
	if l2b, l2c := l2Of(bc), l2Of(cc); l2b > 0 && l2c > 0 {
		note = joinNote(note, fmt.Sprintf("L2 bytes %s / %s = %s", figure.Bytes(l2c), figure.Bytes(l2b), figure.Ratio(l2c/l2b)))
	}
	return dramRatio(cv, bv), "", note
}

// l2Of is a cell's L2 traffic: the range pass where it covers the cell,
// else the sum over the kernel pass.
func l2Of(c *analysis.CellFact) float64 {
	if c == nil {
		return 0
	}
	if c.RangeL2Bytes > 0 && !c.RangePartial {
		return c.RangeL2Bytes
	}
	return c.L2Bytes
}

func (x *index) measureDRAMReduction(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	v, missing, note = x.measureDRAMRatio(e, cand, base, shape)
	if missing == "" {
		v = valueOf(spec.DRAMReduction(spreadOf(v)))
	}
	return v, missing, note
}

func (x *index) measureDRAMBytes(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	cc, _ := x.cellsOf(e, cand, base, shape)
	cb, cn := dramOf(cc)
	if !okCell(cc) || cb == 0 {
		return v, x.whyMissing(e.Name, cand, shape, MetricDRAMBytes, "DRAM bytes"), ""
	}
	v = dramValue(cc)
	return v, "", joinNote(cn, spreadNote(v))
}

// measureRelError is the candidate's error against the baseline's output
// on the same inputs, as the seeds state it, with the error against the
// float32 reference beside it. A run whose check pass measured only the
// latter shows it, voided (missing-metric): it is not what the claim states.
func (x *index) measureRelError(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	ck := x.checks[cellkey.New(e.Name, cand, shape)]
	if ck == nil || ck.MaxRelErr == nil {
		if ck != nil && ck.Error != "" {
			return v, cand + ": check: " + ck.Error, ""
		}
		return v, x.whyMissing(e.Name, cand, shape, MetricRelError, "check result"), ""
	}
	ref := *ck.MaxRelErr
	if math.IsNaN(ref) || math.IsInf(ref, 0) {
		return v, fmt.Sprintf("%s: check gave a max relative error of %v", cand, ref), ""
	}
	refNote := fmt.Sprintf("against the float32 reference %.2e", ref)
	if vb := ck.VsBaseline; vb != nil && vb.RelErr != nil && !math.IsNaN(*vb.RelErr) {
		return point(*vb.RelErr), "", fmt.Sprintf("against %s's output (check pass); %s", vb.Baseline, refNote)
	}
	why := "the check pass measured error against a float32 reference only"
	if ck.VsBaselineError != "" {
		why = "no error against the baseline's output: " + ck.VsBaselineError
	}
	x.extra = append(x.extra, analysis.Warning{Code: analysis.WarnMissing, Metric: MetricRelError,
		Msg: why + "; the seed states error against the unfused output"})
	how := "max relative error against the float32 reference (check pass)"
	if ck.Metric != "" {
		how += ": " + ck.Metric
	}
	return point(ref), "", how
}

// elementwiseDRAM measures the seed-000 style "elementwise traffic" ratio
// from the ncu kernel pass: the baseline's elementwise kernels carry its
// elementwise traffic; the candidate's is what its kernels move beyond the
// baseline's GEMM kernels (GEMM traffic taken as unchanged).
func (x *index) elementwiseDRAM(e *spec.Experiment, cand, base, shape string) (v Value, missing, note string) {
	bk := x.kernels[cellkey.New(e.Name, base, shape)]
	ck := x.kernels[cellkey.New(e.Name, cand, shape)]
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
	note = fmt.Sprintf("baseline elementwise %s, GEMM %s; candidate total %s (ncu kernel pass)", figure.Bytes(bElem), figure.Bytes(bGEMM), figure.Bytes(cTotal))
	if cElem < 0 {
		note += "; candidate moves less than the baseline's GEMMs alone: ratio taken as 0"
		cElem = 0
	}
	return point(cElem / bElem), "", note
}

// elementwiseCount is the number of a cell's kernels without tensor work:
// from the ncu kernel pass's tensor counters where that pass saw as many
// kernels as the cell has (a measurement), else analysis's count (nsys
// kernel names matched to ncu, else a name heuristic).
func (x *index) elementwiseCount(c *analysis.CellFact) (int, string) {
	ks := x.kernels[c.Key()]
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

// theoryOf is the claim metric under the claims.yaml models, if they give
// one (metricTable's theory). For speedup and time_us it is the roofline
// bound of the models: t = max(DRAM bytes / DRAM roof, FLOPs / compute roof
// of the experiment's dtype), so a reader sees the floor a latency target
// has to beat.
func (x *index) theoryOf(e *spec.Experiment, metric, cand, base, shape string) *float64 {
	r, ok := metricOf(metric)
	if !ok || r.theory == nil {
		return nil
	}
	t := r.theory(x, e, cand, base, shape)
	if t != nil && metric == MetricDRAMReduction {
		v := 1 - *t
		return &v
	}
	return t
}

// theoryDRAM is a variant's DRAM bytes under its model.
func theoryDRAM(e *spec.Experiment, v, shape string) (float64, bool) {
	th, has := e.Theory[v]
	if !has || th.DRAMBytes == "" {
		return 0, false
	}
	b, _, err := analysis.EvalTheory(th, shape)
	return b, err == nil && b > 0
}

func ptr(v float64) *float64 { return &v }

func (x *index) theoryDRAMRatio(e *spec.Experiment, cand, base, shape string) *float64 {
	cb, ok1 := theoryDRAM(e, cand, shape)
	bb, ok2 := theoryDRAM(e, base, shape)
	if !ok1 || !ok2 {
		return nil
	}
	return ptr(cb / bb)
}

func (x *index) theoryDRAMBytes(e *spec.Experiment, cand, base, shape string) *float64 {
	if cb, ok := theoryDRAM(e, cand, shape); ok {
		return ptr(cb)
	}
	return nil
}

func (x *index) theoryKernelCount(e *spec.Experiment, cand, base, shape string) *float64 {
	if v := e.Variant(cand); v != nil && v.Kernels > 0 {
		return ptr(float64(v.Kernels))
	}
	return nil
}

func (x *index) theoryKernelReduction(e *spec.Experiment, cand, base, shape string) *float64 {
	cv, bv := e.Variant(cand), e.Variant(base)
	if cv != nil && bv != nil && cv.Kernels > 0 && bv.Kernels > 0 {
		return ptr(float64(bv.Kernels - cv.Kernels))
	}
	return nil
}

func (x *index) theoryTime(e *spec.Experiment, cand, base, shape string) *float64 {
	if t, ok := x.rooflineTime(e, cand, shape); ok {
		return ptr(t * 1e6)
	}
	return nil
}

func (x *index) theorySpeedup(e *spec.Experiment, cand, base, shape string) *float64 {
	tc, ok1 := x.rooflineTime(e, cand, shape)
	tb, ok2 := x.rooflineTime(e, base, shape)
	if ok1 && ok2 {
		return ptr(tb / tc)
	}
	return nil
}

// ceiling returns a roof of the run by name, preferring the device's own
// (ncu), then measured, then catalog figures (gpu.DeviceMeasuredCatalog).
func (x *index) ceiling(name string) (float64, bool) {
	if x.run == nil {
		return 0, false
	}
	c, ok := x.run.Ceilings.Best(name, gpu.DeviceMeasuredCatalog)
	return c.Value, ok
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
func (x *index) rooflineTime(e *spec.Experiment, variant, shape string) (float64, bool) {
	th, ok := e.Theory[variant]
	if !ok {
		return 0, false
	}
	b, fl, err := analysis.EvalTheory(th, shape)
	if err != nil || b <= 0 || fl <= 0 {
		return 0, false
	}
	bw, ok1 := x.ceiling(gpu.CeilDRAM)
	peak, ok2 := x.ceiling(computeRoof(e.DType))
	if !ok1 || !ok2 {
		return 0, false
	}
	return math.Max(b/bw, fl/peak), true
}
