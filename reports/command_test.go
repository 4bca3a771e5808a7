package reports

import (
	"strings"
	"testing"
)

// TestCommandQuoted: the report prints the command line so that pasting it
// into a shell gives the same words back (an argument with spaces, as
// profile --cmd takes, stays one word).
func TestCommandQuoted(t *testing.T) {
	r := &Report{Run: RunInfo{Command: []string{"bin/rooftool", "profile", "--cmd", "python3 bench.py --n 2", "-o", "runs/x"}}}
	var b strings.Builder
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "Command: `bin/rooftool profile --cmd 'python3 bench.py --n 2' -o runs/x`"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report.md lacks %q:\n%s", want, b.String())
	}
}
