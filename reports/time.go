package reports

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// TimeReport is where a run's time went, from its manifest: the seconds of
// each pass, each experiment and each cell, the run's wall time (created
// to finished) and its ingest.
type TimeReport struct {
	WallSeconds   float64          `json:"wall_seconds,omitempty"`   // manifest created -> finished (0: not finished)
	PassSeconds   float64          `json:"pass_seconds"`             // the passes' seconds together
	IngestSeconds float64          `json:"ingest_seconds,omitempty"` // 0: not recorded
	Passes        []PassTime       `json:"passes"`
	Experiments   []ExperimentTime `json:"experiments"`
	Cells         []CellTime       `json:"cells"`
}

// PassTime is one pass's seconds over the run.
type PassTime struct {
	Pass    string  `json:"pass"`
	Seconds float64 `json:"seconds"` // the pass's launches together
	Share   float64 `json:"share"`   // of PassSeconds
	Cells   int     `json:"cells"`
	// Launches and StartupSeconds are the pass's launches and the time
	// they spent before the runner's first cell (manifest launches; 0 in
	// runs that did not record them).
	Launches       int     `json:"launches,omitempty"`
	StartupSeconds float64 `json:"startup_seconds,omitempty"`
	// Divided: a launch of the pass ran several cells, whose seconds are
	// its wall time divided evenly over them (CellPassTime).
	Divided bool `json:"divided,omitempty"`
}

// ExperimentTime is one experiment's seconds per pass.
type ExperimentTime struct {
	Experiment string             `json:"experiment"`
	Seconds    map[string]float64 `json:"seconds"` // pass -> seconds
	Total      float64            `json:"total"`
}

// CellTime is one cell's seconds per pass.
type CellTime struct {
	Experiment string                  `json:"experiment"`
	Variant    string                  `json:"variant"`
	Shape      string                  `json:"shape"`
	Passes     map[string]CellPassTime `json:"passes"`
}

// CellPassTime is a cell's time in one pass. Share is its launch's seconds
// divided evenly over SharedBy cells (1: the launch ran it alone; 0: not
// recorded, a run that ran check, timing, ncu and nsys as one process per
// experiment); Measured is the runner's own clock of the cell inside that
// launch (0: not reported).
type CellPassTime struct {
	Share    float64 `json:"share"`
	SharedBy int     `json:"shared_by,omitempty"`
	Measured float64 `json:"measured,omitempty"`
}

// timeOf gathers m's time; nil without a manifest or without seconds.
func timeOf(m *rundir.Manifest) *TimeReport {
	if m == nil {
		return nil
	}
	t := &TimeReport{IngestSeconds: m.IngestSeconds}
	if !m.Created.IsZero() && m.Finished.After(m.Created) {
		t.WallSeconds = round3(m.Finished.Sub(m.Created).Seconds())
	}
	passes := map[string]*PassTime{}
	exps := map[string]*ExperimentTime{}
	var expOrder []string
	for _, c := range m.Cells {
		ct := CellTime{Experiment: c.Experiment, Variant: c.Variant, Shape: c.Shape, Passes: map[string]CellPassTime{}}
		for p, st := range c.Passes {
			if st.Seconds <= 0 && st.CellSeconds <= 0 {
				continue
			}
			ct.Passes[p] = CellPassTime{Share: st.Seconds, SharedBy: st.SharedBy, Measured: st.CellSeconds}
			pt := passes[p]
			if pt == nil {
				pt = &PassTime{Pass: p}
				passes[p] = pt
			}
			pt.Seconds += st.Seconds
			pt.Cells++
			// Runs without shared_by ran range per cell, the other passes per experiment.
			if st.SharedBy > 1 || (st.SharedBy == 0 && p != rundir.PassRange) {
				pt.Divided = true
			}
			e := exps[c.Experiment]
			if e == nil {
				e = &ExperimentTime{Experiment: c.Experiment, Seconds: map[string]float64{}}
				exps[c.Experiment] = e
				expOrder = append(expOrder, c.Experiment)
			}
			e.Seconds[p] += st.Seconds
			e.Total += st.Seconds
		}
		if len(ct.Passes) > 0 {
			t.Cells = append(t.Cells, ct)
		}
	}
	if len(passes) == 0 {
		return nil
	}
	for _, l := range m.Launches {
		if pt := passes[l.Pass]; pt != nil {
			pt.Launches++
			pt.StartupSeconds += l.StartupSeconds
		}
	}
	for _, p := range passOrder(passes) {
		pt := passes[p]
		pt.Seconds, pt.StartupSeconds = round3(pt.Seconds), round3(pt.StartupSeconds)
		t.PassSeconds += pt.Seconds
		t.Passes = append(t.Passes, *pt)
	}
	t.PassSeconds = round3(t.PassSeconds)
	for i := range t.Passes {
		t.Passes[i].Share = round3(t.Passes[i].Seconds / t.PassSeconds)
	}
	sort.Strings(expOrder)
	for _, n := range expOrder {
		e := exps[n]
		for p, s := range e.Seconds {
			e.Seconds[p] = round3(s)
		}
		e.Total = round3(e.Total)
		t.Experiments = append(t.Experiments, *e)
	}
	sort.SliceStable(t.Cells, func(i, j int) bool {
		a, b := t.Cells[i], t.Cells[j]
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		return a.Shape < b.Shape
	})
	return t
}

