package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/tableout"
)

// StatsOptions are the flags of `rooftool stats`.
type StatsOptions struct {
	IO         *IO
	Inputs     []string
	Format     string // table | csv | json; "" picks table on a terminal, csv otherwise
	Source     string // restrict to ncu | nsys | kineto
	Base       bool   // group by base kernel names (nsys :base)
	Mangled    bool   // group by mangled kernel names (nsys :mangled)
	Range      string // keep the NVTX range paths that match: glob or substring
	RangedOnly bool   // leave out the kernels outside every NVTX range
	Sort       string // time | instances | name
	Top        int    // keep the first N kernels of each range; 0 keeps all
	Report     string // "cuda_gpu_kern_sum": nsys's report exactly (no ranges, no Range column)
}

func newStatsCmd(io *IO) *cobra.Command {
	opts := &StatsOptions{IO: io}
	c := &cobra.Command{
		Use:   "stats FILE...|DIR",
		Short: "Summarise kernels per NVTX range, like nsys stats -r cuda_gpu_kern_sum",
		Long: `Stats prints, per NVTX range path, the columns of nsys stats -r cuda_gpu_kern_sum:
Time (%), Total Time (ns), Instances, Avg, Med, Min, Max and StdDev (ns, sample
standard deviation) and Name (the demangled name; --base or --mangled as nsys's
:base and :mangled). Time (%) is the kernel's share of its range's kernel time;
over an export without NVTX ranges the rows are nsys's report, figure for figure.
Kernels outside every NVTX range (warm-up, say) form the range "-", shown last.

Inputs are raw exports (ncu CSV, nsys SQLite, Kineto JSON) or one directory of
tables written by rooftool ingest or rooftool profile (its tables/ folder).
Two exports with the same content (SHA-256) are refused: one export given
twice would count its kernels twice. Inputs without kernels, or options
that leave none, are bad input (exit 2), not an empty table.
Kernels come from the timeline (nsys, Kineto) when the input has one, else from
the ncu kernel pass (times from gpu__time_duration.sum); --source picks one.

--range keeps the ranges whose path matches PATTERN: a glob over the whole path
when it holds * ? or [ (a * spans slashes), else a substring; "-" selects the
kernels outside every range. The table shortens long range paths and names in
the middle, and on a terminal (or with --width N) fits its width, headers
wrapped and figures whole; CSV and JSON keep them whole. CSV has nsys's nine columns, then Range.

Where stderr is a terminal, one line there shows the export being read and its
kernels so far, then the summary under way, wiped before the output; in a pipe
nothing is added.`,
		Example: `  rooftool stats testdata/realdata/gpu4/report.sqlite
  rooftool stats --range 'gla/*' --ranged-only --top 5 runs/2026-11-21-h100-1/tables
  rooftool stats --format json --base report.nsys-rep`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Inputs = args
			return runStats(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Format, "format", "", "output format: table, csv or json (default: table on a terminal, else csv)")
	f.StringVar(&opts.Source, "source", "", "count only kernels from this source: ncu, nsys or kineto")
	f.BoolVar(&opts.Base, "base", false, "group by base kernel names (nsys :base)")
	f.BoolVar(&opts.Mangled, "mangled", false, "group by mangled kernel names (nsys :mangled)")
	f.StringVar(&opts.Range, "range", "", "keep NVTX range paths matching this glob (whole path, * spans /) or substring; - is outside every range")
	f.BoolVar(&opts.RangedOnly, "ranged-only", false, "leave out the kernels outside every NVTX range")
	f.StringVar(&opts.Sort, "sort", analysis.SortTime, "order of the kernels of a range: time, instances or name")
	f.IntVar(&opts.Top, "top", 0, "keep the first N kernels of each range (0: all)")
	f.StringVar(&opts.Report, "report", "", "cuda_gpu_kern_sum: nsys's report exactly, every kernel together and no Range column, so scripts written for nsys work unchanged")
	mustRegisterCompletion(c, "report", completeOneOf(statsReport))
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	mustRegisterCompletion(c, "source", completeOneOf(ingest.SourceNCU, ingest.SourceNsys, ingest.SourceKineto))
	mustRegisterCompletion(c, "sort", completeOneOf(analysis.SortTime, analysis.SortInstances, analysis.SortName))
	return c
}

// loadTables reads raw exports, or one directory of ingested tables.
func loadTables(inputs []string) (*ingest.Tables, error) {
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			if err := checkTablesDir(inputs[0]); err != nil {
				return nil, err
			}
			return ingest.ReadDir(tablesDir(inputs[0]), nil)
		}
	}
	var in []ingest.Input
	for _, p := range inputs {
		in = append(in, ingest.Input{Path: p})
	}
	return ingest.Files(in, nil)
}

