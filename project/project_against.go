package project

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
)

// A projection set against a measured run of the target GPU: the error of
// each measure and kernel class beside the naive and boost-clock ones.

func (p *Projection) index() map[cellkey.Key]int {
	idx := map[cellkey.Key]int{}
	for i, c := range p.Cells {
		idx[c.Key()] = i
	}
	return idx
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Against compares the projection with a run measured on the target GPU
// (same experiments and shapes): each cell both hold gets the measured
// figures the run has (ncu kernel sum, nsys GPU time, graph-replay device
// time, wall time) with the error of the projection and of the naive one
// (the source's figure unchanged), each speedup both runs can form gets
// Measured, and p.Errors sum up each measure; p.KernelErrors and
// p.TargetClock compare the kernels the target ran under the same names.
// name names the measured run.
func (p *Projection) Against(name string, measured *analysis.Run) {
	p.AgainstRun, p.AgainstGPU = name, measured.GPU
	cells := map[cellkey.Key]analysis.CellFact{}
	for _, c := range measured.Cells {
		cells[c.Key()] = c
	}
	kernels := map[cellkey.Key][]analysis.KernelFact{}
	for _, k := range measured.Kernels {
		kernels[k.Key()] = append(kernels[k.Key()], k)
	}
	accs, kaccs := errAccs{}, errAccs{}
	var clocks []float64
	add := func(measure string, cell, note string, proj, boost, src, meas float64, e, ne **float64) {
		if proj <= 0 || meas <= 0 {
			return
		}
		v, nv := proj/meas-1, src/meas-1
		*e, *ne = &v, &nv
		accs.of(measure).add(v, nv, boost/meas-1, cell, note)
	}
	for i := range p.Cells {
		c := &p.Cells[i]
		key := c.Key()
		mc, ok := cells[key]
		if !ok {
			continue
		}
		cell := key.String()
		there := kernels[key]
		var here, thereNames []string
		for _, k := range c.Kernels {
			here = append(here, k.Name)
		}
		for _, k := range there {
			thereNames = append(thereNames, k.ShortName)
		}
		if d := namesApart(here, thereNames); d > 0 {
			c.TargetNote = fmt.Sprintf("the target ran other kernels: %d of its %d have no namesake among the source's %d", d, len(there), len(here))
		}
		// Kernels the target ran under the same name at the same place.
		if len(there) == len(c.Kernels) {
			for i, k := range c.Kernels {
				tk := there[i]
				if tk.ShortName != k.Name || tk.DurationNs <= 0 || k.MeasuredNs <= 0 {
					continue
				}
				v, nv, bv := k.ProjectedNs/tk.DurationNs-1, k.MeasuredNs/tk.DurationNs-1, k.ProjectedBoostNs/tk.DurationNs-1
				at := fmt.Sprintf("%s #%d %s", cell, i+1, k.Name)
				kaccs.of(k.Class).add(v, nv, bv, at, "")
				kaccs.of(ClassAll).add(v, nv, bv, at, "")
				if k.SMClockMHz > 0 && tk.SMClockHz > 0 {
					clocks = append(clocks, tk.SMClockHz/1e6/k.SMClockMHz)
				}
			}
		}
		// The boost-clock projection of each measure: the kernel sums' ratio
		// applied to the part the projection scales.
		boost := 1.0
		if c.ProjectedKernelMs > 0 {
			boost = c.ProjectedKernelBoostMs / c.ProjectedKernelMs
		}
		c.MeasuredKernelMs = mc.KernelPassTimeNs / 1e6
		add(ErrKernels, cell, c.TargetNote, c.ProjectedKernelMs, c.ProjectedKernelBoostMs, c.SourceKernelMs, c.MeasuredKernelMs, &c.KernelError, &c.NaiveErrors.Kernel)
		if analysis.HasTimeline(mc) {
			c.MeasuredGPUMs = mc.GPUTimeNs / 1e6
			add(ErrGPU, cell, c.TargetNote, c.ProjectedGPUMs, c.ProjectedGPUMs*boost, c.SourceGPUMs, c.MeasuredGPUMs, &c.GPUError, &c.NaiveErrors.GPU)
		}
		if mc.Device.N > 0 {
			c.MeasuredDeviceMs = mc.Device.Center
			add(ErrDevice, cell, c.TargetNote, c.ProjectedDeviceMs, c.ProjectedDeviceMs*boost, c.SourceDeviceMs, c.MeasuredDeviceMs, &c.DeviceError, &c.NaiveErrors.Device)
		}
		if mc.Wall.N > 0 {
			c.MeasuredWallMs = mc.Wall.Center
			dev := c.ProjectedWallMs - c.OverheadMs
			add(ErrWall, cell, c.TargetNote, c.ProjectedWallMs, c.OverheadMs+dev*boost, c.SourceWallMs, c.MeasuredWallMs, &c.WallError, &c.NaiveErrors.Wall)
		}
	}
	for i := range p.Speedups {
		s := &p.Speedups[i]
		b := cells[s.BaselineKey()]
		c := cells[s.CandidateKey()]
		if b.KernelPassTimeNs > 0 && c.KernelPassTimeNs > 0 {
			s.Measured = b.KernelPassTimeNs / c.KernelPassTimeNs
		}
	}
	p.Errors, p.KernelErrors, p.TargetClock = nil, nil, nil
	for _, measure := range []string{ErrKernels, ErrGPU, ErrDevice, ErrWall} {
		if a := accs[measure]; a != nil {
			p.Errors = append(p.Errors, a.summary(measure))
		}
	}
	for _, cl := range []string{ProjBandwidth, ProjCompute, ProjLatency, ClassAll} {
		if a := kaccs[cl]; a != nil {
			p.KernelErrors = append(p.KernelErrors, a.summary(cl))
		}
	}
	if len(clocks) > 0 {
		cc := &ClockCheck{N: len(clocks), Median: analysis.Median(clocks), Min: slices.Min(clocks), Max: slices.Max(clocks), Assumed: 1}
		if p.Model.SourceBoostMHz > 0 && p.Model.TargetBoostMHz > 0 {
			cc.Assumed = p.Model.TargetBoostMHz / p.Model.SourceBoostMHz
		}
		p.TargetClock = cc
	}
	if len(p.Errors) == 0 {
		p.Warnings = append(p.Warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "error",
			Msg: "run " + name + " measured no projected cell: no error to state"})
	}
}

