package reports

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/verdict"
)

// WriteHTML writes report.html: one self-contained page (inline CSS, no
// script, nothing fetched: the one relative link is each plot's to its own
// full-size file beside the report) with the facts of report.md as HTML
// tables: first the run line and the answer table (each claim on its best
// implementation, above the fold of a 1280 x 800 window), then the
// decisions, their verdicts coloured, in a table laid out to the window's
// width (1280 px and up without sideways scrolling), each one's reason,
// deciding quantity and claim quote folded under it in a <details> (the
// quote's TeX math as Unicode text, see mathText); then the run, and per
// experiment its environment, per-shape tables, kernel quality, plots,
// crossovers and warnings, each finding listed once with every subject it
// was raised for. Plots are embedded as data: URIs read from files at each
// Plot.Path (relative to the report, "plots/x.png") and link to that file
// (a phone shrinks them to its width); a nil files, or a plot it cannot
// read, leaves a note in the plot's place. Output is deterministic.
func WriteHTML(w io.Writer, r *Report, files fs.FS) error {
	return htmlPage.Execute(w, buildHTMLView(r, files))
}

// htmlView is what the template renders: every figure already formatted.
type htmlView struct {
	Title   string
	RunLine string
	// Incomplete says why the run is not whole ("" whole); IncompleteNote
	// closes the verdict summary.
	Incomplete, IncompleteNote string
	Command                    string
	Provenance                 []string
	ClaimsFrom                 string
	Counts                     []htmlCount
	Total                      int
	Absent                     string
	ExpCounts                  []htmlExpCount
	Answers                    []htmlAnswer
	AnswersLeftOut             string // unrunNote
	Decisions                  []htmlDecision
	Warnings                   []htmlWarning
	Notes                      []string
	Experiments                []htmlExperiment
	Options                    []htmlKV
	TimeNotes                  []string // the Time section (timeNotes, timeTables)
	TimeTables                 []htmlTable
	Ceilings                   [][]string
	Legends                    htmlLegends
	CI                         string // ciLabel
}

type htmlCount struct {
	Verdict, Class string
	N              int
}

type htmlExpCount struct {
	Name   string
	Counts []htmlCount
}

type htmlKV struct{ Key, Value string }

type htmlDecision struct {
	N                                int
	Experiment, Claim, Source, Shape string
	Test, Quantity, Theory, Measured string
	Verdict, Class, Bound            string
	LimitedBy, Counterfactual        string
	Reason, Summary, Quote, Note     string
}

// htmlWarning is one warning as listed: those of a list with the same
// code, metric and finding are one item naming every subject they were
// raised for.
type htmlWarning struct {
	Code, Metric, Msg string
	Subjects          []string
}

type htmlExperiment struct {
	Name, Title, Seeds, Baseline string
	InRun                        bool
	Env                          []htmlKV
	Shapes                       []htmlShape
	Quality                      []htmlQuality
	Limits                       [][]string // limitsRows
	FusionBest                   [][]string // fusionBestRows
	Plots                        []htmlPlot
	Crossovers                   []string
	Warnings                     []htmlWarning
}

type htmlShape struct {
	Shape string
	Rows  []htmlRow
}

type htmlRow struct {
	Variant, Role, Status, StatusClass, Reason             string
	Kernels, Elementwise, GPUTime, Wall, Device, SMClock   string
	Speedup, P, Bound, Class, RelError                     string
	DRAM, DRAMTheory, ModelRatio, L2, Coverage, FLOPs, FTh string
	ModelOff, CoveragePartial                              bool
	Warnings, KernelNames                                  []string
}

type htmlQuality struct {
	Variant, Shape, GEMMSpeed, GEMMDRAM, Slowest, SOL, Elementwise, Verdict, Class string
}

type htmlPlot struct {
	Title   string
	Path    string
	Src     template.URL // data: URI; empty when the file could not be read
	Missing string
}

// verdictClass is the CSS class of a verdict.
func verdictClass(v string) string {
	switch v {
	case verdict.VerdictGo:
		return "go"
	case verdict.VerdictNoGo:
		return "nogo"
	case verdict.VerdictInconclusive:
		return "inc"
	}
	return "nm"
}

var verdictOrder = []string{verdict.VerdictGo, verdict.VerdictNoGo, verdict.VerdictInconclusive, verdict.VerdictNotMeasured}

func countsOf(ds []verdict.Decision, exp string) []htmlCount {
	c := map[string]int{}
	for _, d := range ds {
		if exp == "" || d.Experiment == exp {
			c[d.Verdict]++
		}
	}
	out := make([]htmlCount, 0, len(verdictOrder))
	for _, v := range verdictOrder {
		out = append(out, htmlCount{Verdict: v, Class: verdictClass(v), N: c[v]})
	}
	return out
}

