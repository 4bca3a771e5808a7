package reports

import (
	"slices"
	"strings"
	"testing"
)

func TestParseFormats(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{nil, DefaultFormats},
		{[]string{" MD", "markdown", "html", "json", "HTML"}, []string{FormatMarkdown, FormatHTML, FormatJSON}},
	} {
		got, err := ParseFormats(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseFormats(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseFormats([]string{"md", "pdf"}); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
		t.Errorf("ParseFormats(pdf) error %v does not name pdf", err)
	}
}
