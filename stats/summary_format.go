package stats

// The output of a kernel summary (Summary) as rooftool stats writes it:
// nsys's cuda_gpu_kern_sum columns as CSV (SummaryCSV), JSON
// (NewSummaryJSON) and nsys-style text tables per NVTX range
// (WriteSummaryTable).

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rooftool/rooftool/internal/tableout"
)

// Columns are the columns of nsys stats -r cuda_gpu_kern_sum as its
// CSV spells them; rooftool's CSV adds summaryRangeColumn after them.
var Columns = []string{"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"}

const summaryRangeColumn = "Range"

// JSONVersion is the "rooftool_stats" field of the JSON output; it
// changes when the shape does (2: --report cuda_gpu_kern_sum rows have no
// Range key).
const JSONVersion = 2

// SummaryJSON is the JSON output of `rooftool stats --format json` (SummaryJSON):
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
type SummaryJSON struct {
	Version int              `json:"rooftool_stats"`
	Report  string           `json:"report"`
	Names   string           `json:"names"`
	Rows    []summaryJSONRow `json:"rows"`
}

type summaryJSONRow struct {
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

func NewSummaryJSON(rows []Row, so Options) SummaryJSON {
	out := SummaryJSON{Version: JSONVersion, Report: SummaryReport, Names: so.Names, Rows: []summaryJSONRow{}}
	r1 := NsysRound1
	for _, r := range rows {
		jr := summaryJSONRow{TimePct: r1(r.TimePct), TotalNs: r.TotalNs, Instances: r.Instances,
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
		return UnrangedLabel
	}
	return path
}

// fmt1 prints a percentage with one decimal as nsys rounds it (FormatNsys1).
func fmt1(v float64) string { return FormatNsys1(v) }

// fmtStat prints an average, median or standard deviation with one
// decimal as nsys rounds it (FormatNsys1): an average of 328,962 ns over
// 40, whose nearest float64 lies just below 8224.05, prints 8224.0; one
// of 5 ns over 4, exactly 1.25, prints 1.3.
func fmtStat(v float64) string { return FormatNsys1(v) }

// roundStat is fmtStat's figure as a number, for JSON.
func roundStat(v float64) float64 { return NsysRound1(v) }

// summaryCells are the nsys columns of one row, unformatted for CSV.
func summaryCells(r Row) []string {
	return []string{fmt1(r.TimePct), strconv.FormatInt(r.TotalNs, 10), strconv.Itoa(r.Instances),
		fmtStat(r.AvgNs), fmtStat(r.MedNs), strconv.FormatInt(r.MinNs, 10), strconv.FormatInt(r.MaxNs, 10), fmtStat(r.StdDevNs), r.Name}
}

// SummaryCSV is the CSV of the rows: nsys's columns, then Range; flat
// (--report) as nsys stats --format csv writes cuda_gpu_kern_sum, its
// header exactly and no Range column.
func SummaryCSV(rows []Row, flat bool) tableout.Table {
	if flat {
		t := tableout.Table{Header: Columns}
		for _, r := range rows {
			t.Rows = append(t.Rows, summaryCells(r))
		}
		return t
	}
	t := tableout.Table{Header: append(append([]string{}, Columns...), summaryRangeColumn)}
	for _, r := range rows {
		t.Rows = append(t.Rows, append(summaryCells(r), rangeLabel(r.Range)))
	}
	return t
}

// SummaryReport is the nsys report --report reproduces.
const SummaryReport = "cuda_gpu_kern_sum"

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

// WriteSummaryTable prints one nsys-style table per range: centred headers
// over dashes, numbers right-aligned with thousands separators, the name
// left-aligned. Written to a tableout.FitWriter, each table fits its width:
// headers wrapped, names and range paths shortened in the middle, figures
// whole.
func WriteSummaryTable(w io.Writer, s Summary, top int) error {
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
		writeSummaryBlock(&b, s.Rows[i:j], width)
		if n := s.LeftOut[path]; n > 0 {
			fmt.Fprintf(&b, " ... %d more kernel(s) (--top %d)\n", n, top)
		}
		i = j
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSummaryBlock(b *strings.Builder, rows []Row, fit int) {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = []string{fmt1(r.TimePct), tableout.Thousands(strconv.FormatInt(r.TotalNs, 10)), tableout.Thousands(strconv.Itoa(r.Instances)),
			tableout.Thousands(fmtStat(r.AvgNs)), tableout.Thousands(fmtStat(r.MedNs)), tableout.Thousands(strconv.FormatInt(r.MinNs, 10)), tableout.Thousands(strconv.FormatInt(r.MaxNs, 10)),
			tableout.Thousands(fmtStat(r.StdDevNs)), middleEllipsis(r.Name, tableTextMax)}
	}
	left := make([]bool, len(Columns))
	left[len(left)-1] = true
	writeBlock(b, Columns, left, cells, fit)
}

// writeBlock writes an nsys-style table: headers centred over dashes,
// the left columns' cells (texts) left-aligned, the others (figures)
// right-aligned, a line " " and the cells two spaces apart. Where fit is
// above 0 the table fits that many columns: headers wrapped, texts
// shortened in the middle, figures whole.
func writeBlock(b *strings.Builder, header []string, left []bool, cells [][]string, fit int) {
	// A line is " " and the cells two spaces apart.
	width, _ := tableout.Table{Header: header, Rows: cells}.Widths(fit, 1+2*(len(header)-1))
	for _, row := range cells {
		for i := range row {
			if left[i] {
				row[i] = tableout.Shorten(row[i], width[i])
			}
		}
	}
	heads := make([][]string, len(header))
	lines := 0
	for i, h := range header {
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
	dashes := make([]string, len(header))
	for i := range dashes {
		dashes[i] = strings.Repeat("-", width[i])
	}
	line(dashes, func(_ int, c string) string { return c })
	for _, row := range cells {
		line(row, func(i int, c string) string {
			n := width[i] - utf8.RuneCountInString(c)
			if left[i] {
				return c + strings.Repeat(" ", n)
			}
			return pad(c, n)
		})
	}
}