// statsSummary summarises the kernels of the inputs batch by batch
// (analysis.StreamSummary): a directory of tables as it is, raw exports
// once ingested into a temporary directory (ingest.WriteTempKernels: the
// kernels table alone); nsys SQLite exports whose summary needs no NVTX
// range (statsKernelsOnly) from their kernel tables and names alone.
// Where stderr is a terminal, progress shows the kernels read and then
// that the summary is being made; it is wiped before anything else is
// printed.
func statsSummary(inputs []string, source string, so analysis.SummaryOptions, io *IO) (analysis.Summary, error) {
	progress := newWorkProgress(io)
	defer progress.stop()
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			if err := checkTablesDir(inputs[0]); err != nil {
				return analysis.Summary{}, err
			}
			progress.start("summarising " + inputs[0])
			return analysis.StreamSummary(tablesDir(inputs[0]), source, so)
		}
	}
	if err := distinctInputs("stats", inputs); err != nil {
		return analysis.Summary{}, err
	}
	if statsKernelsOnly(inputs, source, so) {
		groups, warn, err := analysis.NsysSummaryGroups(inputs, so, func(p string) { progress.start("reading " + filepath.Base(p)) })
		progress.stop()
		if err != nil {
			return analysis.Summary{}, err
		}
		for _, m := range warn {
			fmt.Fprintf(io.Err, "warning: %s: %s\n", m.File, m.Value)
		}
		progress.start("summarising")
		return analysis.SummariseGroups(groups, so)
	}
	var in []ingest.Input
	for _, p := range inputs {
		in = append(in, ingest.Input{Path: p})
	}
	progress.watch(in)
	tmp, err := ingest.WriteTempKernels(in, "rooftool-stats-*")
	progress.stop()
	if err != nil {
		return analysis.Summary{}, err
	}
	defer tmp.Remove()
	for _, m := range tmp.Written.Warnings {
		fmt.Fprintf(io.Err, "warning: %s: %s\n", m.File, m.Value)
	}
	progress.start("summarising")
	return analysis.StreamSummary(tmp.Dir, source, so)
}

// checkTablesDir fails with bad input (exit 2) when dir, given where export
// files or a directory of tables are expected, holds no kernels table in
// itself or in tables/. Tables that are there but unreadable are left to
// the reader (exit 1).
func checkTablesDir(dir string) error {
	for _, d := range []string{filepath.Join(dir, "tables"), dir} {
		for _, f := range []string{ingest.FormatParquet, ingest.FormatArrow} {
			if _, err := os.Stat(filepath.Join(d, ingest.TableKernels+"."+f)); err == nil {
				return nil
			}
		}
	}
	return &ingest.InputError{File: dir, Err: fmt.Errorf("is a directory without ingested tables (no %s.parquet or %s.arrow in it or in its tables/): give export files (ncu CSV, nsys SQLite, Kineto JSON) or a directory rooftool ingest or rooftool profile wrote",
		ingest.TableKernels, ingest.TableKernels)}
}

// tablesDir accepts a run directory (with tables/) or a tables directory.
func tablesDir(dir string) string {
	if st, err := os.Stat(dir + "/tables"); err == nil && st.IsDir() {
		return dir + "/tables"
	}
	return dir
}

