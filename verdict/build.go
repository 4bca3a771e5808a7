package verdict

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
)

// Build judges a run loaded and analysed by package pipeline (Run and
// Experiments are required; the rest may be zero): the verdict of every
// claim of every experiment at each of its shapes (claims are never
// dropped: one without a measurement is NOT MEASURED with the reason),
// each experiment's per-shape tables, and from the verdicts the answer
// table. It reads res and changes nothing in it; it is deterministic.
func Build(res *pipeline.Result) *Result {
	x := newIndex(res.Run, res.Manifest, res.Checks)
	x.clocks, x.deviceClocks = res.CellSMClocks, res.CellDeviceSMClocks
	x.paired = res.Paired
	r := &Result{}
	if res.Run != nil {
		r.Warnings = append(r.Warnings, res.Run.Warnings...)
	}
	r.Warnings = append(r.Warnings, res.Warnings...)
	r.Warnings = dedupe(r.Warnings)
	exps := append([]*spec.Experiment(nil), res.Experiments...)
	sort.SliceStable(exps, func(i, j int) bool { return exps[i].Name < exps[j].Name })
	for _, e := range exps {
		for _, c := range e.Claims {
			for _, s := range x.shapesFor(e, c) {
				r.Decisions = append(r.Decisions, x.decide(e, c, s))
			}
		}
		r.Experiments = append(r.Experiments, x.experiment(e))
	}
	r.Answer = answers(r.Decisions, r.Experiments)
	return r
}

