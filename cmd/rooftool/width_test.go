package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rooftool/rooftool/gpu"
)

// figureToken matches a figure as the tables print it: a number with a
// decimal point or thousands separators, or one ending in x or %.
var figureToken = regexp.MustCompile(`^[-+]?(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+\.[0-9]+|[0-9]+)(?:x|%)?$`)

// figures are the figure tokens of out, as a sorted list: the numbers a
// reader looks up, whatever line or column they are in.
func figures(out string) []string {
	var f []string
	for _, tok := range strings.FieldsFunc(out, func(r rune) bool { return r == ' ' || r == '|' || r == '\n' }) {
		if figureToken.MatchString(tok) && strings.ContainsAny(tok, ".,x%") {
			f = append(f, tok)
		}
	}
	slices.Sort(f)
	return f
}

// TestTablesFitWidth runs stats, suggest, project, diff, plan and gpus as
// the README shows them, whole (a pipe) and with --width 100 (a 100-column terminal): no
// line of the fitted output is wider than 100 columns, and it prints the
// same figures as the whole output, each as many times.
func TestTablesFitWidth(t *testing.T) {
	const width = 100
	for _, args := range [][]string{
		{"stats", "--format", "table", realdata + "DLProf/nsys_profile.sqlite"},
		{"suggest", realdata + "DLProf/nsys_profile.sqlite"},
		{"suggest", "2026-11-22-h100-003504"},
		{"project", "2026-11-23-h100-140505", "--gpu", "h200"},
		{"diff", "2026-11-22-h100-003504", "2026-11-22-h200-004838"},
		{"plan", "--shard-count", "4"},
		{"gpus", "--format", "table"},
	} {
		t.Run(args[0], func(t *testing.T) {
			var whole, fitted, e bytes.Buffer
			if code := run(context.Background(), args, &IO{Out: &whole, Err: &e}); code != exitOK {
				t.Fatalf("rooftool %s: exit %d: %s", strings.Join(args, " "), code, e.String())
			}
			wideArgs := append(slices.Clone(args), "--width", "100")
			if code := run(context.Background(), wideArgs, &IO{Out: &fitted, Err: &e}); code != exitOK {
				t.Fatalf("rooftool %s: exit %d: %s", strings.Join(wideArgs, " "), code, e.String())
			}
			widest := 0
			for _, l := range strings.Split(whole.String(), "\n") {
				widest = max(widest, utf8.RuneCountInString(l))
			}
			if widest <= width {
				t.Fatalf("the whole output is %d columns wide: nothing to fit", widest)
			}
			for i, l := range strings.Split(fitted.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("line %d is %d columns wide: %q", i+1, n, l)
				}
			}
			w, f := figures(whole.String()), figures(fitted.String())
			t.Logf("%d figures, the whole output %d columns wide", len(w), widest)
			if !slices.Equal(w, f) {
				t.Errorf("the fitted output's figures differ from the whole output's:\nwhole  %q\nfitted %q", w, f)
			}
		})
	}
}

// TestWidthFromEnvironment: a terminal's width is read from it; else
// $COLUMNS; a pipe or file without $COLUMNS is never fitted; --width
// overrides both and refuses a negative width.
func TestWidthFromEnvironment(t *testing.T) {
	if got := outWidth(nil, false, ""); got != 0 {
		t.Errorf("a pipe without COLUMNS: width %d, want 0", got)
	}
	if got := outWidth(nil, false, "80"); got != 80 {
		t.Errorf("COLUMNS=80: width %d, want 80", got)
	}
	if got := outWidth(nil, false, "wide"); got != 0 {
		t.Errorf("COLUMNS=wide: width %d, want 0", got)
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"gpus", "--width", "-1"}, &IO{Out: &o, Err: &e}); code != exitBadArgs {
		t.Errorf("--width -1: exit %d, want %d (%s)", code, exitBadArgs, e.String())
	}
}

// TestGPUsNamesAt80: at 80 columns the catalog table keeps visible, in
// each GPU's first row, the word of its name that tells it from the other
// GPUs of its model (SXM, PCIe, NVL and the memory size); the vendor
// prefix every name shares is said once under the table.
func TestGPUsNamesAt80(t *testing.T) {
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"gpus", "--width", "80"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("gpus --width 80: exit %d: %s", code, e.String())
	}
	first := map[string]string{} // key -> its first row
	for _, l := range strings.Split(o.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			if _, seen := first[f[0]]; !seen {
				first[f[0]] = l
			}
		}
	}
	checked := 0
	for _, g := range gpu.Catalog() {
		row, ok := first[g.Key]
		if !ok {
			t.Errorf("%s: no row", g.Key)
			continue
		}
		for _, w := range strings.Fields(g.Name) {
			if strings.Contains(w, "SXM") || w == "PCIe" || w == "NVL" || strings.HasSuffix(w, "GB") {
				checked++
				if !strings.Contains(row, w) {
					t.Errorf("%s: %q is cut from its row %q", g.Key, w, row)
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d distinguishing words checked", checked)
	}
	if !strings.Contains(o.String(), `Every NAME begins "NVIDIA"`) {
		t.Errorf("the shared prefix is not said:\n%s", o.String())
	}
}
