package tableout

// Fitting text output to a terminal's width: Write hands a text writer a
// FitWriter where Output.Width is set; Table.WriteText shortens the names of
// a table that would be wider (figures stay whole, and a table that still
// does not fit is split into column groups that repeat its leading name
// columns), and the FitWriter word-wraps any other line that is too long.
// CSV and JSON are never fitted.

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Ellipsis marks the middle of a shortened name.
const Ellipsis = "…"

// minName is the fewest columns a name column is shortened to while a
// table is fitted (less where the name itself is shorter); minHeader the
// fewest a figure column's header is shortened to (never less than its
// widest figure).
const (
	minName   = 12
	minHeader = 24
	minCut    = 3 // the fewest a name is cut to where the figures leave no more
)

// Shorten returns s, or s shortened in the middle to n columns (runes),
// keeping its first and last characters: a kernel's name keeps its return
// type and its parameters, a range path its outer and inner ranges.
func Shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 2 {
		return string(r[:max(n, 0)])
	}
	head := n / 2
	tail := n - 1 - head
	return string(r[:head]) + Ellipsis + string(r[len(r)-tail:])
}

// FitWriter passes text on to a writer line by line, word-wrapping each
// line wider than Width columns; continuation lines are indented two
// columns more than the line they continue. Tables written to it through
// Table.WriteText are fitted before they reach it.
type FitWriter struct {
	w     io.Writer
	width int
	buf   []byte
}

// NewFitWriter returns a FitWriter of width columns over w.
func NewFitWriter(w io.Writer, width int) *FitWriter {
	return &FitWriter{w: w, width: width}
}

// Width is the width the text written to w is fitted to: the FitWriter's,
// or 0 (no limit) for any other writer.
func Width(w io.Writer) int {
	if f, ok := w.(*FitWriter); ok {
		return f.width
	}
	return 0
}

// Write writes p's complete lines, wrapped, and keeps the rest for the
// next Write or Flush.
func (f *FitWriter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(f.buf[:i])
		f.buf = f.buf[i+1:]
		if _, err := io.WriteString(f.w, wrapLine(line, f.width)+"\n"); err != nil {
			return 0, err
		}
	}
}

// Flush writes the last line where it had no newline.
func (f *FitWriter) Flush() error {
	if len(f.buf) == 0 {
		return nil
	}
	line := string(f.buf)
	f.buf = nil
	_, err := io.WriteString(f.w, wrapLine(line, f.width))
	return err
}

// wrapLine breaks line at spaces into lines of at most width columns,
// keeping its spacing. Continuation lines start under the last column of
// an aligned line (the text after its last run of two or more spaces,
// where that lies in the first half of the line), else two columns in
// from the line's own indent; a word wider than a line is cut.
func wrapLine(line string, width int) string {
	if width <= 0 || utf8.RuneCountInString(line) <= width {
		return line
	}
	indent := utf8.RuneCountInString(line) - utf8.RuneCountInString(strings.TrimLeft(line, " "))
	cont := indent + 2
	if m := lastColumn.FindAllStringIndex(line, -1); len(m) > 0 {
		if col := utf8.RuneCountInString(line[:m[len(m)-1][1]]); col <= width/2 {
			cont = col
		}
	}
	if cont >= width/2 {
		cont = 0
	}
	return wrapLineIndent(line, width, strings.Repeat(" ", cont))
}

// lastColumn matches the gap before a column of an aligned line.
var lastColumn = regexp.MustCompile(`\S {2,}`)

// wrapLineIndent breaks line at its spaces (kept where no break falls)
// into lines of at most width columns, continuation lines starting with
// cont; a word wider than a line is cut.
func wrapLineIndent(line string, width int, cont string) string {
	var out []string
	contN := utf8.RuneCountInString(cont)
	cur, curN := "", 0
	fresh := true // cur holds no word yet
	for _, tok := range tokens.FindAllString(line, -1) {
		gap := tok[:len(tok)-len(strings.TrimLeft(tok, " "))]
		word := tok[len(gap):]
		n, g := utf8.RuneCountInString(word), utf8.RuneCountInString(gap)
		if n == 0 { // trailing spaces: kept where they fit
			if curN+g <= width {
				cur += gap
			}
			continue
		}
		if !fresh && curN+g+n > width {
			out = append(out, cur)
			cur, curN, fresh = cont, contN, true
		}
		if fresh && len(out) > 0 {
			gap, g = "", 0
		}
		for curN+g+n > width && n > 0 {
			room := max(width-curN-g, 1)
			r := []rune(word)
			out = append(out, cur+gap+string(r[:room]))
			word, n = string(r[room:]), n-room
			cur, curN, gap, g = cont, contN, "", 0
		}
		cur += gap + word
		curN += g + n
		fresh = false
	}
	return strings.Join(append(out, cur), "\n")
}