// passOrder is the passes of ps in run order (rundir.AllPasses), others after.
func passOrder[V any](ps map[string]V) []string {
	var out []string
	for _, p := range rundir.AllPasses {
		if _, ok := ps[p]; ok {
			out = append(out, p)
		}
	}
	var rest []string
	for p := range ps {
		if !slices.Contains(rundir.AllPasses, p) {
			rest = append(rest, p)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// timeNotes are the sentences above the Time tables.
func timeNotes(t *TimeReport) []string {
	var n []string
	line := fmt.Sprintf("The passes took %s s together", secs(t.PassSeconds))
	if t.WallSeconds > 0 {
		line += fmt.Sprintf("; the run's wall time, created to finished (over every --resume between), %s s", secs(t.WallSeconds))
	}
	if t.IngestSeconds > 0 {
		line += fmt.Sprintf("; the ingest into tables %s s", secs(t.IngestSeconds))
	}
	n = append(n, line+".")
	n = append(n, "A cell's seconds: its share of the launch that ran it, that launch's wall time divided evenly over its cells "+
		"(check, timing, ncu and nsys launch one process per experiment; range one per cell, its replays in turn). "+
		"Where the runner clocked the cell inside the shared process, that figure follows in parentheses; "+
		"the rest of the process (start, imports, a profiler's export) is in the shares only.")
	return n
}

// timeTables are the Time section's tables: per pass, per experiment, per cell.
func timeTables(t *TimeReport) []Table {
	pt := Table{Header: []string{"Pass", "Seconds", "Share", "Cells", "A cell's seconds", "Launches", "Before first cell (s)"},
		Align: []Align{Left, Right, Right, Right, Left, Right, Right}}
	for _, p := range t.Passes {
		l, st := "—", "—"
		if p.Launches > 0 {
			l = fmt.Sprint(p.Launches)
		}
		if p.StartupSeconds > 0 {
			st = secs(p.StartupSeconds)
		}
		per := "its own launch"
		if p.Divided {
			per = "launch ÷ its cells"
		}
		pt.Rows = append(pt.Rows, []string{p.Pass, secs(p.Seconds), fmt.Sprintf("%.0f%%", 100*p.Share), fmt.Sprint(p.Cells), per, l, st})
	}
	if t.IngestSeconds > 0 {
		pt.Rows = append(pt.Rows, []string{"ingest", secs(t.IngestSeconds), "—", "—", "—", "—", "—"})
	}
	passes := make([]string, len(t.Passes))
	for i, p := range t.Passes {
		passes[i] = p.Pass
	}
	align := []Align{Left}
	for range passes {
		align = append(align, Right)
	}
	et := Table{Header: append(append([]string{"Experiment"}, passes...), "Total"), Align: append(align, Right)}
	for _, e := range t.Experiments {
		row := []string{e.Experiment}
		for _, p := range passes {
			row = append(row, secsOr(e.Seconds[p]))
		}
		et.Rows = append(et.Rows, append(row, secs(e.Total)))
	}
	ct := Table{Header: append([]string{"Cell"}, passes...), Align: align}
	for _, c := range t.Cells {
		row := []string{c.Experiment + "/" + c.Variant + "/" + c.Shape}
		for _, p := range passes {
			cp, ok := c.Passes[p]
			if !ok {
				row = append(row, "—")
				continue
			}
			s := secs(cp.Share)
			if cp.Measured > 0 {
				s += " (" + secs(cp.Measured) + ")"
			}
			row = append(row, s)
		}
		ct.Rows = append(ct.Rows, row)
	}
	return []Table{pt, et, ct}
}

// secs shows seconds with one decimal.
func secs(s float64) string { return fmt.Sprintf("%.1f", s) }

func secsOr(s float64) string {
	if s == 0 {
		return "—"
	}
	return secs(s)
}