func runStats(ctx context.Context, opts *StatsOptions) error {
	format := opts.Format
	if format == "" {
		format = "csv"
		if opts.IO.IsTTY {
			format = "table"
		}
	}
	if err := checkDataFormat("stats", format); err != nil {
		return err
	}
	switch opts.Source {
	case "", ingest.SourceNCU, ingest.SourceNsys, ingest.SourceKineto:
	default:
		return usageErrorf("stats: --source %q: want ncu, nsys or kineto", opts.Source)
	}
	so := analysis.SummaryOptions{Names: analysis.NamesDemangled, Range: opts.Range,
		RangedOnly: opts.RangedOnly, Sort: opts.Sort, Top: opts.Top}
	switch opts.Report {
	case "":
	case statsReport:
		so.Flat = true
	default:
		return usageErrorf("stats: --report %q: want %s", opts.Report, statsReport)
	}
	switch {
	case opts.Base && opts.Mangled:
		return usageErrorf("stats: --base and --mangled exclude each other")
	case opts.Base:
		so.Names = analysis.NamesBase
	case opts.Mangled:
		so.Names = analysis.NamesMangled
	}
	if err := so.Validate(); err != nil {
		return usageErrorf("stats: %v", err)
	}
	s, err := statsSummary(opts.Inputs, opts.Source, so, opts.IO)
	var te *analysis.SummaryTimeError
	if errors.As(err, &te) {
		return &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: err}
	}
	if err != nil {
		return err
	}
	if len(s.Rows) == 0 {
		return &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: errors.New(statsNothing(opts))}
	}
	if s.NameFallbacks > 0 && so.Names != analysis.NamesDemangled {
		fmt.Fprintf(opts.IO.Err, "warning: %d kernel(s) have no %s name in the input: they are listed by their demangled name\n", s.NameFallbacks, so.Names)
	}
	return writeData(opts.IO, format, tableout.Output{
		CSV:  statsCSV(s.Rows, so.Flat),
		JSON: newStatsJSON(s.Rows, so),
		Text: func(w io.Writer) error { return writeStatsTable(w, s, opts.Top) },
	})
}

// statsNothing says why stats has no row to print: what the options left
// out, or inputs without kernels.
func statsNothing(opts *StatsOptions) string {
	var why []string
	if opts.Source != "" {
		why = append(why, "--source "+opts.Source)
	}
	if opts.Range != "" {
		why = append(why, fmt.Sprintf("--range %q", opts.Range))
	}
	if opts.RangedOnly {
		why = append(why, "--ranged-only")
	}
	if len(why) == 0 {
		return "no kernels: the inputs hold no kernel launches to summarise"
	}
	return "no kernels with " + strings.Join(why, " and ") + ": nothing to summarise"
}

// statsColumns are the columns of nsys stats -r cuda_gpu_kern_sum as its
// CSV spells them; rooftool's CSV adds statsRangeColumn after them.
var statsColumns = []string{"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"}

const statsRangeColumn = "Range"

// statsJSONVersion is the "rooftool_stats" field of the JSON output; it
// changes when the shape does (2: --report cuda_gpu_kern_sum rows have no
// Range key).
const statsJSONVersion = 2

// statsJSON is the JSON output of `rooftool stats --format json`:
//
//	{
//	  "rooftool_stats": 2,               // version of this shape
//	  "report": "cuda_gpu_kern_sum",     // the nsys report the rows follow
//	  "names": "demangled",              // or "base", "mangled"
//	  "rows": [                          // in table order: ranges by path, "-" last
//	    {
//	      "Time (%)": 62.3,              // share of the range's kernel time, 1 decimal
//	      "Total Time (ns)": 1234567,
//	      "Instances": 10,
//	      "Avg (ns)": 123456.7,          // Avg, Med, StdDev: 1 decimal, as nsys rounds (fmtStat)
//	      "Med (ns)": 123000.5,
//	      "Min (ns)": 120000,
//	      "Max (ns)": 130000,
//	      "StdDev (ns)": 3000.1,         // sample standard deviation, 0 for one instance
//	      "Name": "void gemm<float>(...)",
//	      "Range": "gla/fused/B=8,T=4096" // NVTX range path, whole; "-" outside every range; absent with --report
//	    }
//	  ]
//	}
//
// Row keys are the CSV column names, which are nsys's.
type statsJSON struct {
	Version int            `json:"rooftool_stats"`
	Report  string         `json:"report"`
	Names   string         `json:"names"`
	Rows    []statsJSONRow `json:"rows"`
}

