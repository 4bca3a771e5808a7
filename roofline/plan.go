package roofline

import (
	"fmt"
	"sort"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/spec"
)

// Chart is one plot a run calls for: a roofline of one (experiment, shape)
// or the charts of one sweep.
type Chart struct {
	Experiment string
	Shape      string      // a roofline's shape; "" with Experiment "" is the whole export
	Sweep      *spec.Sweep // set for a sweep's charts
}

// Title names the chart in a report.
func (c Chart) Title() string {
	if c.Sweep != nil {
		t := fmt.Sprintf("%s sweep over %s", c.Experiment, c.Sweep.Var)
		if c.Sweep.Name != c.Sweep.Var {
			t += " (" + c.Sweep.Name + ")"
		}
		return t
	}
	return fmt.Sprintf("%s roofline at %s", orAll(c.Experiment), orAll(c.Shape))
}

// Plan lists the charts of a run, the one policy `rooftool report` and
// `rooftool roofline` share: for each experiment of exps in order, a
// roofline per default-grid shape the run has cells of and a sweep chart
// per sweep with two or more shapes in the run; then a roofline per other
// (experiment, shape) of which the run has ncu kernels (sweep shapes
// profiled under every pass, exports outside the specs), sorted.
func Plan(run *analysis.Run, exps []*spec.Experiment) []Chart {
	if run == nil {
		return nil
	}
	type sel struct{ exp, shape string }
	cells, kern := map[sel]bool{}, map[sel]bool{}
	for _, c := range run.Cells {
		if c.Status != "missing" {
			cells[sel{c.Experiment, c.Shape}] = true
		}
	}
	for _, k := range run.Kernels {
		kern[sel{k.Experiment, k.Shape}] = true
	}
	var out []Chart
	planned := map[sel]bool{}
	for _, e := range exps {
		for _, s := range e.Shapes {
			if cells[sel{e.Name, s}] || kern[sel{e.Name, s}] {
				planned[sel{e.Name, s}] = true
				out = append(out, Chart{Experiment: e.Name, Shape: s})
			}
		}
		for i := range e.Sweeps {
			sw := &e.Sweeps[i]
			n := 0
			for _, s := range sw.Shapes {
				if cells[sel{e.Name, s}] {
					n++
				}
			}
			if n >= 2 {
				out = append(out, Chart{Experiment: e.Name, Sweep: sw})
			}
		}
	}
	var rest []sel
	for s := range kern {
		if !planned[s] {
			rest = append(rest, s)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		if rest[i].exp != rest[j].exp {
			return rest[i].exp < rest[j].exp
		}
		return rest[i].shape < rest[j].shape
	})
	for _, s := range rest {
		out = append(out, Chart{Experiment: s.exp, Shape: s.shape})
	}
	return out
}

// Write draws the chart into dir and returns the files written.
func (c Chart) Write(dir string, run *analysis.Run) ([]string, []analysis.Warning, error) {
	if c.Sweep != nil {
		return WriteSweep(dir, run, c.Experiment, *c.Sweep)
	}
	return WriteRoofline(dir, run, c.Experiment, c.Shape)
}
