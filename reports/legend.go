package reports

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/verdict"
)

// The legends under the report's tables, one source for report.md and
// report.html. A legend is a table of rows, each a sentence or a term and
// what it means; a figure a row states is formatted from the constant that
// decides it (the confidence level and significance level of the
// statistics, the range-coverage threshold, the model-ratio bounds, the
// main-loop margin). Each format renders a legend's rows in order with its
// own markup; where the two formats say a thing differently, the row says
// both (legendFormat.pick).

// Figures the legends and the table headers state.
var (
	// ciLabel heads a column of figures with intervals, "95% CI".
	ciLabel = verdict.ConfidenceLabel + " CI"
)

// legendFormat is the format a legend is rendered in.
type legendFormat uint8

// Report formats of a legend row, as a set.
const (
	legendMarkdown legendFormat = 1 << iota
	legendHTML
	legendBoth = legendMarkdown | legendHTML
)

// code sets s as code: `s` in Markdown, <code>s</code> in HTML.
func (f legendFormat) code(s string) string {
	if f == legendHTML {
		return "<code>" + template.HTMLEscapeString(s) + "</code>"
	}
	return "`" + s + "`"
}

// sym is a symbol the tables print, s, as code in Markdown (which would
// read "*" as emphasis) and as is in HTML.
func (f legendFormat) sym(s string) string {
	if f == legendHTML {
		return s
	}
	return "`" + s + "`"
}

// pick is md in Markdown, html in HTML.
func (f legendFormat) pick(md, html string) string {
	if f == legendHTML {
		return html
	}
	return md
}

// br breaks the line where the formats in set break it, else is a space:
// each format's legends keep lines of the length they have always had.
func (f legendFormat) br(set legendFormat) string {
	if set&f != 0 {
		return "\n"
	}
	return " "
}

// legendRow is one row of a legend.
type legendRow struct {
	in   legendFormat                // the formats whose legend has the row
	nl   legendFormat                // the formats whose line breaks before the row (else a space)
	text func(f legendFormat) string // the row in format f; "\n" breaks a line in both
}

// render joins the rows of a legend that format f has.
func (f legendFormat) render(rows []legendRow) string {
	var b strings.Builder
	for _, r := range rows {
		if r.in&f == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(f.br(r.nl))
		}
		b.WriteString(r.text(f))
	}
	return b.String()
}

// htmlLegend renders a legend for report.html, whose template inserts it
// as is.
func htmlLegend(rows []legendRow) template.HTML {
	return template.HTML(legendHTML.render(rows)) // this file's text; code escaped by legendFormat.code
}

// same is a row that reads alike in both formats.
func same(s string) func(legendFormat) string { return func(legendFormat) string { return s } }

// decisionsLegend explains the decisions table.
var decisionsLegend = []legendRow{
	{in: legendBoth, text: same(fmt.Sprintf("%s: the measured value and its whole %s interval clear the threshold.", verdict.VerdictGo, verdict.ConfidenceLabel))},
	{in: legendBoth, text: same(verdict.VerdictNoGo + ": both miss it.")},
	{in: legendBoth, nl: legendBoth, text: same(verdict.VerdictInconclusive + ": the interval straddles it, or a warning voids the metric.")},
	{in: legendBoth, text: same(verdict.VerdictNotMeasured + ": the cell\nfailed, was skipped or is not in the run.")},
	{in: legendBoth, text: same("Theory: the metric under the claims.yaml models; for\n" +
		"speedup and time_us, their roofline bound max(bytes / DRAM roof, FLOPs / compute roof).")},
	{in: legendMarkdown, text: same("The\nnumbers in the first column refer to the list below the table: reason, seed quote, notes.")},
	{in: legendHTML, text: same("Bound: the\ncandidate's roofline floor over its measured device time (100% = at the roof).")},
	{in: legendHTML, text: same("Limited by: the\n" +
		"candidate's GEMM main loops are measurably worse than the baseline's for the same products; the\n" +
		"counterfactual is the metric at best had they matched, an optimistic bound (the fused epilogue\n" +
		"counted as free) that is never judged.")},
	{in: legendHTML, text: same("Each row's reason, the quantity that decided it and the\nclaim's words (their math as plain text) unfold under it.")},
}

