package reports

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/rooftool/rooftool/internal/tableout"
)

// siPrefixes for decimal SI formatting, smallest first.
var siPrefixes = []struct {
	exp    int
	prefix string
}{{-9, "n"}, {-6, "µ"}, {-3, "m"}, {0, ""}, {3, "k"}, {6, "M"}, {9, "G"}, {12, "T"}, {15, "P"}}

// SI formats v with a decimal SI prefix and unit and four significant digits
// (fixed, so output is stable): SI(1.748e9, "B") = "1.748 GB",
// SI(0.000012345, "s") = "12.35 µs". Zero is "0 <unit>".
func SI(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == 0:
		return "0 " + unit
	}
	p := siPrefixOf(v)
	m := v / math.Pow10(p.exp)
	return sig4(m) + " " + p.prefix + unit
}

// siPrefixOf is the SI prefix SI writes v with.
func siPrefixOf(v float64) struct {
	exp    int
	prefix string
} {
	a := math.Abs(v)
	p := siPrefixes[0]
	for _, c := range siPrefixes {
		if a >= math.Pow10(c.exp)*0.9995 {
			p = c
		}
	}
	return p
}

// sig4 formats a mantissa in [1, 1000) with four significant digits.
func sig4(m float64) string {
	a := math.Abs(m)
	switch {
	case a >= 99.995:
		return fmt.Sprintf("%.1f", m)
	case a >= 9.9995:
		return fmt.Sprintf("%.2f", m)
	default:
		return fmt.Sprintf("%.3f", m)
	}
}

// Bytes formats a byte count: "129.0 MB". Zero means not measured: "—".
func Bytes(v float64) string {
	if v == 0 {
		return "—"
	}
	return SI(v, "B")
}

// FLOPs formats a FLOP count: "60.13 GFLOP". Zero: "—".
func FLOPs(v float64) string {
	if v == 0 {
		return "—"
	}
	return SI(v, "FLOP")
}

// Ms formats milliseconds as seconds with an SI prefix: "12.35 µs".
func Ms(ms float64) string { return SI(ms/1e3, "s") }

// Ratio formats a dimensionless factor: "1.234x".
func Ratio(v float64) string { return fmt.Sprintf("%.3fx", v) }

// Pct formats a fraction as a percentage: 0.615 -> "61.5%".
func Pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// num formats a plain number compactly and deterministically.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e6 {
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
	}
	return fmt.Sprintf("%.3g", v)
}

// Align says how a column's cells are padded.
type Align int

// Column alignments.
const (
	Left Align = iota
	Right
)

// Table is a Markdown table whose columns are padded to equal width, so it
// reads as a table both rendered (GitHub) and as plain text.
type Table struct {
	Header []string
	Align  []Align
	Rows   [][]string
	// headMore are further header lines (a header wrapped to fit).
	headMore [][]string
}

// width counts runes: every character the report uses (µ, —, ×) is one
// column wide in a monospace font.
func width(s string) int { return utf8.RuneCountInString(s) }

func pad(s string, w int, a Align) string {
	n := w - width(s)
	if n <= 0 {
		return s
	}
	if a == Right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// escapeCell keeps a cell from breaking the Markdown table.
func escapeCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// Write writes the table as GitHub-flavoured Markdown with padded columns.
// Written to a tableout.FitWriter (a terminal), a table wider than its
// width is fitted as tableout fits its own: headers wrapped onto more
// lines, names shortened in the middle, figures whole, and where it still
// does not fit, its columns split into groups that repeat the leading names.
func (t Table) Write(w io.Writer) error {
	if n := tableout.Width(w); n > 0 {
		for i, g := range (tableout.Table{Header: t.Header, Rows: t.Rows}).Fit(n, tableout.Markdown) {
			if i > 0 {
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			sub := Table{Header: g.Header, Rows: g.Rows, headMore: g.HeadMore}
			for _, c := range g.Cols {
				a := Left
				if c < len(t.Align) {
					a = t.Align[c]
				}
				sub.Align = append(sub.Align, a)
			}
			if err := sub.write(w); err != nil {
				return err
			}
		}
		return nil
	}
	return t.write(w)
}

// write writes the table as it is.
func (t Table) write(w io.Writer) error {
	n := len(t.Header)
	ws := make([]int, n)
	heads := 1 + len(t.headMore)
	cells := make([][]string, 0, len(t.Rows)+heads)
	cells = append(cells, t.Header)
	cells = append(cells, t.headMore...)
	cells = append(cells, t.Rows...)
	for i, r := range cells {
		row := make([]string, n)
		for j := 0; j < n && j < len(r); j++ {
			row[j] = escapeCell(r[j])
		}
		cells[i] = row
		for j := range ws {
			if ws[j] < 3 {
				ws[j] = 3 // a separator cell needs three characters
			}
		}
		for j, c := range row {
			if width(c) > ws[j] {
				ws[j] = width(c)
			}
		}
	}
	align := func(j int) Align {
		if j < len(t.Align) {
			return t.Align[j]
		}
		return Left
	}
	var b strings.Builder
	line := func(row []string) {
		b.WriteString("|")
		for j, c := range row {
			b.WriteString(" " + pad(c, ws[j], align(j)) + " |")
		}
		b.WriteString("\n")
	}
	for _, h := range cells[:heads] {
		line(h)
	}
	b.WriteString("|")
	for j := range ws {
		w := ws[j]
		if align(j) == Right {
			b.WriteString(" " + strings.Repeat("-", w-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", w) + " |")
		}
	}
	b.WriteString("\n")
	for _, r := range cells[heads:] {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// coverage formats a range-coverage ratio cut (not rounded) to two
// decimals, so that a ratio under a threshold never prints as the
// threshold: 0.8955 is "0.89", not "0.90".
func coverage(v float64) string {
	return fmt.Sprintf("%.2f", math.Floor(v*100+1e-9)/100)
}
