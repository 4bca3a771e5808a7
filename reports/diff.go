package reports

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
)

// DiffRow compares one cell's wall time between two runs, benchstat style:
// medians with their 95% intervals, and a Mann-Whitney U test.
type DiffRow struct {
	Experiment  string   `json:"experiment"`
	Variant     string   `json:"variant"`
	Shape       string   `json:"shape"`
	Old         *Value   `json:"old_ms,omitempty"` // nil: the cell is not in run A
	New         *Value   `json:"new_ms,omitempty"` // nil: the cell is not in run B
	Delta       *float64 `json:"delta,omitempty"`  // new/old - 1 of the medians
	P           *float64 `json:"p,omitempty"`
	Significant bool     `json:"significant"` // P < alpha
	Warnings    []string `json:"warnings,omitempty"`
}

// DiffResult is the cell-by-cell comparison of two runs.
type DiffResult struct {
	A, B         string // run names
	GPUA, GPUB   string // devices, from the manifests or the timing files
	Alpha        float64
	Confidence   float64
	Rows         []DiffRow
	OnlyA, OnlyB int // cells in one run only
}

// DiffTimings compares the timing samples of two runs cell by cell.
func DiffTimings(a, b []ingest.Timing) *DiffResult {
	st := analysis.DefaultStats()
	d := &DiffResult{Alpha: st.Alpha, Confidence: st.Confidence}
	group := func(ts []ingest.Timing) map[rundir.Key][]float64 {
		m := map[rundir.Key][]float64{}
		for _, t := range ts {
			k := key(t.Experiment, t.Variant, t.Shape)
			m[k] = append(m[k], t.Ms)
		}
		return m
	}
	ga, gb := group(a), group(b)
	keys := map[rundir.Key]bool{}
	for k := range ga {
		keys[k] = true
	}
	for k := range gb {
		keys[k] = true
	}
	var ks []rundir.Key
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].Less(ks[j]) })
	for _, k := range ks {
		row := DiffRow{Experiment: k.Experiment, Variant: k.Variant, Shape: k.Shape}
		xa, okA := ga[k]
		xb, okB := gb[k]
		if !okA {
			d.OnlyB++
		}
		if !okB {
			d.OnlyA++
		}
		sc := st.Compare(xa, xb) // old as the base: Speedup = old / new
		val := func(iv analysis.Interval) *Value { return &Value{Center: iv.Center, Lo: iv.Lo, Hi: iv.Hi, N: iv.N} }
		if okA {
			row.Old = val(sc.Base)
		}
		if okB {
			row.New = val(sc.Cand)
		}
		for _, w := range sc.Warnings {
			row.Warnings = append(row.Warnings, w.Msg)
		}
		if okA && okB {
			p := sc.P
			row.P = &p
			row.Significant = sc.Significant
			if row.Old.Center > 0 {
				dl := row.New.Center/row.Old.Center - 1
				row.Delta = &dl
			}
		}
		d.Rows = append(d.Rows, row)
	}
	sortDiffRows(d.Rows)
	return d
}

// sortDiffRows puts the cells both runs have first, then those of one run,
// each in the specs' order: experiment, variant, shape (default grid, then
// sweeps); names the specs lack sort after, by name.
func sortDiffRows(rows []DiffRow) {
	exps, _ := kernels.Load()
	vi, si := map[string]int{}, map[string]int{}
	for _, e := range exps {
		for i, v := range e.Variants {
			vi[e.Name+"/"+v.Name] = i
		}
		for i, sh := range e.AllShapes() {
			si[e.Name+"/"+sh] = i
		}
	}
	idx := func(m map[string]int, k string) int {
		if i, ok := m[k]; ok {
			return i
		}
		return 1 << 30
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		ba, bb := a.Old != nil && a.New != nil, b.Old != nil && b.New != nil
		if ba != bb {
			return ba
		}
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if x, y := idx(vi, a.Experiment+"/"+a.Variant), idx(vi, b.Experiment+"/"+b.Variant); x != y {
			return x < y
		}
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		if x, y := idx(si, a.Experiment+"/"+a.Shape), idx(si, b.Experiment+"/"+b.Shape); x != y {
			return x < y
		}
		return a.Shape < b.Shape
	})
}

