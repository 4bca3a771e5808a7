package reports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/verdict"
)

// fmtInterval formats "center [lo, hi]" with the center's SI prefix.
func fmtInterval(metric string, v verdict.Value) string {
	c := verdict.FormatMetric(metric, v.Center)
	if v.Lo == v.Center && v.Hi == v.Center {
		return c
	}
	lo, hi := verdict.FormatBound(metric, v.Lo), verdict.FormatBound(metric, v.Hi)
	if metric == verdict.MetricTimeUs {
		return figure.Seconds(v.Center/1e6, v.Lo/1e6, v.Hi/1e6)
	}
	return c + " [" + lo + ", " + hi + "]"
}

// l2Cell is a row's L2 bytes as the tables show them: the range pass's where
// it covers the cell (what the DRAM decisions quote), else the kernel-pass
// sum marked "*".
func l2Cell(row verdict.CellRow) string {
	if row.RangeL2Bytes > 0 {
		return figure.Bytes(row.RangeL2Bytes)
	}
	if row.L2Bytes > 0 {
		return figure.Bytes(row.L2Bytes) + "*"
	}
	return "—"
}

// dramCell formats a table's DRAM figure: the bytes, and for range bytes
// the replays behind them ("68.78 MB (n=3: 68.50 MB..70.38 MB)", "(n=1)").
func dramCell(row verdict.CellRow) string {
	if row.DRAMBytes == 0 && row.DRAMBytesKernels > 0 {
		return figure.Bytes(row.DRAMBytesKernels) + "*"
	}
	s := figure.Bytes(row.DRAMBytes)
	switch n := len(row.DRAMBytesReplays); {
	case row.DRAMBytes == 0 || n == 0:
	case n == 1:
		s += " (n=1)"
	default:
		lo, hi := row.DRAMBytesReplays[0], row.DRAMBytesReplays[0]
		for _, x := range row.DRAMBytesReplays {
			lo, hi = min(lo, x), max(hi, x)
		}
		s += fmt.Sprintf(" (n=%d: %s..%s)", n, figure.Bytes(lo), figure.Bytes(hi))
	}
	if row.DRAMBytes > 0 && slices.Contains(row.Warnings, analysis.WarnRangePartial) {
		s = "partial: " + s // the range covers part of the variant: no whole figure
	}
	return s
}

// fmtTest writes a claim's test: "speedup(triton-epilogue / eager) > 1.1x".
func fmtTest(d verdict.Decision) string {
	subject := d.Candidate
	if d.Baseline != "" {
		subject += " / " + d.Baseline
	}
	return fmt.Sprintf("%s(%s) %s %s", d.Metric, subject, d.Op, verdict.FormatMetric(d.Metric, d.Threshold))
}

