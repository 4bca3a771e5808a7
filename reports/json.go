package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes report.json: the same facts as report.md, keys sorted
// at every level, two-space indent, so the output is deterministic and
// diffs well.
func WriteJSON(w io.Writer, r *Report) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	// Round-trip through generic values: encoding/json writes map keys
	// sorted; UseNumber keeps every number exactly as first written.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// ReadJSON reads a report.json back (for diffing reports and tests).
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("report.json: %w", err)
	}
	return &r, nil
}
