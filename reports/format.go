package reports

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/rooftool/rooftool/internal/tableout"
)

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
