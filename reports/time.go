package reports

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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
	// Warm is the compile stage before the passes (nil: none ran), apart
	// from the passes' seconds.
	Warm *rundir.Warm `json:"warm,omitempty"`
	// Shards are a --gpus run's parts: their predicted and measured
	// seconds (absent in runs that did not record them).
	Shards []ShardTime `json:"shards,omitempty"`
	// Compiled is, per pass, the entries its launches added to each compile
	// cache (present where the run counted them: a pass that added none
	// compiled nothing new).
	Compiled map[string]map[string]int `json:"compiled,omitempty"`
}

// ShardTime is one part of a merged run: its passes' seconds as predicted
// by the shard plan and as measured (its launches together), per pass, and
// its cells.
type ShardTime struct {
	Shard     string             `json:"shard"`
	GPU       string             `json:"gpu,omitempty"` // the unit's UUID
	Cells     int                `json:"cells"`
	Predicted float64            `json:"predicted_seconds"`
	Seconds   float64            `json:"seconds"`
	Passes    map[string]float64 `json:"passes"` // its cells' seconds per pass
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
	counted := m.Options[OptionCacheCounts] != ""
	for _, l := range m.Launches {
		if pt := passes[l.Pass]; pt != nil {
			pt.Launches++
			pt.StartupSeconds += l.StartupSeconds
		}
		if counted {
			if t.Compiled == nil {
				t.Compiled = map[string]map[string]int{}
			}
			if t.Compiled[l.Pass] == nil {
				t.Compiled[l.Pass] = map[string]int{}
			}
			for k, n := range l.CacheAdded {
				t.Compiled[l.Pass][k] += n
			}
		}
	}
	t.Warm = m.Warm
	t.Shards = shardTimes(m)
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

// OptionCacheCounts is the manifest option that says each launch counted
// the entries it added to the compile caches (launch.Launch.CacheAdded).
const OptionCacheCounts = "compile_cache.counts"

// shardTimes are the parts of merged run m with their predicted and
// measured seconds; nil where the merge recorded neither. A part's cells
// are those whose GPU is the part's.
func shardTimes(m *rundir.Manifest) []ShardTime {
	var out []ShardTime
	for _, p := range m.MergedFrom {
		if p.PredictedSeconds == 0 && p.Seconds == 0 {
			continue
		}
		st := ShardTime{Shard: p.Shard, GPU: p.GPUUUID, Predicted: p.PredictedSeconds, Seconds: p.Seconds, Passes: map[string]float64{}}
		for _, c := range m.Cells {
			if c.GPU == nil || p.GPUUUID == "" || c.GPU.UUID != p.GPUUUID {
				continue
			}
			st.Cells++
			for pass, ps := range c.Passes {
				st.Passes[pass] = round3(st.Passes[pass] + ps.Seconds)
			}
		}
		out = append(out, st)
	}
	return out
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
	if w := t.Warm; w != nil {
		s := fmt.Sprintf("Before the passes the warm stage compiled, without measuring, %d kernels (%d new in the cache, the rest found there) in %d processes side by side: %s s, apart from the passes' seconds", w.Kernels, w.Compiled, w.Processes, secs(w.Seconds))
		if w.Skipped != "" {
			s = fmt.Sprintf("The warm stage compiled nothing ahead (%s; %s s)", w.Skipped, secs(w.Seconds))
		}
		if len(w.Failed) > 0 {
			s += "; failed: " + strings.Join(w.Failed, "; ")
		}
		n = append(n, s+".")
	}
	if len(t.Shards) > 0 {
		var slow, sum float64
		for _, sh := range t.Shards {
			slow = max(slow, sh.Seconds)
			sum += sh.Seconds
		}
		n = append(n, fmt.Sprintf("The second table has a row per shard (one GPU each): its passes' seconds as the shard plan predicted them and as measured, and its cells' seconds per pass; the slowest shard measured %s s, %.2fx the shards' mean.", secs(slow), slow/(sum/float64(len(t.Shards)))))
	}
	if t.Compiled != nil {
		n = append(n, "Compiles during the passes: the entries each pass's launches added to the run's compile caches (none: every kernel the pass ran was found in the cache).")
	}
	n = append(n, "A cell's seconds: its share of the launch that ran it, that launch's wall time divided evenly over its cells "+
		"(check, timing, ncu and nsys launch one process per experiment; range as the run's ncu.range_process option says, "+
		"one process per experiment and replay round or one per cell and replay, and a range replayed alone a process of its own). "+
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
	if t.Warm != nil {
		pt.Rows = append(pt.Rows, []string{"compile (warm stage)", secs(t.Warm.Seconds), "—", "—", "—", fmt.Sprint(t.Warm.Processes), "—"})
	}
	passes := make([]string, len(t.Passes))
	for i, p := range t.Passes {
		passes[i] = p.Pass
	}
	var extra []Table
	if len(t.Shards) > 0 {
		h := []string{"Shard", "GPU", "Cells", "Predicted (s)", "Measured (s)", "Measured / predicted"}
		al := []Align{Left, Left, Right, Right, Right, Right}
		for _, p := range passes {
			h = append(h, p)
			al = append(al, Right)
		}
		st := Table{Header: h, Align: al}
		for _, sh := range t.Shards {
			ratio := "—"
			if sh.Predicted > 0 {
				ratio = fmt.Sprintf("%.2f", sh.Seconds/sh.Predicted)
			}
			row := []string{sh.Shard, sh.GPU, fmt.Sprint(sh.Cells), secs(sh.Predicted), secs(sh.Seconds), ratio}
			for _, p := range passes {
				row = append(row, secsOr(sh.Passes[p]))
			}
			st.Rows = append(st.Rows, row)
		}
		extra = append(extra, st)
	}
	if t.Compiled != nil {
		ct := Table{Header: []string{"Pass", "Cache entries added"}, Align: []Align{Left, Left}}
		for _, p := range passes {
			ct.Rows = append(ct.Rows, []string{p, addedWords(t.Compiled[p])})
		}
		extra = append(extra, ct)
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
	return append(append([]Table{pt}, extra...), et, ct)
}

// addedWords lists cache entries added, "triton 12, cutlass 4"; "none".
func addedWords(m map[string]int) string {
	var ks []string
	for k, v := range m {
		if v != 0 {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return "none"
	}
	sort.Strings(ks)
	for i, k := range ks {
		ks[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(ks, ", ")
}

// secs shows seconds with one decimal.
func secs(s float64) string { return fmt.Sprintf("%.1f", s) }

func secsOr(s float64) string {
	if s == 0 {
		return "—"
	}
	return secs(s)
}
