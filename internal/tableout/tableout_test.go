package tableout

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestWriteText(t *testing.T) {
	tb := Table{Header: []string{"CELL", "COST (s)", "NOTE"}, Rows: [][]string{{"a/b/n=1", "1.5", "-"}, {"long/cell/name", "12", "µs"}}}
	for _, tc := range []struct {
		style Style
		want  string
	}{
		{Columns, "CELL            COST (s)  NOTE\n" +
			"a/b/n=1         1.5       -\n" +
			"long/cell/name  12        µs\n"},
		{RightAligned, "            CELL  COST (s)  NOTE\n" +
			"         a/b/n=1       1.5     -\n" +
			"  long/cell/name        12    µs\n"},
		{Markdown, "| CELL           | COST (s) | NOTE |\n" +
			"| ---            | ---      | ---  |\n" +
			"| a/b/n=1        | 1.5      | -    |\n" +
			"| long/cell/name | 12       | µs   |\n"},
	} {
		var b bytes.Buffer
		if err := tb.WriteText(&b, tc.style); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("style %d:\n%s\nwant\n%s", tc.style, b.String(), tc.want)
		}
	}
	var b bytes.Buffer
	if err := (Table{Rows: [][]string{{"key", "v", ""}, {"aliases", "a; b", ""}}}).WriteText(&b, Columns); err != nil {
		t.Fatal(err)
	}
	if want := "key      v     \naliases  a; b  \n"; b.String() != want {
		t.Errorf("headless table %q, want %q", b.String(), want)
	}
}

func TestWriteFormats(t *testing.T) {
	type rec struct {
		Name    string            `json:"name"`
		Aliases []string          `json:"aliases"`
		Value   float64           `json:"value"`
		Extra   map[string]string `json:"extra,omitempty"`
		Note    string            `json:"note,omitempty"`
		Skip    int               `json:"-"`
	}
	rows := []rec{{Name: "void k<float>", Aliases: []string{"a", "b"}, Value: 1.5e9, Note: "x,y"}, {Name: "k2"}}
	csv, err := Records(rows)
	if err != nil {
		t.Fatal(err)
	}
	out := Output{CSV: csv, JSON: map[string]any{"rooftool_x": 1, "rows": rows}}
	for _, tc := range []struct{ format, want string }{
		{FormatCSV, "name,aliases,value,extra,note\n" +
			`void k<float>,"[""a"",""b""]",1500000000,,"x,y"` + "\n" +
			"k2,,0,,\n"},
		{FormatJSON, `{
  "rooftool_x": 1,
  "rows": [
    {
      "name": "void k<float>",
      "aliases": [
        "a",
        "b"
      ],
      "value": 1500000000,
      "note": "x,y"
    },
    {
      "name": "k2",
      "aliases": null,
      "value": 0
    }
  ]
}
`},
		{FormatTable, "name           aliases    value       extra  note\n" +
			`void k<float>  ["a","b"]  1500000000         x,y` + "\n" +
			"k2                        0                  \n"},
	} {
		var b bytes.Buffer
		if err := Write(&b, tc.format, out); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.format, b.String(), tc.want)
		}
	}
	boom := errors.New("boom")
	if err := Write(io.Discard, FormatTable, Output{Text: func(io.Writer) error { return boom }}); err != boom {
		t.Errorf("Text's error: %v", err)
	}
	if err := Write(io.Discard, "yaml", out); err == nil || Valid("yaml") || !Valid(FormatCSV) {
		t.Error("yaml accepted")
	}
	if _, err := Records([]int{1}); err == nil {
		t.Error("Records of ints accepted")
	}
}

// A NUL in a field reaches the CSV as the text \x00, never as a raw byte
// (which CSV readers refuse), and the table's own rows are left as they were.
func TestWriteCSVNUL(t *testing.T) {
	row := []string{"k\x00ernel", "1"}
	tb := Table{Header: []string{"Name", "N"}, Rows: [][]string{row}}
	var b strings.Builder
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "Name,N\nk\\x00ernel,1\n"; got != want {
		t.Errorf("CSV %q, want %q", got, want)
	}
	if row[0] != "k\x00ernel" {
		t.Errorf("the row was changed: %q", row[0])
	}
}
