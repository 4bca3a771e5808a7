package diff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/reports"
	"github.com/rooftool/rooftool/verdict"
)

func (r Row) delta(alpha float64) string {
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

func (r Row) n() string {
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

func fmtTime(v *verdict.Value) string {
	if v == nil {
		return "—"
	}
	s := figure.Seconds(v.Center/1e3, v.Lo/1e3, v.Hi/1e3)
	return s
}

// pctDelta formats a fraction as a signed percentage; nil is "—".
func pctDelta(d *float64) string {
	if d == nil {
		return "—"
	}
	return fmt.Sprintf("%+.2f%%", 100**d)
}

// kernelLabel keeps a normalized kernel name readable in a table: without
// "void " and cut to 64 characters (the CSV and JSON keep it whole).
func kernelLabel(n string) string {
	return figure.Shorten(strings.TrimPrefix(n, "void "), 64)
}

// TextOptions says how WriteText lays out the comparison.
type TextOptions struct {
	// OneRunCells lists every cell in one run only, a row each; else they
	// are counted per experiment and run.
	OneRunCells bool
}

// WriteTable writes the comparison as aligned tables with every cell in
// one run only listed (WriteText with OneRunCells).
func (d *Result) WriteTable(w io.Writer) error {
	return d.WriteText(w, TextOptions{OneRunCells: true})
}

// WriteText writes the comparison as aligned tables (Markdown-compatible),
// benchstat style: wall times with "~" where the difference is not
// significant and a geomean row, the cells of one run (listed, or counted
// per experiment), then the kernels of each cell both runs recorded, HTA
// TraceDiff style, "+" marking a kernel added and "-" one removed.
func (d *Result) WriteText(w io.Writer, o TextOptions) error {
	fmt.Fprintf(w, "old: %s (%s)\nnew: %s (%s)\n\n", d.A, cmp.Or(d.GPUA, "unknown"), d.B, cmp.Or(d.GPUB, "unknown"))
	newTable := func() reports.Table {
		return reports.Table{Header: []string{"Experiment", "Variant", "Shape", "Old wall (95% CI)", "New wall (95% CI)", "Delta", "p", "n"},
			Align: []reports.Align{reports.Left, reports.Left, reports.Left, reports.Right, reports.Right, reports.Right, reports.Right, reports.Left}}
	}
	both, one := newTable(), newTable()
	var notes []string
	for _, r := range d.Rows {
		p := "—"
		if r.P != nil {
			p = figure.PValue(*r.P)
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
	if g := d.Geomean; g != nil {
		both.Rows = append(both.Rows, []string{"geomean", "", "", figure.Ms(g.Old), figure.Ms(g.New), pctDelta(&g.Delta), "", figure.Plural(g.Cells, "cell")})
	}
	if len(both.Rows) == 0 {
		fmt.Fprintln(w, "No cell is in both runs.")
	} else if err := both.Write(w); err != nil {
		return err
	}
	switch {
	case len(one.Rows) > 0 && o.OneRunCells:
		fmt.Fprintln(w, "\nCells in one run only:")
		fmt.Fprintln(w)
		if err := one.Write(w); err != nil {
			return err
		}
	case len(one.Rows) > 0:
		fmt.Fprintf(w, "\n%s in one run only, per experiment (--one-run-cells lists them):\n\n", figure.Plural(len(one.Rows), "cell"))
		if err := d.oneRunCounts().Write(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nMedians with %.0f%% intervals; p from a Mann-Whitney U test; \"~\": no significant difference (p >= %s).\n", 100*d.Confidence, figure.Num(d.Alpha))
	if d.Geomean != nil {
		fmt.Fprintln(w, "geomean: geometric mean of the medians of the cells in both runs.")
	}
	if d.OnlyA > 0 || d.OnlyB > 0 {
		fmt.Fprintf(w, "Cells only in %s: %d; only in %s: %d.\n", d.A, d.OnlyA, d.B, d.OnlyB)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, n := range notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
	return d.writeKernelTables(w)
}

// oneRunCounts counts the cells in one run only per experiment, in the
// order the rows list the experiments: how many only the old run has, how
// many only the new.
func (d *Result) oneRunCounts() reports.Table {
	t := reports.Table{Header: []string{"Experiment", "Only in " + d.A + " (old)", "Only in " + d.B + " (new)"},
		Align: []reports.Align{reports.Left, reports.Right, reports.Right}}
	type counts struct{ old, new int }
	var order []string
	by := map[string]*counts{}
	for _, r := range d.Rows {
		if r.Old != nil && r.New != nil {
			continue
		}
		c := by[r.Experiment]
		if c == nil {
			c = &counts{}
			by[r.Experiment] = c
			order = append(order, r.Experiment)
		}
		if r.Old != nil {
			c.old++
		} else {
			c.new++
		}
	}
	for _, e := range order {
		t.Rows = append(t.Rows, []string{e, strconv.Itoa(by[e].old), strconv.Itoa(by[e].new)})
	}
	return t
}

func (d *Result) writeKernelTables(w io.Writer) error {
	fmt.Fprintln(w, "\nKernels per iteration, cells of both runs:")
	if len(d.KernelCells) == 0 {
		fmt.Fprintln(w, "\nNo cell has kernels in both runs.")
		return nil
	}
	byCell := map[cellkey.Key][]KernelRow{}
	for _, r := range d.Kernels {
		k := r.Key()
		byCell[k] = append(byCell[k], r)
	}
	count := func(s *KernelSide) string {
		if s == nil {
			return "—"
		}
		return strconv.Itoa(s.Count)
	}
	tm := func(s *KernelSide) string {
		if s == nil {
			return "—"
		}
		return figure.SI(s.TimeNs/1e9, "s")
	}
	// A DRAM figure over another number of launches than n is starred.
	starred := false
	dram := func(s *KernelSide) string {
		if s == nil || s.DRAMBytes == nil {
			return "—"
		}
		if s.NCUCount != s.Count {
			starred = true
			return figure.SI(*s.DRAMBytes, "B") + "*"
		}
		return figure.SI(*s.DRAMBytes, "B")
	}
	for _, c := range d.KernelCells {
		k := c.Key()
		fmt.Fprintf(w, "\n%s", k)
		if c.Note != "" {
			fmt.Fprintf(w, ": %s.\n", c.Note)
			continue
		}
		var what []string
		if c.Old.Source == c.New.Source {
			what = append(what, "from "+sourceName(c.Old.Source))
		} else {
			what = append(what, fmt.Sprintf("old from %s, new from %s: durations not comparable", sourceName(c.Old.Source), sourceName(c.New.Source)))
		}
		if len(c.Added) == 0 && len(c.Removed) == 0 {
			what = append(what, "same kernels")
		}
		if len(c.Added) > 0 {
			what = append(what, fmt.Sprintf("%d added", len(c.Added)))
		}
		if len(c.Removed) > 0 {
			what = append(what, fmt.Sprintf("%d removed", len(c.Removed)))
		}
		fmt.Fprintf(w, " (%s):\n\n", strings.Join(what, "; "))
		t := reports.Table{Header: []string{"Kernel", "Old n", "New n", "Old time", "New time", "Delta", "Old DRAM", "New DRAM", "Delta"},
			Align: []reports.Align{reports.Left, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right}}
		for _, r := range byCell[k] {
			mark := "  "
			switch r.Status {
			case Added:
				mark = "+ "
			case Removed:
				mark = "- "
			}
			t.Rows = append(t.Rows, []string{mark + kernelLabel(r.Kernel), count(r.Old), count(r.New), tm(r.Old), tm(r.New),
				pctDelta(r.TimeDelta), dram(r.Old), dram(r.New), pctDelta(r.DRAMDelta)})
		}
		t.Rows = append(t.Rows, []string{"total", count(c.Old), count(c.New), tm(c.Old), tm(c.New),
			pctDelta(c.TimeDelta), dram(c.Old), dram(c.New), pctDelta(c.DRAMDelta)})
		if err := t.Write(w); err != nil {
			return err
		}
		if len(c.Warnings) > 0 {
			fmt.Fprintln(w)
		}
		for _, x := range c.Warnings {
			fmt.Fprintln(w, "- "+x)
		}
	}
	fmt.Fprintln(w, "\nn and time: launches and summed durations in one iteration (one measurement: no interval, no test).")
	fmt.Fprintln(w, "DRAM: ncu kernel pass, dram__bytes_read.sum + dram__bytes_write.sum (L2 flushed before each kernel).")
	if starred {
		fmt.Fprintln(w, "*: over another number of launches than n: the ncu kernel pass and the timeline saw different kernels.")
	}
	fmt.Fprintln(w, "\"+\": kernel added, \"-\": removed, \"—\": not there or not measured; names matched across tools' spellings.")
	return nil
}

// sourceName says where a cell's kernel counts and times come from.
func sourceName(s string) string {
	if s == ingest.SourceNCU {
		return "the ncu kernel pass"
	}
	return "the " + s + " timeline"
}

// diffCSVHeader is the one header of `rooftool diff --format csv`: a long
// table whose "row" column says which fields a row fills.
var diffCSVHeader = []string{"row", "experiment", "variant", "shape", "kernel", "status",
	"old_ms", "old_lo_ms", "old_hi_ms", "old_n", "new_ms", "new_lo_ms", "new_hi_ms", "new_n", "delta", "p", "significant",
	"old_count", "new_count", "old_time_ns", "new_time_ns", "time_delta", "old_dram_bytes", "new_dram_bytes", "dram_delta",
	"old_ncu_count", "new_ncu_count", "old_source", "new_source"}

// WriteCSV writes CSV() as CSV.
func (d *Result) WriteCSV(w io.Writer) error { return d.CSV().WriteCSV(w) }

// CSV is one long table (diffCSVHeader) whose "row" column says what a row
// is: "cell" (wall times of one cell; ms, delta as a fraction), "geomean"
// (benchstat's geomean row: old_ms, new_ms, delta; old_n and new_n count
// the cells), "cell_kernels" (all kernels of one cell of both runs) and
// "kernel" (one kernel of one cell: count, ns, bytes). Fields a row does
// not have are empty.
func (d *Result) CSV() tableout.Table {
	t := tableout.Table{Header: diffCSVHeader}
	f := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	fp := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(*v)
	}
	val := func(v *verdict.Value) []string {
		if v == nil {
			return []string{"", "", "", ""}
		}
		return []string{f(v.Center), f(v.Lo), f(v.Hi), strconv.Itoa(v.N)}
	}
	empty := func(n int) []string { return make([]string, n) }
	rec := func(parts ...[]string) {
		var r []string
		for _, p := range parts {
			r = append(r, p...)
		}
		t.Rows = append(t.Rows, r)
	}
	for _, r := range d.Rows {
		rec([]string{"cell", r.Experiment, r.Variant, r.Shape, "", r.Status}, val(r.Old), val(r.New),
			[]string{fp(r.Delta), fp(r.P), strconv.FormatBool(r.Significant)}, empty(12))
	}
	if g := d.Geomean; g != nil {
		n := strconv.Itoa(g.Cells)
		rec([]string{"geomean", "", "", "", "", Both, f(g.Old), "", "", n, f(g.New), "", "", n, f(g.Delta), "", ""}, empty(12))
	}
	kside := func(o, n *KernelSide, td, dd *float64) []string {
		out := make([]string, 12)
		if o != nil {
			out[0], out[2], out[5], out[8], out[10] = strconv.Itoa(o.Count), f(o.TimeNs), fp(o.DRAMBytes), strconv.Itoa(o.NCUCount), o.Source
		}
		if n != nil {
			out[1], out[3], out[6], out[9], out[11] = strconv.Itoa(n.Count), f(n.TimeNs), fp(n.DRAMBytes), strconv.Itoa(n.NCUCount), n.Source
		}
		out[4], out[7] = fp(td), fp(dd)
		return out
	}
	for _, c := range d.KernelCells {
		st := Both
		switch {
		case c.Old == nil:
			st = NewOnly
		case c.New == nil:
			st = OldOnly
		}
		rec([]string{"cell_kernels", c.Experiment, c.Variant, c.Shape, "", st}, empty(11), kside(c.Old, c.New, c.TimeDelta, c.DRAMDelta))
	}
	for _, r := range d.Kernels {
		rec([]string{"kernel", r.Experiment, r.Variant, r.Shape, r.Kernel, r.Status}, empty(11), kside(r.Old, r.New, r.TimeDelta, r.DRAMDelta))
	}
	return t
}

// WriteJSON writes JSON() as JSON (tableout.WriteJSON: two-space indent),
// nothing when it fails.
func (d *Result) WriteJSON(w io.Writer) error {
	v, err := d.JSON()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tableout.WriteJSON(&buf, v); err != nil {
		return fmt.Errorf("diff json: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// JSON is the comparison as one JSON value (Result documents its
// shape) whose objects are maps, so that it is written with keys sorted at
// every level; lists are never null.
func (d *Result) JSON() (any, error) {
	c := *d
	c.Version = JSONVersion
	if c.Rows == nil {
		c.Rows = []Row{}
	}
	if c.KernelCells == nil {
		c.KernelCells = []KernelCell{}
	}
	if c.Kernels == nil {
		c.Kernels = []KernelRow{}
	}
	raw, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("diff json: %w", err)
	}
	// Round-trip through generic values: encoding/json writes map keys
	// sorted; UseNumber keeps every number as first written.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("diff json: %w", err)
	}
	return v, nil
}