// shapeLegend explains the two tables of an experiment's shape.
var shapeLegend = []legendRow{
	{in: legendBoth, text: same("GPU time: sum of the kernels' durations (nsys timeline, else ncu).")},
	{in: legendBoth, text: same(fmt.Sprintf("Wall: median of the\ntiming pass with its %s interval;", verdict.ConfidenceLabel))},
	{in: legendBoth, text: same("Device: the same call replayed from a CUDA graph (no host\nlaunch overhead);")},
	{in: legendBoth, text: same("SM clock: median of the NVML readings during its timed loop.")},
	{in: legendBoth, text: same("Bound: the model's\nroofline floor over the device time, or over the GPU time where the call could not be\n" +
		"captured in a graph (Device —) (100% = at the roof).")},
	{in: legendBoth, text: func(f legendFormat) string {
		return fmt.Sprintf("Range/kernels: the range pass's L2\nbytes and time over the kernel pass's, cut to two decimals (below %.2f: %s%s).",
			rundir.MinRangeCoverage, analysis.WarnRangePartial, f.pick("", ", marked"))
	}},
	{in: legendBoth, nl: legendBoth, text: same(fmt.Sprintf("Speedup: baseline median / this variant's, p from a Mann-Whitney U test (alpha %s).", figure.Num(analysis.DefaultStats().Alpha)))},
	{in: legendBoth, nl: legendBoth, text: same("Elementwise: kernels without tensor work.")},
	{in: legendBoth, text: same("Rel. error: max relative error against the\nreference (check pass).")},
	{in: legendBoth, text: func(f legendFormat) string {
		return "DRAM: read + write bytes of the whole variant, ncu range pass (" + f.sym("*") + ":\nsum of the kernel pass, L2 flushed before each kernel; partial: a range that covers part of the variant);"
	}},
	{in: legendBoth, text: func(f legendFormat) string {
		return "DRAM/theory outside " + f.pick(figure.Num(verdict.ModelLo)+"x.."+figure.Num(verdict.ModelHi)+"x", "the model's range") + " is\nmarked" + f.pick(" "+f.sym("!"), "") + "."
	}},
	{in: legendBoth, text: func(f legendFormat) string {
		return "L2 bytes: the range pass's where it covers the cell, the figure the DRAM" + f.br(legendMarkdown) +
			"decisions" + f.br(legendHTML) + "quote (" + f.sym("*") + ": sum of the kernel pass)."
	}},
	{in: legendBoth, text: same("FLOPs: ncu kernel pass; theory: claims.yaml.")},
	{in: legendBoth, nl: legendMarkdown, text: same("Kernel names are shortened.")},
}

// qualityLegend explains the kernel quality table. A candidate's GEMMs are
// below library quality beyond analysis.DefaultMainLoopMargin: SM cycles
// above 1+margin times the library's, which is a speed below 1/(1+margin)
// of it (90.9% at a margin of 0.10, stated rounded down to a whole
// percent), or DRAM bytes above 1+margin times.
var qualityLegend = []legendRow{
	{in: legendBoth, text: same("From the ncu kernel pass of this run.")},
	{in: legendBoth, text: same(fmt.Sprintf("GEMM speed of library: the baseline's GEMM SM cycles over\n"+
		"this variant's for the same products (its fused epilogues included); below %.0f%% or above %.2fx\n"+
		"the library's DRAM bytes is below library quality.",
		math.Floor(100/(1+analysis.DefaultMainLoopMargin)), 1+analysis.DefaultMainLoopMargin))},
	{in: legendBoth, text: same("SOL: ncu's own speed-of-light percentages of\nthe slowest kernel.")},
	{in: legendMarkdown, text: same("Epilogue operands: what the fused epilogues must read and write by\n" +
		"their dataflow (claims.yaml epilogue_bytes). DRAM beyond epilogue, of library: the GEMMs' DRAM bytes\n" +
		"less those, over the library GEMMs' of the same products (the variant named, kernel pass).")},
}

// limitsLegend explains the table of what limits the slowest kernel.
var limitsLegend = []legendRow{
	{in: legendBoth, text: func(f legendFormat) string {
		return "L2 hit: " + f.code(strings.TrimSuffix(metric.L2HitRate, ".pct")) + "."
	}},
	{in: legendBoth, text: same("Tensor pipe and issue slots: % of peak while the SM is active.")},
	{in: legendBoth, nl: legendBoth, text: func(f legendFormat) string {
		return "Stalls: ncu's warp states, warps stalled for that reason per issued instruction, of the warps\n" +
			"resident per issued instruction in all (" + f.code(metric.StallPrefix+"*"+strings.TrimSuffix(metric.StallSuffix, ".ratio")) + ")."
	}},
}

// htmlLegends are the legends as report.html's template inserts them.
type htmlLegends struct {
	Answer, Decisions, Shape, Quality, Limits template.HTML
}

func newHTMLLegends() htmlLegends {
	return htmlLegends{Answer: htmlLegend(answerLegend), Decisions: htmlLegend(decisionsLegend), Shape: htmlLegend(shapeLegend),
		Quality: htmlLegend(qualityLegend), Limits: htmlLegend(limitsLegend)}
}
