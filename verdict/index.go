package verdict

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
)

// cellMissing is CellFact.Status for a cell of the spec without data.
const cellMissing = "missing"

// index gives fast access to a run's facts.
type index struct {
	run          *analysis.Run
	man          *rundir.Manifest
	cells        map[cellkey.Key]*analysis.CellFact
	comps        map[compKey]*analysis.Comparison
	kernels      map[cellkey.Key][]*analysis.KernelFact
	checks       map[cellkey.Key]*pipeline.Check
	inRun        map[string]bool // experiment has cells in the run
	manCells     map[cellkey.Key]*rundir.Cell
	clocks       map[cellkey.Key]float64     // SM MHz of each cell's timed loop (median of its samples)
	deviceClocks map[cellkey.Key]float64     // SM MHz of each cell's device-time loop, where sampled
	extra        []analysis.Warning          // warnings of the decision being made
	loops        map[compKey]mainLoopsResult // main-loop comparisons made so far (mainLoops)
	paired       map[analysis.PairKey]*analysis.Paired
	judged       judged // how the speedup of the decision being made was timed
}

// compKey identifies a comparison: candidate against baseline at one shape
// of one experiment.
type compKey struct{ experiment, shape, baseline, candidate string }

func newIndex(run *analysis.Run, man *rundir.Manifest, checks []pipeline.Check) *index {
	x := &index{run: run, man: man, cells: map[cellkey.Key]*analysis.CellFact{}, comps: map[compKey]*analysis.Comparison{},
		kernels: map[cellkey.Key][]*analysis.KernelFact{}, checks: map[cellkey.Key]*pipeline.Check{}, inRun: map[string]bool{}, manCells: map[cellkey.Key]*rundir.Cell{}}
	if run != nil {
		for i := range run.Cells {
			c := &run.Cells[i]
			if c.Status == cellMissing {
				continue // analysis lists every spec cell; a missing one is not in the run
			}
			x.cells[c.Key()] = c
			x.inRun[c.Experiment] = true
		}
		for i := range run.Comparisons {
			c := &run.Comparisons[i]
			x.comps[compKey{c.Experiment, c.Shape, c.Baseline, c.Candidate}] = c
		}
		for i := range run.Kernels {
			k := &run.Kernels[i]
			kk := k.Key()
			x.kernels[kk] = append(x.kernels[kk], k)
		}
	}
	if man != nil {
		for i := range man.Cells {
			c := &man.Cells[i]
			k := c.Key()
			x.manCells[k] = c
			x.inRun[c.Experiment] = true
			if w := codeDiffers(c); w != nil && x.cells[k] != nil {
				m := *x.cells[k] // a copy: the run's facts stay as analysis made them
				m.Warnings = append(append([]analysis.Warning(nil), m.Warnings...), *w)
				x.cells[k] = &m
			}
		}
	}
	for i := range checks {
		c := &checks[i]
		x.checks[c.Key()] = c
	}
	return x
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
	if mc := x.manCells[cellkey.New(exp, variant, shape)]; mc != nil {
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
	if c := x.cells[cellkey.New(exp, variant, shape)]; c != nil {
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
	if mc := x.manCells[cellkey.New(exp, variant, shape)]; mc != nil {
		if ps, ok := mc.Passes[pass]; ok && ps.Status != rundir.StatusOK {
			return fmt.Sprintf("%s: %s pass %s: %s", variant, pass, ps.Status, orDash(ps.Reason))
		}
	}
	st, why := x.status(exp, variant, shape)
	if st != rundir.StatusOK && st != cellPartial {
		return variant + ": " + why
	}
	if mc := x.manCells[cellkey.New(exp, variant, shape)]; mc != nil && pass != "" {
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
	if c := x.cells[cellkey.New(exp, cand, shape)]; c != nil {
		out = append(out, c.Warnings...)
	}
	if base != "" {
		if c := x.cells[cellkey.New(exp, base, shape)]; c != nil {
			out = append(out, c.Warnings...)
		}
		if c := x.comparison(exp, shape, base, cand); c != nil {
			out = append(out, c.Warnings...)
		}
	}
	return out
}

// shapesFor lists the shapes a claim is judged at.
func (x *index) shapesFor(e *spec.Experiment, c spec.Claim) []string {
	if len(c.Shapes) > 0 {
		return c.Shapes
	}
	var out []string
	for _, s := range e.AllShapes() {
		for _, v := range []string{c.Candidate, c.Baseline} {
			if v == "" {
				continue
			}
			if x.cells[cellkey.New(e.Name, v, s)] != nil || x.manCells[cellkey.New(e.Name, v, s)] != nil {
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

// comparison returns analysis's comparison of cand against base at shape,
// or, where analysis made none (it compares with an experiment's first
// baseline only; a forward+backward candidate has its own), one made by the
// same function from the two cells.
func (x *index) comparison(exp, shape, base, cand string) *analysis.Comparison {
	k := compKey{exp, shape, base, cand}
	if c := x.comps[k]; c != nil {
		return c
	}
	bc, cc := x.cells[cellkey.New(exp, base, shape)], x.cells[cellkey.New(exp, cand, shape)]
	if bc == nil || cc == nil || len(bc.WallSamplesMs) == 0 || len(cc.WallSamplesMs) == 0 {
		return nil
	}
	c := analysis.CompareCells(exp, shape, bc, cc, analysis.Options{})
	x.comps[k] = &c
	return &c
}
