package tableout

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShorten(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 10, "abcdefghij"},
		// 7 columns: 3 from the front, the ellipsis, 3 from the end.
		{"abcdefghij", 7, "abc…hij"},
		// 6 columns: 3 from the front, the ellipsis, 2 from the end.
		{"abcdefghij", 6, "abc…ij"},
		{"µµµµµµµµ", 5, "µµ…µµ"},
	} {
		if got := Shorten(tc.in, tc.n); got != tc.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestWrapLine(t *testing.T) {
	got := wrapLine("  alpha beta gamma delta", 14)
	want := "  alpha beta\n    gamma\n    delta"
	if got != want {
		t.Errorf("wrapLine:\n%s\nwant\n%s", got, want)
	}
	if got := WrapCell("Total Time (ns)", 10); strings.Join(got, "|") != "Total Time|(ns)" {
		t.Errorf("WrapCell = %q", got)
	}
	// A word longer than the line is cut.
	if got := wrapLine("abcdefghij", 4); got != "abcd\nefgh\nij" {
		t.Errorf("wrapLine cut = %q", got)
	}
}

// A table that fits is written as it is; one that does not has its names
// shortened in the middle and its headers wrapped, figures whole; one
// whose figures alone do not fit is split into groups that repeat its
// name column.
func TestFitText(t *testing.T) {
	tb := Table{Header: []string{"KERNEL", "TIME (us)", "DRAM (MB)"}, Rows: [][]string{
		{"void cutlass::Kernel<cutlass::gemm::GemmUniversal<128x256>>(Params)", "1,234.5", "25.50"},
		{"elementwise", "3.1", "-"},
	}}
	var whole, fitted bytes.Buffer
	if err := tb.WriteText(&whole, Columns); err != nil {
		t.Fatal(err)
	}
	fw := NewFitWriter(&fitted, 40)
	if err := tb.WriteText(fw, Columns); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(whole.String(), tb.Rows[0][0]) {
		t.Errorf("without a width the name is not whole:\n%s", whole.String())
	}
	// 40 columns: the headers of the figure columns wrap first, down to
	// their widest figure or header word ("1,234.5": 7; "25.50": 5), the
	// separators take 4, so the name gets 40 - 7 - 5 - 4 = 24: 12 from the
	// front, "…", 11 from the end.
	want := "KERNEL                    TIME     DRAM\n" +
		"                          (us)     (MB)\n" +
		"void cutlass…6>>(Params)  1,234.5  25.50\n" +
		"elementwise               3.1      -\n"
	if fitted.String() != want {
		t.Errorf("fitted to 40:\n%s\nwant\n%s", fitted.String(), want)
	}
	// 20 columns: the name column's floor (12) and the figures do not fit
	// on one line: a group per figure column, each with the name.
	fitted.Reset()
	fw = NewFitWriter(&fitted, 20)
	if err := tb.WriteText(fw, Columns); err != nil {
		t.Fatal(err)
	}
	fw.Flush()
	for _, l := range strings.Split(strings.TrimSuffix(fitted.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > 20 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	for _, fig := range []string{"1,234.5", "25.50", "3.1"} {
		if !strings.Contains(fitted.String(), fig) {
			t.Errorf("figure %s missing from\n%s", fig, fitted.String())
		}
	}
	if n := strings.Count(fitted.String(), "elementwise"); n != 2 {
		t.Errorf("the name column is in %d groups, want 2:\n%s", n, fitted.String())
	}
}

// CSV and JSON are never fitted; a text table is, where Output.Width is set.
func TestWriteWidth(t *testing.T) {
	long := strings.Repeat("n", 60)
	o := Output{CSV: Table{Header: []string{"name", "v"}, Rows: [][]string{{long, "1.5"}}}, JSON: map[string]string{"name": long}, Width: 30}
	for _, f := range []string{FormatCSV, FormatJSON} {
		var b bytes.Buffer
		if err := Write(&b, f, o); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), long) {
			t.Errorf("%s was fitted:\n%s", f, b.String())
		}
	}
	var b bytes.Buffer
	if err := Write(&b, FormatTable, o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), long) || !strings.Contains(b.String(), "1.5") {
		t.Errorf("table not fitted to 30:\n%s", b.String())
	}
	if Width(&b) != 0 {
		t.Error("a plain writer has a width")
	}
}

// An aligned line keeps its spacing and continues under its last column.
func TestWrapAligned(t *testing.T) {
	got := wrapLine("problem  ncu    not found on PATH or in the usual places", 36)
	want := "problem  ncu    not found on PATH or\n" +
		"                in the usual places"
	if got != want {
		t.Errorf("wrapLine:\n%s\nwant\n%s", got, want)
	}
}