type statsJSONRow struct {
	TimePct   float64 `json:"Time (%)"`
	TotalNs   int64   `json:"Total Time (ns)"`
	Instances int     `json:"Instances"`
	AvgNs     float64 `json:"Avg (ns)"`
	MedNs     float64 `json:"Med (ns)"`
	MinNs     int64   `json:"Min (ns)"`
	MaxNs     int64   `json:"Max (ns)"`
	StdDevNs  float64 `json:"StdDev (ns)"`
	Name      string  `json:"Name"`
	Range     string  `json:"Range,omitempty"` // "" only with --report (so.Flat): rangeLabel is never ""
}

func newStatsJSON(rows []analysis.SummaryRow, so analysis.SummaryOptions) statsJSON {
	out := statsJSON{Version: statsJSONVersion, Report: statsReport, Names: so.Names, Rows: []statsJSONRow{}}
	r1 := analysis.RoundHalfUp
	for _, r := range rows {
		jr := statsJSONRow{TimePct: r1(r.TimePct), TotalNs: r.TotalNs, Instances: r.Instances,
			AvgNs: roundStat(r.AvgNs), MedNs: roundStat(r.MedNs), MinNs: r.MinNs, MaxNs: r.MaxNs, StdDevNs: roundStat(r.StdDevNs), Name: r.Name}
		if !so.Flat {
			jr.Range = rangeLabel(r.Range)
		}
		out.Rows = append(out.Rows, jr)
	}
	return out
}

// rangeLabel names a range path, "-" for the kernels outside every range.
func rangeLabel(path string) string {
	if path == "" {
		return analysis.UnrangedLabel
	}
	return path
}

// fmt1 prints a percentage with one decimal: rounded half away from zero.
func fmt1(v float64) string { return strconv.FormatFloat(analysis.RoundHalfUp(v), 'f', 1, 64) }