// errAcc gathers the errors of one measure, cell by cell (or kernel by
// kernel), with those of the naive and of the boost-clock projection.
type errAcc struct {
	errs, naive, boost []float64
	cells, notes       []string
}

type errAccs map[string]*errAcc

func (m errAccs) of(name string) *errAcc {
	if m[name] == nil {
		m[name] = &errAcc{}
	}
	return m[name]
}

func (a *errAcc) add(v, naive, boost float64, cell, note string) {
	a.errs, a.naive, a.boost = append(a.errs, v), append(a.naive, naive), append(a.boost, boost)
	a.cells, a.notes = append(a.cells, cell), append(a.notes, note)
}

func (a *errAcc) summary(measure string) ProjectionError {
	e := ProjectionError{Measure: measure, N: len(a.errs)}
	e.Median, e.MedianAbs = analysis.Median(a.errs), medianAbs(a.errs)
	i := worstIndex(a.errs)
	e.Worst, e.WorstCell, e.WorstNote = a.errs[i], a.cells[i], a.notes[i]
	e.NaiveMedianAbs = medianAbs(a.naive)
	j := worstIndex(a.naive)
	e.NaiveWorst, e.NaiveWorstCell = a.naive[j], a.cells[j]
	e.BoostMedianAbs = medianAbs(a.boost)
	return e
}

// Error returns the summary of one measure (nil: none).
func (p *Projection) Error(measure string) *ProjectionError {
	for i := range p.Errors {
		if p.Errors[i].Measure == measure {
			return &p.Errors[i]
		}
	}
	return nil
}

func medianAbs(xs []float64) float64 {
	abs := make([]float64, len(xs))
	for i, v := range xs {
		abs[i] = math.Abs(v)
	}
	return analysis.Median(abs)
}

// worstIndex is the index of the value of largest magnitude (the first of
// equals).
func worstIndex(xs []float64) int {
	w := 0
	for i, v := range xs {
		if math.Abs(v) > math.Abs(xs[w]) {
			w = i
		}
	}
	return w
}

// namesApart counts the names of b that a does not hold (as many times).
func namesApart(a, b []string) int {
	have := map[string]int{}
	for _, n := range a {
		have[n]++
	}
	d := 0
	for _, n := range b {
		if have[n] > 0 {
			have[n]--
		} else {
			d++
		}
	}
	return d
}
