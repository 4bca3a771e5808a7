package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/nsys"
)

// TestExitCodeTable: the same fault gives the same exit code whichever
// command meets it. A tool rooftool looks for and does not find is 1; a
// missing or unusable input (a directory where export files or tables are
// expected, an empty or missing run directory) is 2.
func TestExitCodeTable(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain") // a directory with no tables in it
	empty := filepath.Join(dir, "empty")
	for _, d := range []string{plain, empty} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(plain, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	nsysRep := filepath.Join(dir, "a.nsys-rep")
	ncuRep := filepath.Join(dir, "a.ncu-rep")
	for _, f := range []string{nsysRep, ncuRep} {
		if err := os.WriteFile(f, []byte("not a report"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"ingest", plain, "-o", out}, exitBadArgs, "directory"},
		{[]string{"stats", plain}, exitBadArgs, "directory"},
		{[]string{"stats", plain, empty}, exitBadArgs, "directory"},
		{[]string{"stats", missing}, exitBadArgs, "no such file"},
		{[]string{"roofline", plain, "-o", out}, exitBadArgs, "directory"},
		{[]string{"report", empty, "-o", out}, exitBadArgs, "no tables"},
		{[]string{"report", plain, "-o", out}, exitBadArgs, "no tables"},
		{[]string{"report", missing, "-o", out}, exitBadArgs, "not a run directory"},
	}
	// Tools: only where this machine has neither nsys nor ncu to find.
	t.Setenv("PATH", t.TempDir())
	if _, err := nsys.Find(""); err != nil {
		cases = append(cases, struct {
			args []string
			code int
			err  string
		}{[]string{"stats", nsysRep}, exitFailure, "nsys not found"})
	}
	cases = append(cases, struct {
		args []string
		code int
		err  string
	}{[]string{"stats", ncuRep}, exitFailure, "ncu"})
	for _, tc := range cases {
		var o, e bytes.Buffer
		code := run(context.Background(), tc.args, &IO{Out: &o, Err: &e})
		if tc.args[1] == ncuRep && !strings.Contains(e.String(), "not on PATH") {
			continue // an ncu was found here after all
		}
		if code != tc.code || !strings.Contains(e.String(), tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, e.String(), tc.code, tc.err)
		}
	}
}

// TestExitCodeClasses: exitCode on the error values themselves.
func TestExitCodeClasses(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, exitOK},
		{fmt.Errorf("x: %w", nsys.ErrNotFound), exitFailure},
		{&ingest.InputError{File: "a.nsys-rep", Err: fmt.Errorf("%w on PATH", nsys.ErrNotFound)}, exitFailure},
		{&ingest.InputError{File: "a.csv", Err: os.ErrNotExist}, exitBadArgs},
		{usageErrorf("bad flag"), exitBadArgs},
		{fmt.Errorf("disk full"), exitFailure},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("exitCode(%v) = %d; want %d", tc.err, got, tc.code)
		}
	}
}

// TestUsageExitCodes: cobra's own usage errors (an unknown command or flag,
// a wrong argument count, a flag without its value or with a bad one) exit
// 2 like rooftool's, and a command's runtime failure exits 1.
func TestUsageExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"frobnicate"}, exitBadArgs, `unknown command "frobnicate"`},
		{[]string{"gpus", "--frob"}, exitBadArgs, "unknown flag: --frob"},
		{[]string{"gpus", "-z"}, exitBadArgs, "unknown shorthand flag"},
		{[]string{"gpus", "a", "b"}, exitBadArgs, "accepts at most 1 arg"},
		{[]string{"diff", "a"}, exitBadArgs, "accepts 2 arg(s)"},
		{[]string{"stats"}, exitBadArgs, "requires at least 1 arg"},
		{[]string{"stats", "--top"}, exitBadArgs, "flag needs an argument"},
		{[]string{"stats", "--top", "many", "x"}, exitBadArgs, "invalid argument"},
		{[]string{"doctor", "extra"}, exitBadArgs, "unknown command"},
		{[]string{"completion"}, exitBadArgs, "name a shell"},
		{[]string{"completion", "bash", "extra"}, exitBadArgs, `unknown command "extra"`},
		{[]string{"doctor", "--probe=false", "--strict", "--python", filepath.Join(t.TempDir(), "no-python")}, exitFailure, "problem(s) found"},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), tc.args, &IO{Out: &o, Err: &e})
		if code != tc.code || !strings.Contains(e.String(), tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, e.String(), tc.code, tc.err)
		}
	}
}