// tokens are a line's words, each with the spaces before it.
var tokens = regexp.MustCompile(` *[^ ]+| +$`)

// figureRe matches a cell that is a figure: a number, with thousands
// separators, an exponent, a sign, a unit or x or % after it, a letter or
// name= or a comparison before it (L 47%, n=50, <0.001); a list, range or
// interval of them.
var figureRe = regexp.MustCompile(`^(?:(?:[A-Z] |[a-z]+=|[<>≤≥])?[-+−]?[0-9][0-9.,]*(?:e[-+]?[0-9]+)?(?:x|%| ?[a-zA-Zµ/]{1,5})?(?:[ ,\[\]–+-]+|$))+$`)

// isFigure reports whether cell is a figure (figureRe); noneRe matches a
// cell that stands for no value, of either kind of column.
func isFigure(cell string) bool { return figureRe.MatchString(strings.TrimSpace(cell)) }

var noneRe = regexp.MustCompile(`^[-—–]?$`)

// overhead is the columns a table of k columns in style s takes besides
// its cells (WriteText's separators and padding).
func overhead(s Style, k int) int {
	switch s {
	case RightAligned:
		return 2 * k
	case Markdown:
		return 3*k + 1
	}
	return 2 * (k - 1)
}

// column is what fitting knows of one column of a table.
type column struct {
	natural int  // its widest cell, header included
	floor   int  // the fewest columns it may be narrowed to
	name    bool // a name column: no cell is a figure
}

// columns measures t's columns. A figure column is never narrower than
// its widest cell, nor than the longest word of its header (cut at
// minHeader), whose words wrap onto more lines; a name column may be
// narrowed to minName (its cells shortened in the middle).
func (t Table) columns() []column {
	k := len(t.Header)
	for _, r := range t.Rows {
		k = max(k, len(r))
	}
	cols := make([]column, k)
	for i := range cols {
		dataW, word := 0, 0
		if i < len(t.Header) {
			cols[i].natural = utf8.RuneCountInString(t.Header[i])
			for _, f := range strings.Fields(t.Header[i]) {
				word = max(word, min(utf8.RuneCountInString(f), minHeader))
			}
		}
		cols[i].name = true
		for _, r := range t.Rows {
			if i >= len(r) {
				continue
			}
			n := utf8.RuneCountInString(r[i])
			cols[i].natural = max(cols[i].natural, n)
			dataW = max(dataW, n)
			if !noneRe.MatchString(strings.TrimSpace(r[i])) && isFigure(r[i]) {
				cols[i].name = false
			}
		}
		cols[i].floor = max(dataW, word, 1)
		if cols[i].name {
			cols[i].floor = min(cols[i].natural, max(minName, word))
		}
	}
	return cols
}

// share gives the columns idx of cols widths that add up to at most
// budget: first the headers of figure columns are wrapped, the widest
// first, down to their floors; then names are shortened, the longest
// first, down to theirs, and then, where deep, to minCut. It reports
// whether they fit.
func share(cols []column, idx []int, budget int, deep bool) ([]int, bool) {
	w := make([]int, len(idx))
	total := 0
	for j, i := range idx {
		w[j] = cols[i].natural
		total += w[j]
	}
	// Last, where the figures leave less, names go below their floors.
	for _, phase := range []struct {
		names, deep bool
		floor       func(column) int
	}{
		{false, false, func(c column) int { return c.floor }},
		{true, false, func(c column) int { return c.floor }},
		{true, true, func(c column) int { return min(c.floor, minCut) }},
	} {
		if phase.deep && !deep {
			break
		}
		for total > budget {
			widest := -1
			for j, i := range idx {
				if cols[i].name == phase.names && w[j] > phase.floor(cols[i]) && (widest < 0 || w[j] > w[widest]) {
					widest = j
				}
			}
			if widest < 0 {
				break
			}
			w[widest]--
			total--
		}
	}
	return w, total <= budget
}