// fmtStat prints an average, median or standard deviation with one
// decimal as nsys prints the float64 it computes: the exact binary value
// correctly rounded (strconv), so an average of 328,962 ns over 40, whose
// nearest float64 lies just below 8224.05, prints 8224.0.
func fmtStat(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// roundStat is fmtStat's figure as a number, for JSON.
func roundStat(v float64) float64 {
	r, _ := strconv.ParseFloat(fmtStat(v), 64)
	return r
}

// statsCells are the nsys columns of one row, unformatted for CSV.
func statsCells(r analysis.SummaryRow) []string {
	return []string{fmt1(r.TimePct), strconv.FormatInt(r.TotalNs, 10), strconv.Itoa(r.Instances),
		fmtStat(r.AvgNs), fmtStat(r.MedNs), strconv.FormatInt(r.MinNs, 10), strconv.FormatInt(r.MaxNs, 10), fmtStat(r.StdDevNs), r.Name}
}

// statsCSV is the CSV of the rows: nsys's columns, then Range; flat
// (--report) as nsys stats --format csv writes cuda_gpu_kern_sum, its
// header exactly and no Range column.
func statsCSV(rows []analysis.SummaryRow, flat bool) tableout.Table {
	if flat {
		t := tableout.Table{Header: statsColumns}
		for _, r := range rows {
			t.Rows = append(t.Rows, statsCells(r))
		}
		return t
	}
	t := tableout.Table{Header: append(append([]string{}, statsColumns...), statsRangeColumn)}
	for _, r := range rows {
		t.Rows = append(t.Rows, append(statsCells(r), rangeLabel(r.Range)))
	}
	return t
}

// statsReport is the nsys report --report reproduces.
const statsReport = "cuda_gpu_kern_sum"

// tableTextMax is the most characters of a range path or kernel name the
// table prints; longer ones lose their middle.
const tableTextMax = 100

// middleEllipsis shortens s to at most max characters by replacing its
// middle with "...", keeping the outer end (outer ranges, the return type)
// and the inner end (innermost range, the parameters).
func middleEllipsis(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	r := []rune(s)
	head := (max - 3 + 1) / 2
	tail := max - 3 - head
	return string(r[:head]) + "..." + string(r[n-tail:])
}

// writeStatsTable prints one nsys-style table per range: centred headers
// over dashes, numbers right-aligned with thousands separators, the name
// left-aligned. Written to a tableout.FitWriter, each table fits its width:
// headers wrapped, names and range paths shortened in the middle, figures
// whole.
func writeStatsTable(w io.Writer, s analysis.Summary, top int) error {
	width := tableout.Width(w)
	if len(s.Rows) == 0 {
		_, err := fmt.Fprintln(w, "no kernels")
		return err
	}
	var b strings.Builder
	for i := 0; i < len(s.Rows); {
		j := i
		for j < len(s.Rows) && s.Rows[j].Range == s.Rows[i].Range {
			j++
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		path := s.Rows[i].Range
		if path == "" {
			b.WriteString("NVTX range: - (outside every NVTX range)\n\n")
		} else {
			const label = "NVTX range: "
			shown := middleEllipsis(path, tableTextMax)
			if width > len(label) {
				shown = tableout.Shorten(shown, width-len(label))
			}
			fmt.Fprintf(&b, "%s%s\n\n", label, shown)
		}
		writeStatsBlock(&b, s.Rows[i:j], width)
		if n := s.LeftOut[path]; n > 0 {
			fmt.Fprintf(&b, " ... %d more kernel(s) (--top %d)\n", n, top)
		}
		i = j
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeStatsBlock(b *strings.Builder, rows []analysis.SummaryRow, fit int) {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = []string{fmt1(r.TimePct), group(strconv.FormatInt(r.TotalNs, 10)), group(strconv.Itoa(r.Instances)),
			group(fmtStat(r.AvgNs)), group(fmtStat(r.MedNs)), group(strconv.FormatInt(r.MinNs, 10)), group(strconv.FormatInt(r.MaxNs, 10)),
			group(fmtStat(r.StdDevNs)), middleEllipsis(r.Name, tableTextMax)}
	}
	last := len(statsColumns) - 1
	// A line is " " and the cells two spaces apart.
	width, _ := tableout.Table{Header: statsColumns, Rows: cells}.Widths(fit, 1+2*last)
	for _, row := range cells {
		row[last] = tableout.Shorten(row[last], width[last])
	}
	heads := make([][]string, len(statsColumns))
	lines := 0
	for i, h := range statsColumns {
		heads[i] = tableout.WrapCell(h, width[i])
		lines = max(lines, len(heads[i]))
	}
	line := func(cols []string, align func(i int, c string) string) {
		var l strings.Builder
		for i, c := range cols {
			l.WriteString(" ")
			if i > 0 {
				l.WriteString(" ")
			}
			l.WriteString(align(i, c))
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	pad := func(c string, n int) string { return strings.Repeat(" ", max(0, n)) + c }
	for k := range lines {
		head := make([]string, len(heads))
		for i, h := range heads {
			if k < len(h) {
				head[i] = h[k]
			}
		}
		line(head, func(i int, c string) string {
			extra := width[i] - utf8.RuneCountInString(c)
			return pad(c, extra/2) + strings.Repeat(" ", max(0, extra-extra/2))
		})
	}
	dashes := make([]string, len(statsColumns))
	for i := range dashes {
		dashes[i] = strings.Repeat("-", width[i])
	}
	line(dashes, func(_ int, c string) string { return c })
	for _, row := range cells {
		line(row, func(i int, c string) string {
			n := width[i] - utf8.RuneCountInString(c)
			if i == last {
				return c + strings.Repeat(" ", n)
			}
			return pad(c, n)
		})
	}
}

// group puts thousands separators into the integer part of a decimal number.
func group(s string) string {
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	sign := ""
	if strings.HasPrefix(intPart, "-") {
		sign, intPart = "-", intPart[1:]
	}
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteString(frac)
	return b.String()
}