// DiffRuns reads the timings of two runs (or table directories) and
// compares them.
func DiffRuns(ctx context.Context, runA, runB *rundir.Run, mem memory.Allocator) (*DiffResult, error) {
	read := func(run *rundir.Run) ([]ingest.Timing, string, error) {
		t, err := run.Tables(mem)
		if err != nil {
			return nil, "", err
		}
		defer t.Release()
		var ts []ingest.Timing
		for _, x := range t.Timings() {
			if !ingest.IsDeviceTiming(x.Method) { // diff compares wall times
				ts = append(ts, x)
			}
		}
		gpu := ""
		if run.Manifest != nil {
			gpu = run.Manifest.GPU.Name
		}
		if gpu == "" {
			seen := map[string]bool{}
			var devs []string
			for _, x := range ts {
				if x.Device != "" && !seen[x.Device] {
					seen[x.Device] = true
					devs = append(devs, x.Device)
				}
			}
			sort.Strings(devs)
			gpu = strings.Join(devs, ", ")
		}
		return ts, gpu, nil
	}
	ta, ga, err := read(runA)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tb, gb, err := read(runB)
	if err != nil {
		return nil, err
	}
	if len(ta) == 0 {
		return nil, fmt.Errorf("run %s: table timings has no rows: nothing to compare", runA.Path(""))
	}
	if len(tb) == 0 {
		return nil, fmt.Errorf("run %s: table timings has no rows: nothing to compare", runB.Path(""))
	}
	d := DiffTimings(ta, tb)
	d.A, d.B, d.GPUA, d.GPUB = runA.Name, runB.Name, ga, gb
	return d, nil
}

func (r DiffRow) delta(alpha float64) string {
	switch {
	case r.Old == nil || r.New == nil:
		return "—"
	case r.P != nil && *r.P >= alpha:
		return "~"
	case r.Delta == nil:
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", 100**r.Delta)
}

func (r DiffRow) n() string {
	n1, n2 := 0, 0
	if r.Old != nil {
		n1 = r.Old.N
	}
	if r.New != nil {
		n2 = r.New.N
	}
	if n1 == n2 {
		return fmt.Sprintf("n=%d", n1)
	}
	return fmt.Sprintf("n=%d+%d", n1, n2)
}

func fmtTime(v *Value) string {
	if v == nil {
		return "—"
	}
	s := fmtSeconds(v.Center/1e3, v.Lo/1e3, v.Hi/1e3)
	return s
}

// WriteTable writes the comparison as an aligned table (Markdown-compatible),
// benchstat style: "~" where the difference is not significant.
func (d *DiffResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "old: %s (%s)\nnew: %s (%s)\n\n", d.A, orUnknown(d.GPUA), d.B, orUnknown(d.GPUB))
	newTable := func() Table {
		return Table{Header: []string{"Experiment", "Variant", "Shape", "Old wall (95% CI)", "New wall (95% CI)", "Delta", "p", "n"},
			Align: []Align{Left, Left, Left, Right, Right, Right, Right, Left}}
	}
	both, one := newTable(), newTable()
	var notes []string
	for _, r := range d.Rows {
		p := "—"
		if r.P != nil {
			p = pval(*r.P)
		}
		row := []string{r.Experiment, r.Variant, r.Shape, fmtTime(r.Old), fmtTime(r.New), r.delta(d.Alpha), p, r.n()}
		if r.Old != nil && r.New != nil {
			both.Rows = append(both.Rows, row)
		} else {
			one.Rows = append(one.Rows, row)
		}
		for _, w := range r.Warnings {
			notes = append(notes, fmt.Sprintf("%s/%s/%s: %s", r.Experiment, r.Variant, r.Shape, w))
		}
	}
	if len(both.Rows) == 0 {
		fmt.Fprintln(w, "No cell is in both runs.")
	} else if err := both.Write(w); err != nil {
		return err
	}
	if len(one.Rows) > 0 {
		fmt.Fprintln(w, "\nCells in one run only:")
		fmt.Fprintln(w)
		if err := one.Write(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nMedians with %.0f%% intervals; p from a Mann-Whitney U test; \"~\": no significant difference (p >= %s).\n", 100*d.Confidence, num(d.Alpha))
	if d.OnlyA > 0 || d.OnlyB > 0 {
		fmt.Fprintf(w, "Cells only in %s: %d; only in %s: %d.\n", d.A, d.OnlyA, d.B, d.OnlyB)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, n := range notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
	return nil
}

// WriteCSV writes one row per cell; times in ms, delta as a fraction,
// empty fields where a run lacks the cell.
func (d *DiffResult) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"experiment", "variant", "shape", "old_ms", "old_lo_ms", "old_hi_ms", "old_n",
		"new_ms", "new_lo_ms", "new_hi_ms", "new_n", "delta", "p", "significant"})
	f := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	val := func(v *Value) []string {
		if v == nil {
			return []string{"", "", "", ""}
		}
		return []string{f(v.Center), f(v.Lo), f(v.Hi), strconv.Itoa(v.N)}
	}
	for _, r := range d.Rows {
		rec := []string{r.Experiment, r.Variant, r.Shape}
		rec = append(rec, val(r.Old)...)
		rec = append(rec, val(r.New)...)
		dl, p := "", ""
		if r.Delta != nil {
			dl = f(*r.Delta)
		}
		if r.P != nil {
			p = f(*r.P)
		}
		rec = append(rec, dl, p, strconv.FormatBool(r.Significant))
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