// Group is a table of some of another table's columns: Cols are their
// indices there.
type Group struct {
	Table
	Cols []int
}

// Fit returns t as one or more tables no wider than width in style s:
// t itself where it fits; else t with its headers wrapped and its names
// shortened; else t's columns in groups, each repeating t's leading name
// columns (its keys), fitted the same way. A command that lays out a
// table of its own writes the groups in its own way.
func (t Table) Fit(width int, s Style) []Group {
	cols := t.columns()
	all := make([]int, len(cols))
	for i := range all {
		all[i] = i
	}
	if w, ok := share(cols, all, width-overhead(s, len(cols)), false); ok {
		return []Group{{t.cut(all, w), all}}
	}
	var keys []int
	for i := 0; i < len(cols) && cols[i].name; i++ {
		keys = append(keys, i)
	}
	// The groups are packed at the columns' floors (as many figures as fit
	// beside the keys); share then gives the names what is left.
	keyW := 0
	for _, i := range keys {
		keyW += cols[i].floor
	}
	if len(keys) == len(cols) || keyW+overhead(s, len(keys)+1) >= width {
		keys, keyW = nil, 0
	}
	var groups [][]int
	group := append([]int(nil), keys...)
	used := keyW
	for i := len(keys); i < len(cols); i++ {
		if len(group) > len(keys) && used+cols[i].floor+overhead(s, len(group)+1) > width {
			groups = append(groups, group)
			group, used = append([]int(nil), keys...), keyW
		}
		group = append(group, i)
		used += cols[i].floor
	}
	groups = append(groups, group)
	out := make([]Group, len(groups))
	for g, idx := range groups {
		w, _ := share(cols, idx, width-overhead(s, len(idx)), true)
		out[g] = Group{t.cut(idx, w), idx}
	}
	return out
}

// cut is the columns idx of t at the widths w: each cell shortened in the
// middle to its column's width (a figure fits its column whole), each
// header wrapped onto as many lines as it needs.
func (t Table) cut(idx []int, w []int) Table {
	c := Table{Rows: make([][]string, len(t.Rows))}
	for k, r := range t.Rows {
		c.Rows[k] = make([]string, len(idx))
		for j, i := range idx {
			if i < len(r) {
				c.Rows[k][j] = Shorten(r[i], w[j])
			}
		}
	}
	if t.Header == nil {
		return c
	}
	var lines [][]string
	for j, i := range idx {
		var h []string
		if i < len(t.Header) {
			h = WrapCell(t.Header[i], w[j])
		}
		for len(lines) < len(h) {
			lines = append(lines, make([]string, len(idx)))
		}
		for l, part := range h {
			lines[l][j] = part
		}
	}
	if len(lines) == 0 {
		lines = [][]string{make([]string, len(idx))}
	}
	c.Header, c.HeadMore = lines[0], lines[1:]
	return c
}

// WrapCell breaks s at spaces into lines of at most n columns (a word
// longer than n is cut).
func WrapCell(s string, n int) []string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return []string{s}
	}
	return strings.Split(wrapLineIndent(s, n, ""), "\n")
}

// Widths are the widths of t's columns fitted to width columns, of which
// t's separators and padding take extra: each column's widest cell where
// they fit, else the widest narrowed first (figures kept whole; a name
// column down to minName). ok is false where even that does not fit.
// A table written by a command of its own layout uses it with Shorten and
// WrapCell.
func (t Table) Widths(width, extra int) (w []int, ok bool) {
	cols := t.columns()
	all := make([]int, len(cols))
	for i := range all {
		all[i] = i
	}
	if width <= 0 {
		w = make([]int, len(cols))
		for i, c := range cols {
			w[i] = c.natural
		}
		return w, true
	}
	return share(cols, all, width-extra, true)
}
