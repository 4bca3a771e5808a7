// Package tableout writes a command's records in the --format it was
// given: an aligned text table for reading, CSV (one header line, then one
// row per record) or one JSON value. Every command that prints data writes
// through it, so that the three formats read alike across commands.
package tableout

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"
)

// Output formats.
const (
	FormatTable = "table"
	FormatCSV   = "csv"
	FormatJSON  = "json"
)

// Formats are the output formats, in the order help texts name them.
var Formats = []string{FormatTable, FormatCSV, FormatJSON}

// Valid reports whether format is one of Formats.
func Valid(format string) bool {
	for _, f := range Formats {
		if format == f {
			return true
		}
	}
	return false
}

// Table is a header and rows of cells.
type Table struct {
	Header []string // nil: no header line
	Rows   [][]string
	// HeadMore are the further lines of a header that fitting wrapped
	// onto several lines (Fit).
	HeadMore [][]string
}

// Style is how a text table lays out its columns.
type Style int

// Text table styles.
const (
	// Columns: cells left-aligned, columns two spaces apart, the last
	// column not padded.
	Columns Style = iota
	// RightAligned: cells right-aligned, columns two spaces apart, every
	// column padded.
	RightAligned
	// Markdown: a Markdown table whose cells are padded to equal width,
	// with a --- rule under the header.
	Markdown
)

// WriteText writes t as an aligned text table in style s. Written to a
// FitWriter, a table wider than its width is fitted first (fit): names
// shortened in the middle, figures whole, and where that is not enough its
// columns in groups, one table after another.
func (t Table) WriteText(w io.Writer, s Style) error {
	if n := Width(w); n > 0 {
		for i, g := range t.Fit(n, s) {
			if i > 0 {
				if _, err := fmt.Fprintln(w); err != nil {
					return err
				}
			}
			if err := g.Table.writeText(w, s); err != nil {
				return err
			}
		}
		return nil
	}
	return t.writeText(w, s)
}

// writeText writes t as it is.
func (t Table) writeText(w io.Writer, s Style) error {
	var tw *tabwriter.Writer
	var line func(cells []string) string
	switch s {
	case RightAligned:
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		line = func(cells []string) string { return strings.Join(cells, "\t") + "\t" }
	case Markdown:
		tw = tabwriter.NewWriter(w, 0, 4, 1, ' ', tabwriter.Debug)
		line = func(cells []string) string { return "| " + strings.Join(cells, "\t ") + "\t" }
	default:
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		line = func(cells []string) string { return strings.Join(cells, "\t") }
	}
	if t.Header != nil {
		for _, h := range append([][]string{t.Header}, t.HeadMore...) {
			if _, err := fmt.Fprintln(tw, line(h)); err != nil {
				return err
			}
		}
		if s == Markdown {
			rule := make([]string, len(t.Header))
			for i := range rule {
				rule[i] = "---"
			}
			if _, err := fmt.Fprintln(tw, line(rule)); err != nil {
				return err
			}
		}
	}
	for _, r := range t.Rows {
		if _, err := fmt.Fprintln(tw, line(r)); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// WriteCSV writes t as CSV: the header line (where there is one), then
// one line per row. A NUL byte in a field (a kernel name of a hostile or
// broken export) is written as the four characters \x00: CSV readers stop
// at a raw NUL (Python's csv: "line contains NUL").
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if t.Header != nil {
		if err := cw.Write(noNUL(t.Header)); err != nil {
			return err
		}
	}
	for _, r := range t.Rows {
		if err := cw.Write(noNUL(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// noNUL is r with each NUL byte written \x00 (r itself where it has none).
func noNUL(r []string) []string {
	var out []string
	for i, f := range r {
		if strings.IndexByte(f, 0) < 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(r)
		}
		out[i] = strings.ReplaceAll(f, "\x00", `\x00`)
	}
	if out == nil {
		return r
	}
	return out
}

// WriteJSON writes v as JSON indented by two spaces, with <, > and & as
// they are (kernel names are full of them).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Output is what a command prints in each format.
type Output struct {
	CSV  Table // --format csv
	JSON any   // --format json
	// Text writes --format table; nil writes CSV as a Columns table.
	Text func(io.Writer) error
	// Width fits --format table to this many columns (a FitWriter); 0
	// writes it whole. CSV and JSON are always whole.
	Width int
}

// Write writes o in format, one of Formats; an unknown format is an error.
func Write(w io.Writer, format string, o Output) error {
	switch format {
	case FormatCSV:
		return o.CSV.WriteCSV(w)
	case FormatJSON:
		return WriteJSON(w, o.JSON)
	case FormatTable:
		text := o.Text
		if text == nil {
			text = func(w io.Writer) error { return o.CSV.WriteText(w, Columns) }
		}
		if o.Width <= 0 {
			return text(w)
		}
		fw := NewFitWriter(w, o.Width)
		if err := text(fw); err != nil {
			return err
		}
		return fw.Flush()
	}
	return fmt.Errorf("output format %q: want %s", format, strings.Join(Formats, ", "))
}

// Records makes a Table of a slice of structs: one column per exported
// field, named by its JSON key, in field order, so that CSV and JSON share
// names and units. A string cell is the string as it is; any other value
// is as JSON writes it (numbers, booleans, lists and objects); an empty
// value of an omitempty field, or a nil list, object or pointer, is "".
func Records(rows any) (Table, error) {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Struct {
		return Table{}, fmt.Errorf("tableout.Records: want a slice of structs, got %T", rows)
	}
	type col struct {
		index     int
		name      string
		omitEmpty bool
	}
	var cols []col
	st := v.Type().Elem()
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		cols = append(cols, col{i, name, strings.Contains(opt, "omitempty")})
	}
	t := Table{Header: make([]string, len(cols)), Rows: make([][]string, 0, v.Len())}
	for i, c := range cols {
		t.Header[i] = c.name
	}
	for r := 0; r < v.Len(); r++ {
		rec := make([]string, len(cols))
		for i, c := range cols {
			fv := v.Index(r).Field(c.index)
			switch {
			case c.omitEmpty && fv.IsZero():
			case fv.Kind() == reflect.String:
				rec[i] = fv.String()
			case (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map || fv.Kind() == reflect.Pointer) && fv.IsNil():
			default:
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(fv.Interface()); err != nil {
					return Table{}, fmt.Errorf("column %s: %w", c.name, err)
				}
				rec[i] = strings.TrimSuffix(b.String(), "\n")
			}
		}
		t.Rows = append(t.Rows, rec)
	}
	return t, nil
}