func buildHTMLView(r *Report, files fs.FS) htmlView {
	v := htmlView{Title: "rooftool report", Legends: newHTMLLegends(), CI: ciLabel}
	if r.Run.Name != "" {
		v.Title += ": " + r.Run.Name
	}
	v.RunLine = strings.ReplaceAll(runLine(r.Run), "**", "")
	if len(r.Run.Incomplete) > 0 {
		v.Incomplete = strings.Join(r.Run.Incomplete, "; ")
		v.IncompleteNote = incompleteNote(r.Run)
	}
	v.Command = shellquote.Join(r.Run.Command...)
	for _, l := range provenance(r.Run) {
		v.Provenance = append(v.Provenance, strings.ReplaceAll(l, "`", ""))
	}
	v.ClaimsFrom = r.Run.ClaimsFrom
	exps, decisions, absent := shownExperiments(r)
	v.Counts, v.Total = countsOf(decisions, ""), len(decisions)
	v.Absent = strings.Join(absent, ", ")
	if len(exps) > 1 {
		for _, e := range exps {
			v.ExpCounts = append(v.ExpCounts, htmlExpCount{Name: e.Name, Counts: countsOf(decisions, e.Name)})
		}
	}
	v.Answers, v.AnswersLeftOut = htmlAnswers(r)
	for i, d := range decisions {
		v.Decisions = append(v.Decisions, htmlDecisionOf(i+1, d))
	}
	v.Warnings = htmlWarnings(r.Warnings)
	for _, n := range r.Run.Notes {
		v.Notes = append(v.Notes, figure.OneLine(n))
	}
	for _, e := range exps {
		v.Experiments = append(v.Experiments, htmlExperimentOf(e, files))
	}
	var ks []string
	for k := range r.Run.Options {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		v.Options = append(v.Options, htmlKV{k, strings.Trim(compactOption(r.Run.Options[k]), "`")})
	}
	v.Ceilings = ceilingRows(r.Run.Ceilings)
	if r.Time != nil {
		v.TimeNotes = timeNotes(r.Time)
		for _, t := range timeTables(r.Time) {
			v.TimeTables = append(v.TimeTables, htmlTable{Header: t.Header, Rows: t.Rows})
		}
	}
	return v
}

// htmlTable is a plain table: its first column text, the others numbers
// (or words) aligned right.
type htmlTable struct {
	Header []string
	Rows   [][]string
}

func htmlDecisionOf(n int, d verdict.Decision) htmlDecision {
	h := htmlDecision{N: n, Experiment: d.Experiment, Claim: d.Claim, Source: d.Cite(),
		Shape: d.Shape, Test: fmtTest(d), Quantity: figure.OneLine(d.Quantity), Theory: "—", Measured: "—",
		Verdict: d.Verdict, Class: verdictClass(d.Verdict), Bound: "—",
		LimitedBy: d.LimitedBy, Reason: figure.OneLine(d.Reason), Quote: mathText(figure.OneLine(d.Quote)),
		Note: strings.TrimSuffix(figure.OneLine(d.Note), ".")}
	h.Summary = reasonSummary(h.Reason)
	if d.Theory != nil {
		h.Theory = verdict.FormatMetric(d.Metric, *d.Theory)
	}
	if d.Measured != nil {
		h.Measured = fmtInterval(d.Metric, *d.Measured)
	}
	if d.BoundFraction != nil {
		h.Bound = fmt.Sprintf("%.0f%%", 100**d.BoundFraction)
	}
	if d.Counterfactual != nil {
		h.Counterfactual = "at best " + verdict.FormatMetric(d.Metric, d.Counterfactual.AtBest)
	}
	return h
}

// reasonSummary is the line a folded reason shows: its start, and the
// warning that voided the metric where one did.
func reasonSummary(reason string) string {
	const n = 110
	sum := figure.Shorten(reason, n)
	if i := strings.Index(reason, "voided by "); i >= 0 && len([]rune(reason[:i])) > n-12 {
		if f := strings.Fields(reason[i+len("voided by "):]); len(f) > 0 {
			code := strings.TrimRight(f[0], ":,.;")
			sum = figure.Shorten(reason, n-len(code)-12) + " voided by " + code
		}
	}
	return sum
}

