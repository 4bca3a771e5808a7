package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProfilePreflight: on a machine without what profiling needs (here an
// empty PATH and --python, --ncu, --nsys that do not exist, so on a GPU
// machine too), profile exits 2 at once, before any cell runs and before the
// run directory is made, in at most 30 lines that name what is missing and
// point at rooftool doctor (it used to warn, then fail each of 162 cells).
func TestProfilePreflight(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	none := filepath.Join(t.TempDir(), "absent")
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"profile", "--gpu", "h100", "--kernels", "../../kernels", "-o", out,
		"--python", filepath.Join(none, "python3"), "--ncu", filepath.Join(none, "ncu"), "--nsys", filepath.Join(none, "nsys")}
	var o, e bytes.Buffer
	t0 := time.Now()
	code := run(context.Background(), args, &IO{Out: &o, Err: &e})
	took := time.Since(t0)
	text := o.String() + e.String()
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if code != exitBadArgs {
		t.Errorf("exit %d, want %d:\n%s", code, exitBadArgs, text)
	}
	if took > 15*time.Second {
		t.Errorf("took %s, want under 15 s", took)
	}
	if lines > 30 {
		t.Errorf("%d lines, want at most 30:\n%s", lines, text)
	}
	for _, want := range []string{"rooftool doctor", "torch", "ncu", "nsys"} {
		if !strings.Contains(text, want) {
			t.Errorf("output does not name %q:\n%s", want, text)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("run directory %s: %v; want none", out, err)
	}
}