// WriteMarkdown writes report.md: the answer table first (each claim on
// its best implementation), then the run, the decision table, and per
// experiment its environment, per-shape tables, plots, crossovers and
// warnings. Output is deterministic.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	title := "rooftool report"
	if r.Run.Name != "" {
		title += ": " + r.Run.Name
	}
	p("# %s\n\n", title)
	p("%s\n\n", runLine(r.Run))
	if len(r.Run.Incomplete) > 0 {
		p("**Incomplete run**: %s.\n\n", strings.Join(r.Run.Incomplete, "; "))
	}
	if err := writeAnswerMarkdown(&b, r); err != nil {
		return err
	}
	if len(r.Run.Command) > 0 {
		p("Command: `%s`\n\n", shellquote.Join(r.Run.Command...))
	}
	if pv := provenance(r.Run); len(pv) > 0 {
		for _, l := range pv {
			p("- %s\n", l)
		}
		p("\n")
	}
	if r.Run.ClaimsFrom != "" {
		p("Judged against %s.\n\n", r.Run.ClaimsFrom)
	}
	// Claims of experiments the run did not include are left out of the markdown (one line
	// names them); report.json keeps them, NOT MEASURED.
	exps, decisions, absent := shownExperiments(r)
	counts := map[string]int{}
	for _, d := range decisions {
		counts[d.Verdict]++
	}
	p("Verdicts: %d GO, %d NO-GO, %d INCONCLUSIVE, %d NOT MEASURED, over %d claim-shape pairs%s.\n\n",
		counts[verdict.VerdictGo], counts[verdict.VerdictNoGo], counts[verdict.VerdictInconclusive], counts[verdict.VerdictNotMeasured], len(decisions), incompleteNote(r.Run))
	if len(absent) > 0 {
		p("Not in this run, so not evaluated here: %s (NOT MEASURED in report.json).\n\n", strings.Join(absent, ", "))
	}
	if len(exps) > 1 {
		st := Table{Header: []string{"Experiment", "GO", "NO-GO", "INCONCLUSIVE", "NOT MEASURED"}, Align: []Align{Left, Right, Right, Right, Right}}
		for _, e := range exps {
			c := map[string]int{}
			for _, d := range decisions {
				if d.Experiment == e.Name {
					c[d.Verdict]++
				}
			}
			st.Rows = append(st.Rows, []string{e.Name, fmt.Sprint(c[verdict.VerdictGo]), fmt.Sprint(c[verdict.VerdictNoGo]), fmt.Sprint(c[verdict.VerdictInconclusive]), fmt.Sprint(c[verdict.VerdictNotMeasured])})
		}
		if err := st.Write(&b); err != nil {
			return err
		}
		p("\n")
	}
	p("## Decisions\n\n")
	p("%s\n\n", legendMarkdown.render(decisionsLegend))
	t := Table{Header: []string{"#", "Experiment", "Claim", "Source", "Shape", "Test", "Theory", "Measured (" + ciLabel + ")", "Verdict"},
		Align: []Align{Right, Left, Left, Left, Left, Left, Right, Right, Left}}
	for i, d := range decisions {
		th, me := "—", "—"
		if d.Theory != nil {
			th = verdict.FormatMetric(d.Metric, *d.Theory)
		}
		if d.Measured != nil {
			me = fmtInterval(d.Metric, *d.Measured)
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), d.Experiment, d.Claim, d.Cite(),
			d.Shape, fmtTest(d), th, me, d.Verdict})
	}
	if err := t.Write(&b); err != nil {
		return err
	}
	p("\n")
	for i, d := range decisions {
		p("%d. **%s** %s/%s at `%s`: %s.\n", i+1, d.Verdict, d.Experiment, d.Claim, d.Shape, d.Reason)
		// The quote's TeX math ($> 1.1\times$) reads as report.html shows
		// it (> 1.1×): Markdown viewers do not all render TeX.
		if d.Source != "" {
			p("   Source %s: \"%s\"", d.Cite(), mathText(figure.OneLine(d.Quote)))
		} else {
			p("   Seed %s line %d: \"%s\"", d.Seed, d.Line, mathText(figure.OneLine(d.Quote)))
		}
		if d.Note != "" {
			p(" Note: %s.", strings.TrimSuffix(figure.OneLine(d.Note), "."))
		}
		p("\n")
	}
	if len(r.Warnings) > 0 {
		p("\nRun warnings:\n\n")
		writeWarnings(&b, r.Warnings)
	}
	if len(r.Run.Notes) > 0 {
		p("\nRun notes (manifest):\n\n")
		for _, n := range r.Run.Notes {
			p("- %s\n", figure.OneLine(n))
		}
	}
	for _, e := range exps {
		writeExperiment(&b, e, r)
	}
	if r.Time != nil {
		p("\n## Time\n\n")
		for _, n := range timeNotes(r.Time) {
			p("%s\n\n", n)
		}
		for i, t := range timeTables(r.Time) {
			if i > 0 {
				p("\n")
			}
			if err := t.Write(&b); err != nil {
				return err
			}
		}
	}
	if len(r.Run.Options) > 0 {
		p("\n## Run options\n\n")
		var ks []string
		for k := range r.Run.Options {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			p("- %s: %s\n", k, compactOption(r.Run.Options[k]))
		}
	}
	if c := r.Run.Ceilings; len(c.Items) > 0 {
		p("\n## Ceilings\n\n")
		ct := Table{Header: []string{"Roof", "Kind", "Value", "Source"}, Align: []Align{Left, Left, Right, Left}, Rows: ceilingRows(c)}
		if err := ct.Write(&b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func runLine(ri RunInfo) string {
	var parts []string
	g := ri.GPU
	if g.Name != "" {
		gpu := "GPU **" + g.Name + "**"
		var facts []string
		if g.SMCount > 0 {
			facts = append(facts, fmt.Sprintf("%d SMs", g.SMCount))
		}
		if g.L2Bytes > 0 {
			facts = append(facts, figure.SI(float64(g.L2Bytes), "B")+" L2")
		}
		if g.MemoryBytes > 0 {
			facts = append(facts, figure.SI(float64(g.MemoryBytes), "B")+" memory")
		}
		if g.CC != "" {
			facts = append(facts, "CC "+g.CC)
		}
		if len(facts) > 0 {
			gpu += " (" + strings.Join(facts, ", ") + ")"
		}
		parts = append(parts, gpu)
	}
	if ri.Created != "" {
		parts = append(parts, "created "+ri.Created)
	}
	if ri.Version != "" {
		parts = append(parts, "rooftool "+ri.Version)
	}
	if ri.GitCommit != "" {
		c, dirty := strings.CutSuffix(ri.GitCommit, "-dirty")
		if len(c) > 12 {
			c = c[:12]
		}
		if dirty { // the tree that ran differed from this commit (launch.gitCommit)
			c += " (tree differed from it)"
		}
		parts = append(parts, "commit "+c)
	}
	if len(ri.Passes) > 0 {
		parts = append(parts, "passes "+strings.Join(ri.Passes, ", "))
	}
	if len(parts) == 0 {
		return "No manifest: run facts unknown."
	}
	return strings.Join(parts, "; ") + "."
}

func writeWarnings(b *strings.Builder, ws []analysis.Warning) {
	for _, w := range ws {
		m := ""
		if w.Metric != "" {
			m = " (" + w.Metric + ")"
		}
		fmt.Fprintf(b, "- %s%s: %s\n", w.Code, m, figure.OneLine(w.Msg))
	}
}

func mhz(cur, max float64) string {
	if cur == 0 {
		return "unknown"
	}
	s := fmt.Sprintf("%.0f MHz", cur)
	if max > 0 {
		s += fmt.Sprintf(" (max %.0f MHz)", max)
	}
	return s
}

// shownExperiments is what the markdown covers: the experiments the run has cells of and
// their decisions, plus the names (with their claim-shape pair counts) of those it has
// none of. A run with no experiment in it shows them all.
func shownExperiments(r *Report) ([]ExperimentReport, []verdict.Decision, []string) {
	in := map[string]bool{}
	var exps []ExperimentReport
	for _, e := range r.Experiments {
		if e.InRun {
			in[e.Name] = true
			exps = append(exps, e)
		}
	}
	if len(exps) == 0 {
		return r.Experiments, r.Decisions, nil
	}
	var ds []verdict.Decision
	n := map[string]int{}
	for _, d := range r.Decisions {
		if in[d.Experiment] {
			ds = append(ds, d)
		} else {
			n[d.Experiment]++
		}
	}
	var absent []string
	for _, e := range r.Experiments {
		if !e.InRun {
			absent = append(absent, fmt.Sprintf("%s (%d)", e.Name, n[e.Name]))
		}
	}
	return exps, ds, absent
}

// writeCrossovers writes an experiment's Crossover section: each sweep's
// crossover, a flagged one as no finding.
func writeCrossovers(p func(string, ...any), cs []analysis.Crossover) {
	p("\n### Crossover\n\n")
	if len(cs) == 0 {
		p("No sweep crossover found.\n")
	}
	for _, c := range cs {
		if c.Unreliable != "" {
			p("- %s sweep: flagged, not a finding: %s; %s\n", c.Sweep, figure.OneLine(c.Text), figure.OneLine(c.Unreliable))
			continue
		}
		p("- %s sweep: %s\n", c.Sweep, figure.OneLine(c.Text))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func mhzRange(r []float64) string {
	if r[0] == r[1] {
		return fmt.Sprintf("%.0f MHz", r[0])
	}
	return fmt.Sprintf("%.0f-%.0f MHz", r[0], r[1])
}

// compactOption shortens a long comma-separated option value (such as the
// ncu metric list) to its first items and a count; report.json keeps it whole.
func compactOption(v string) string {
	items := strings.Split(v, ",")
	if len(items) <= 4 {
		return "`" + v + "`"
	}
	return fmt.Sprintf("`%s`, ... (%d items)", strings.Join(items[:3], ","), len(items))
}

// shortKernelName drops a demangled kernel name's return type, namespaces,
// template and argument lists: "void at::native::vectorized_elementwise_kernel<4, ...>(...)"
// becomes "vectorized_elementwise_kernel".
func shortKernelName(name string) string {
	s := strings.TrimPrefix(strings.TrimSpace(name), "void ")
	if i := strings.IndexAny(s, "<("); i > 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if s == "" {
		return name
	}
	return s
}

// ceilingRows are the run's roofs as both report formats list them: name,
// kind, value, source, bandwidths and compute roofs each together.
func ceilingRows(c gpu.Ceilings) [][]string {
	items := append([]gpu.Ceiling(nil), c.Items...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].Kind < items[j].Kind })
	var rows [][]string
	for _, it := range items {
		unit := "FLOP/s"
		if it.Kind == "bandwidth" {
			unit = "B/s"
		}
		rows = append(rows, []string{it.Name, it.Kind, figure.SI(it.Value, unit), it.Source})
	}
	return rows
}

// incompleteNote closes the verdict summary of an incomplete run.
func incompleteNote(ri RunInfo) string {
	if len(ri.Incomplete) == 0 {
		return ""
	}
	return " of an incomplete run (see above: a decision whose pass never ran is no GO or NO-GO)"
}