// htmlWarnings lists ws with each finding once. A warning's message names
// its subject before the first ": " (a cell, "a vs b at shape") and then
// the finding; warnings with the same code, metric and finding (a cell's
// host-bound raised again for each comparison it is in) become one item
// with every subject, in order of first appearance.
func htmlWarnings(ws []analysis.Warning) []htmlWarning {
	var out []htmlWarning
	at := map[string]int{}
	for _, w := range ws {
		subject, finding := "", w.Msg
		if i := strings.Index(w.Msg, ": "); i > 0 {
			subject, finding = w.Msg[:i], w.Msg[i+2:]
		}
		key := w.Code + "\x00" + w.Metric + "\x00" + finding
		if j, ok := at[key]; ok {
			if subject != "" && !slices.Contains(out[j].Subjects, subject) {
				out[j].Subjects = append(out[j].Subjects, subject)
			}
			continue
		}
		at[key] = len(out)
		h := htmlWarning{Code: w.Code, Metric: w.Metric, Msg: finding}
		if subject != "" {
			h.Subjects = []string{subject}
		}
		out = append(out, h)
	}
	return out
}

func htmlExperimentOf(e ExperimentReport, files fs.FS) htmlExperiment {
	h := htmlExperiment{Name: e.Name, Title: e.Title, Seeds: strings.Join(e.Seeds, ", "), Baseline: e.Baseline, InRun: e.InRun}
	if !e.InRun {
		return h
	}
	env := e.Env
	h.Env = append(h.Env, htmlKV{"GPU", orUnknown(env.GPU)},
		htmlKV{"Clocks the manifest recorded", fmt.Sprintf("SM %s, memory %s", mhz(env.SMClockMHz, env.MaxSMClockMHz), mhz(env.MemClockMHz, env.MaxMemClockMHz))})
	if r := env.TimingSMMHz; len(r) == 2 {
		s := "SM " + mhzRange(r)
		if m := env.TimingMemMHz; len(m) == 2 {
			s += ", memory " + mhzRange(m)
		}
		h.Env = append(h.Env, htmlKV{"Clocks read after each cell's timing (NVML)", s})
	}
	if len(env.TimingDevices) > 0 || len(env.TimingMethods) > 0 {
		h.Env = append(h.Env, htmlKV{"Timing pass", orUnknown(strings.Join(env.TimingDevices, ", ")) + ", " + orUnknown(strings.Join(env.TimingMethods, ", "))})
	}
	switch len(env.Launch) {
	case 0:
	case 1:
		h.Env = append(h.Env, htmlKV{"Launch path of the Triton kernels in kernels/", env.Launch[0] + " in every pass, baselines' and candidates' alike (torch.compile and library kernels launch their own way)"})
	default:
		h.Env = append(h.Env, htmlKV{"Launch paths of the Triton kernels in kernels/", strings.Join(env.Launch, ", ") + ": not every pass launched them the same way"})
	}
	if len(env.Knobs) > 0 {
		h.Env = append(h.Env, htmlKV{"Knobs", strings.Join(env.Knobs, ", ")})
	}
	if len(env.Versions) > 0 {
		h.Env = append(h.Env, htmlKV{"Versions", strings.Join(env.Versions, ", ")})
	}
	for _, s := range e.Shapes {
		hs := htmlShape{Shape: s.Shape}
		for _, row := range s.Rows {
			hs.Rows = append(hs.Rows, htmlRowOf(row))
		}
		h.Shapes = append(h.Shapes, hs)
	}
	h.Quality = htmlQualityOf(e.Quality)
	h.Limits = limitsRows(byVariant(e.Quality), func(s string) string { return s })
	h.FusionBest = fusionBestRows(e.FusionBest, func(s string) string { return s })
	for _, p := range e.Plots {
		h.Plots = append(h.Plots, htmlPlotOf(p, files))
	}
	for _, c := range e.Crossovers {
		if c.Unreliable != "" {
			h.Crossovers = append(h.Crossovers, fmt.Sprintf("%s sweep: flagged, not a finding: %s; %s", c.Sweep, figure.OneLine(c.Text), figure.OneLine(c.Unreliable)))
			continue
		}
		h.Crossovers = append(h.Crossovers, fmt.Sprintf("%s sweep: %s", c.Sweep, figure.OneLine(c.Text)))
	}
	h.Warnings = htmlWarnings(e.Warnings)
	return h
}

