package stats

import (
	"testing"
	"unicode/utf8"

	"github.com/rooftool/rooftool/internal/tableout"
)

func TestMiddleEllipsis(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijklmnopqrstuvwxyz", 10, "abcd...xyz"},
		{"αβγδεζηθικλμ", 9, "αβγ...κλμ"},
	} {
		if got := middleEllipsis(tc.in, tc.max); got != tc.want || utf8.RuneCountInString(got) > tc.max {
			t.Errorf("middleEllipsis(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
	if got := tableout.Thousands("-1234567.5"); got != "-1,234,567.5" {
		t.Errorf("Thousands = %q", got)
	}
}
