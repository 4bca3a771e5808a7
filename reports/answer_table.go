package reports

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/verdict"
)

// answerRow is one row of the answer table as both report formats show
// it: every figure formatted.
type answerRow struct {
	N           int // the number of its decision in the decisions table
	Experiment  string
	Shape       string
	ShapeParts  []string // Shape split after each comma, where report.html may break it
	Test        string   // answerTest
	Source      string   // Answer.Cite
	SourceShort string   // the citation without "seed ": "000:401"
	Quote       string   // the claim's words, their math as text
	Best        string   // answerBest
	Judged      string   // the implementation judged (Answer.Best)
	Of          int      // how many implementations it was picked from (0: one)
	Compared    string   // those, best first
	Measured    string
	Verdict     string
	Class       string // verdictClass
	Why         string
}

// answerRows are the rows of the answers the report shows: those of the
// experiments shownExperiments shows at the shapes the run has cells of,
// each numbered as its decision is in the decisions table. It also counts
// the answers left out for their shape, per experiment and shape.
func answerRows(r *Report) (rows []answerRow, unrun []string) {
	exps, _, _ := shownExperiments(r)
	shown, ran := map[string]bool{}, map[string]bool{}
	for _, e := range exps {
		shown[e.Name] = true
		for _, s := range e.Shapes {
			ran[e.Name+"\x00"+s.Shape] = true
		}
	}
	num := make([]int, len(r.Decisions)) // report.json index -> shown number
	n := 0
	for i, d := range r.Decisions {
		if shown[d.Experiment] {
			n++
			num[i] = n
		}
	}
	left := map[string]int{}
	for _, a := range r.Answer {
		if !shown[a.Experiment] || a.Decision < 0 || a.Decision >= len(num) {
			continue
		}
		if !ran[a.Experiment+"\x00"+a.Shape] {
			k := a.Experiment + " at " + a.Shape
			if left[k] == 0 {
				unrun = append(unrun, k)
			}
			left[k]++
			continue
		}
		row := answerRow{N: num[a.Decision], Experiment: a.Experiment, Shape: a.Shape, ShapeParts: strings.SplitAfter(a.Shape, ","),
			Test: answerTest(a), Source: a.Cite(), SourceShort: strings.TrimPrefix(a.Cite(), "seed "), Quote: mathText(figure.OneLine(a.Quote)),
			Best: answerBest(a), Judged: dashIfEmpty(a.Best), Of: len(a.Compared), Compared: strings.Join(a.Compared, ", "), Measured: "—",
			Verdict: a.Verdict, Class: verdictClass(a.Verdict), Why: a.Why}
		if a.Measured != nil {
			row.Measured = fmtInterval(a.Metric, *a.Measured)
		}
		rows = append(rows, row)
	}
	for i, k := range unrun {
		unrun[i] = fmt.Sprintf("%s (%s)", k, figure.Plural(left[k], "claim"))
	}
	return rows, unrun
}

// unrunNote says which claims the answer table leaves out: those at shapes
// the run has no cell of ("" where none).
func unrunNote(unrun []string) string {
	if len(unrun) == 0 {
		return ""
	}
	return "Not at a shape of this run, so left out above (NOT MEASURED in the decisions): " + strings.Join(unrun, "; ") + "."
}

// answerLegend explains the answer table.
var answerLegend = []legendRow{
	{in: legendBoth, text: same("Each claim of the seeds at each shape, judged on its best implementation in this run: the\n" +
		"best member of its fusion where claims.yaml names one (best-of), else the candidate with the best median.")},
	{in: legendBoth, nl: legendBoth, text: same("Why: what keeps the verdict from being a clean GO or NO-GO, in short; limited: the implementation\n" +
		"is measurably below its fusion's best member, or its GEMMs below the library's, at best: the metric had\n" +
		"they matched (an optimistic bound, never judged).")},
	{in: legendBoth, nl: legendMarkdown, text: func(f legendFormat) string {
		return "The decision " + f.pick("numbered in the last column", "each verdict links to") + " gives the whole reason and\nthe other implementations."
	}},
}

// writeAnswerMarkdown writes the answer table of report.md.
func writeAnswerMarkdown(b *strings.Builder, r *Report) error {
	rows, unrun := answerRows(r)
	if len(rows) == 0 && len(unrun) == 0 {
		return nil
	}
	fmt.Fprintf(b, "## Answer\n\n%s\n\n", legendMarkdown.render(answerLegend))
	t := Table{Header: []string{"Experiment", "Shape", "Claim (source)", "Best implementation", "Measured (" + ciLabel + ")", "Verdict", "Why", "#"},
		Align: []Align{Left, Left, Left, Left, Right, Left, Left, Right}}
	for _, a := range rows {
		t.Rows = append(t.Rows, []string{a.Experiment, a.Shape, a.Test + " (" + a.Source + ")", a.Best, a.Measured, a.Verdict, dashIfEmpty(a.Why), fmt.Sprint(a.N)})
	}
	if err := t.Write(b); err != nil {
		return err
	}
	b.WriteString("\n")
	if n := unrunNote(unrun); n != "" {
		fmt.Fprintf(b, "%s\n\n", n)
	}
	return nil
}

// dashIfEmpty is s, or "—" for an empty cell.
func dashIfEmpty(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// htmlAnswer is an answer row as report.html lays it out: the cell of
// its experiment and shape spans the rows that share them (Span; 0 where
// an earlier row's cell covers this one).
type htmlAnswer struct {
	answerRow
	Span int
}

// htmlAnswers lays out the answer rows of r for report.html, and says
// which it leaves out (unrunNote).
func htmlAnswers(r *Report) ([]htmlAnswer, string) {
	rows, unrun := answerRows(r)
	out := make([]htmlAnswer, len(rows))
	first := 0
	for i, a := range rows {
		out[i].answerRow = a
		if i > 0 && rows[i-1].Experiment == a.Experiment && rows[i-1].Shape == a.Shape {
			out[first].Span++
			continue
		}
		first, out[i].Span = i, 1
	}
	return out, unrunNote(unrun)
}

// answerTest is an answer's test without its candidate: "speedup vs eager >
// 1.100x", "kernel_count <= 1".
func answerTest(a verdict.Answer) string {
	s := a.Metric
	if a.Baseline != "" {
		s += " vs " + a.Baseline
	}
	return s + " " + a.Op + " " + verdict.FormatMetric(a.Metric, a.Threshold)
}

// answerBest names the implementation judged and what it was picked from:
// "triton-epilogue (best of 3)".
func answerBest(a verdict.Answer) string {
	if a.Best == "" {
		return "—"
	}
	if len(a.Compared) > 1 {
		return fmt.Sprintf("%s (best of %d)", a.Best, len(a.Compared))
	}
	return a.Best
}