func htmlRowOf(row verdict.CellRow) htmlRow {
	dash := func(ok bool, s string) string {
		if !ok {
			return "—"
		}
		return s
	}
	secs := func(v *verdict.Value) string {
		if v == nil {
			return "—"
		}
		return figure.Seconds(v.Center/1e3, v.Lo/1e3, v.Hi/1e3)
	}
	h := htmlRow{Variant: row.Variant, Role: row.Role, Status: row.Status, StatusClass: "ok", Reason: figure.Shorten(figure.OneLine(row.Reason), 300),
		Kernels: dash(row.Kernels > 0, fmt.Sprint(row.Kernels)), Elementwise: dash(row.Kernels > 0, fmt.Sprint(row.ElementwiseKernels)),
		GPUTime: dash(row.GPUTimeNs > 0, figure.SI(row.GPUTimeNs/1e9, "s")), Wall: secs(row.WallMs), Device: secs(row.DeviceMs),
		SMClock: dash(row.TimingSMMHz > 0, fmt.Sprintf("%.0f MHz", row.TimingSMMHz)), Speedup: "—", P: "—", Bound: "—",
		Class: dash(row.Class != "", row.Class), RelError: "—",
		DRAM: figure.Bytes(row.DRAMBytes), DRAMTheory: figure.Bytes(row.TheoryDRAMBytes), ModelRatio: "—", L2: l2Cell(row), Coverage: "—",
		FLOPs: figure.FLOPs(row.FLOPs), FTh: figure.FLOPs(row.TheoryFLOPs), Warnings: row.Warnings}
	switch row.Status {
	case "ok":
	case "failed":
		h.StatusClass = "bad"
	default: // skipped, missing
		h.StatusClass = "muted"
	}
	if row.Speedup != nil {
		h.Speedup = fmtInterval(verdict.MetricSpeedup, *row.Speedup)
	}
	if row.P != nil {
		h.P = figure.PValue(*row.P)
	}
	if row.BoundFraction != nil {
		h.Bound = fmt.Sprintf("%.0f%%", 100**row.BoundFraction)
	}
	if row.RelError != nil {
		h.RelError = fmt.Sprintf("%.2e", *row.RelError)
	}
	h.DRAM = dramCell(row)
	if row.ModelRatio != nil {
		h.ModelRatio = figure.Ratio(*row.ModelRatio)
		h.ModelOff = *row.ModelRatio < verdict.ModelLo || *row.ModelRatio > verdict.ModelHi
	}
	if c := row.RangeCoverage; c != nil {
		h.Coverage = coverage(c.L2Bytes) + " L2, " + coverage(c.Time) + " time"
		h.CoveragePartial = slices.Contains(row.Warnings, analysis.WarnRangePartial)
	}
	for _, k := range row.KernelNames {
		h.KernelNames = append(h.KernelNames, figure.Shorten(shortKernelName(k), 48))
	}
	return h
}

func htmlQualityOf(rows []verdict.QualityRow) []htmlQuality {
	var out []htmlQuality
	for _, r := range byVariant(rows) {
		t := textOf(r)
		q := htmlQuality{Variant: r.Variant, Shape: r.Shape, GEMMSpeed: t.GEMMSpeed, GEMMDRAM: t.GEMMDRAM, Slowest: "—", SOL: t.SOL, Elementwise: t.Elementwise, Verdict: r.Verdict, Class: "nm"}
		if t.Kernel != "" {
			q.Slowest = fmt.Sprintf("%s (%s)", t.Kernel, t.Share)
		}
		switch r.Verdict {
		case "at library quality":
			q.Class = "go"
		case "below library quality":
			q.Class = "nogo"
		}
		out = append(out, q)
	}
	return out
}

// htmlPlotOf reads a plot from files and makes it a data: URI.
func htmlPlotOf(p Plot, files fs.FS) htmlPlot {
	h := htmlPlot{Title: p.Title, Path: p.Path}
	if files == nil {
		h.Missing = "not embedded: no plot files given"
		return h
	}
	name := path.Clean(strings.TrimPrefix(p.Path, "./"))
	data, err := fs.ReadFile(files, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		h.Missing = "not embedded: " + p.Path + " not found"
		return h
	case errors.Is(err, fs.ErrInvalid) || !fs.ValidPath(name):
		h.Missing = "not embedded: " + p.Path + " is not a path inside the output directory"
		return h
	case err != nil:
		h.Missing = "not embedded: " + p.Path + " could not be read"
		return h
	}
	// The bytes are base64-encoded here, so the URI holds nothing but the
	// media type and the encoded image: safe to mark trusted.
	h.Src = template.URL("data:" + imageType(name) + ";base64," + base64.StdEncoding.EncodeToString(data))
	return h
}

// imageType is the media type of a plot file, by its extension.
func imageType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".svg":
		return "image/svg+xml"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return "application/octet-stream"
}