// dedupe lists each warning of ws once, in order.
func dedupe(ws []analysis.Warning) []analysis.Warning {
	seen := map[analysis.Warning]bool{}
	var out []analysis.Warning
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// experiment is what e's verdicts were judged on (Experiment).
func (x *index) experiment(e *spec.Experiment) Experiment {
	je := Experiment{Spec: e, Name: e.Name, InRun: x.inRun[e.Name]}
	var ws []analysis.Warning
	// A comparison's warning that repeats one of its cells' (host-bound
	// names the cell whose wall time is host overhead) is listed once, as
	// the cell's.
	type said struct{ code, shape, msg string }
	cellSaid := map[said]bool{}
	for _, s := range x.shapesOf(e) {
		sr := ShapeTable{Shape: s}
		for _, v := range e.Variants {
			row, cw := x.row(e, v, s)
			sr.Rows = append(sr.Rows, row)
			for _, w := range cw {
				cellSaid[said{w.Code, s, w.Msg}] = true
				if !strings.Contains(w.Msg, v.Name+" at "+s) {
					w.Msg = v.Name + " at " + s + ": " + w.Msg
				}
				ws = append(ws, w)
			}
		}
		je.Shapes = append(je.Shapes, sr)
	}
	if x.run != nil {
		for _, c := range x.run.Comparisons {
			if c.Experiment == e.Name {
				for _, w := range c.Warnings {
					if cellSaid[said{w.Code, c.Shape, w.Msg}] {
						continue
					}
					w.Msg = c.Candidate + " vs " + c.Baseline + " at " + c.Shape + ": " + w.Msg
					ws = append(ws, w)
				}
			}
		}
	}
	je.Quality = x.quality(e)
	je.FusionBest = x.fusionBest(e, je.Quality)
	je.Warnings = dedupe(ws)
	return je
}

// shapesOf lists the experiment's shapes that the run has, in spec order
// (default grid, then sweeps), then any others the run has, sorted.
func (x *index) shapesOf(e *spec.Experiment) []string {
	has := map[string]bool{}
	for k := range x.cells {
		if k.Experiment == e.Name {
			has[k.Shape] = true
		}
	}
	for k := range x.manCells {
		if k.Experiment == e.Name {
			has[k.Shape] = true
		}
	}
	var out []string
	for _, s := range e.AllShapes() {
		if has[s] {
			out = append(out, s)
			delete(has, s)
		}
	}
	var rest []string
	for s := range has {
		rest = append(rest, s)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func (x *index) row(e *spec.Experiment, v spec.Variant, shape string) (CellRow, []analysis.Warning) {
	row := CellRow{Variant: v.Name, Role: v.Role}
	row.Status, row.Reason = x.status(e.Name, v.Name, shape)
	if th, ok := e.Theory[v.Name]; ok {
		if b, f, err := analysis.EvalTheory(th, shape); err == nil {
			row.TheoryDRAMBytes, row.TheoryFLOPs = b, f
		} else {
			row.Reason = joinNote(row.Reason, "theory: "+err.Error())
		}
	}
	row.TimingSMMHz = x.clocks[cellkey.New(e.Name, v.Name, shape)]
	if ck := x.checks[cellkey.New(e.Name, v.Name, shape)]; ck != nil && ck.MaxRelErr != nil {
		r := *ck.MaxRelErr
		row.RelError = &r
	}
	c := x.cells[cellkey.New(e.Name, v.Name, shape)]
	if c == nil {
		return row, nil
	}
	row.Kernels, row.GPUTimeNs = c.Kernels, c.GPUTimeNs
	row.ElementwiseKernels, _ = x.elementwiseCount(c)
	row.KernelNames = append([]string(nil), c.KernelNames...)
	if c.Wall.N > 0 {
		row.WallMs = &Value{Center: c.Wall.Center, Lo: c.Wall.Lo, Hi: c.Wall.Hi, N: c.Wall.N}
	}
	if c.Device.N > 0 {
		row.DeviceMs = &Value{Center: c.Device.Center, Lo: c.Device.Lo, Hi: c.Device.Hi, N: c.Device.N}
	}
	if c.HostRatio > 0 {
		hr := c.HostRatio
		row.HostRatio = &hr
	}
	if c.Wall.N > 0 {
		row.LaunchMethod, row.LaunchError = c.LaunchMethod, c.LaunchError
	}
	row.RangeCoverage = c.RangeCoverage
	row.RangeProcess = analysis.RangeProcessWord(c.RangeProcess)
	row.BoundFraction = x.boundFraction(e, v.Name, shape)
	row.DRAMBytes, row.DRAMBytesKernels, row.L2Bytes, row.FLOPs, row.Class = c.DRAMBytesRange, c.DRAMBytesKernels, c.L2Bytes, c.FLOPs, c.Class
	if c.DRAMBytesRange > 0 {
		row.DRAMBytesReplays = c.DRAMBytesRangeReplays
	}
	if l2 := l2Of(c); l2 != c.L2Bytes {
		row.RangeL2Bytes = l2
	}
	if row.TheoryDRAMBytes == 0 {
		row.TheoryDRAMBytes = c.TheoryDRAMBytes
	}
	if row.TheoryFLOPs == 0 {
		row.TheoryFLOPs = c.TheoryFLOPs
	}
	ws := append([]analysis.Warning(nil), c.Warnings...)
	if meas, _ := dramOf(c); meas > 0 && row.TheoryDRAMBytes > 0 {
		mr := meas / row.TheoryDRAMBytes
		row.ModelRatio = &mr
		if mr < ModelLo || mr > ModelHi {
			has := false
			for _, w := range ws {
				has = has || w.Code == analysis.WarnModelMismatch
			}
			if !has {
				ws = append(ws, analysis.Warning{Code: analysis.WarnModelMismatch,
					Msg: fmt.Sprintf("%s at %s: measured DRAM %s is %s the model's %s (outside %sx..%sx)",
						v.Name, shape, figure.Bytes(meas), figure.Ratio(mr), figure.Bytes(row.TheoryDRAMBytes), figure.Num(ModelLo), figure.Num(ModelHi))})
			}
		}
	}
	if v.Role == spec.RoleCandidate {
		if cmp := x.comparison(e.Name, shape, e.BaselineFor(v.Name), v.Name); cmp != nil && cmp.Speedup.N > 0 {
			s := cmp.Speedup
			row.Speedup = &Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N}
			p := cmp.P
			row.P = &p
		}
	}
	seen := map[string]bool{}
	for _, w := range ws {
		if !seen[w.Code] {
			seen[w.Code] = true
			row.Warnings = append(row.Warnings, w.Code)
		}
	}
	sort.Strings(row.Warnings)
	return row, ws
}
