package stats

// A report's output (ReportTable) as rooftool stats --report writes it:
// CSV as nsys prints it, byte for byte; a text table under the report's
// title, as nsys's column format lays it out; JSON.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rooftool/rooftool/internal/tableout"
)

// WriteCSV writes t as `nsys stats --format csv` prints a report after
// its first line: the header and rows as Python's csv module writes them
// (a field quoted only where it holds a comma, a quote or a line break;
// NULL an empty field), then an empty line; for a skipped report,
// "SKIPPED: " and the message, then an empty line. A NUL byte is written
// as the four characters \x00, as rooftool's other CSV has it.
func (t ReportTable) WriteCSV(w io.Writer) error {
	var b bytes.Buffer
	if t.Skipped != "" {
		fmt.Fprintf(&b, "SKIPPED: %s\n\n", t.Skipped)
		_, err := w.Write(b.Bytes())
		return err
	}
	for i, c := range t.Report.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		csvField(&b, c.Name)
	}
	b.WriteByte('\n')
	for _, row := range t.Rows {
		for i, c := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			if !c.Null {
				csvField(&b, c.Text)
			}
		}
		b.WriteByte('\n')
		if b.Len() > 1<<16 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// csvField writes s as Python's csv.writer (QUOTE_MINIMAL) does.
func csvField(b *bytes.Buffer, s string) {
	s = strings.ReplaceAll(s, "\x00", `\x00`)
	if !strings.ContainsAny(s, ",\"\r\n") {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

// WriteText writes t as a text table under its title, as nsys's column
// format lays a report out: " ** Title (name):", an empty line, then
// centred headers over dashes, figures right-aligned with thousands
// separators, text left-aligned; or the SKIPPED line. Written to a
// tableout.FitWriter, the table fits its width (headers wrapped, texts
// shortened in the middle, figures whole).
func (t ReportTable) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, " ** %s (%s):\n\n", t.Report.Title, t.Report.Name)
	if t.Skipped != "" {
		fmt.Fprintf(&b, "SKIPPED: %s\n", t.Skipped)
		_, err := io.WriteString(w, b.String())
		return err
	}
	head := make([]string, len(t.Report.Columns))
	left := make([]bool, len(t.Report.Columns))
	for i, c := range t.Report.Columns {
		head[i], left[i] = c.Name, c.Kind == ColText
	}
	cells := make([][]string, len(t.Rows))
	for i, row := range t.Rows {
		cells[i] = make([]string, len(row))
		for j, c := range row {
			switch {
			case c.Null:
			case t.Report.Columns[j].Kind == ColFigure:
				cells[i][j] = tableout.Thousands(c.Text)
			case t.Report.Columns[j].Kind == ColText:
				cells[i][j] = middleEllipsis(c.Text, tableTextMax)
			default:
				cells[i][j] = c.Text
			}
		}
	}
	writeBlock(&b, head, left, cells, tableout.Width(w))
	_, err := io.WriteString(w, b.String())
	return err
}

// ReportJSON is the JSON output of `rooftool stats --report R --format
// json` for a report other than cuda_gpu_kern_sum (whose output is
// SummaryJSON):
//
//	{
//	  "rooftool_stats": 2,
//	  "report": "cuda_api_sum",        // the nsys report
//	  "names": "demangled",            // nvtx_kern_sum only: the kernel names
//	  "skipped": "...",                // where nsys skips the report: its message, and no rows
//	  "rows": [                        // in nsys's order
//	    {"Time (%)": 99.9, ..., "Name": "cudaMalloc"}
//	  ]
//	}
//
// Row keys are nsys's CSV columns, in its order; figures are numbers as
// the CSV prints them (8224.0 stays 8224.0), NULL is null.
type ReportJSON struct {
	Version int         `json:"rooftool_stats"`
	Report  string      `json:"report"`
	Names   string      `json:"names,omitempty"`
	Skipped string      `json:"skipped,omitempty"`
	Rows    []ReportRow `json:"rows"`
}

// ReportRow is one row of ReportJSON, its keys in column order.
type ReportRow struct {
	cols  []ReportColumn
	cells []Cell
}

// MarshalJSON writes the row's keys in column order.
func (r ReportRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range r.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := jsonString(c.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		cell := r.cells[i]
		switch {
		case cell.Null:
			b.WriteString("null")
		case c.Kind == ColText:
			v, err := jsonString(cell.Text)
			if err != nil {
				return nil, err
			}
			b.Write(v)
		default:
			b.WriteString(cell.Text)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonString is s as a JSON string, <, > and & as they are.
func jsonString(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// JSON is t as ReportJSON.
func (t ReportTable) JSON() ReportJSON {
	out := ReportJSON{Version: JSONVersion, Report: t.Report.Name, Skipped: t.Skipped, Rows: []ReportRow{}}
	if t.Report.Names {
		out.Names = t.Names
		if out.Names == "" {
			out.Names = NamesDemangled
		}
	}
	for _, row := range t.Rows {
		out.Rows = append(out.Rows, ReportRow{cols: t.Report.Columns, cells: row})
	}
	return out
}
