package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/kernels/launch"
)

// TestDoctorNoGPU runs doctor on this machine. Without nvidia-smi it must
// say there is no GPU, still exit 0, and give every problem a fix.
func TestDoctorNoGPU(t *testing.T) {
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Skip("nvidia-smi present: this test is for machines without a GPU")
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"doctor", "--json", "--probe=false"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	var fs []launch.Finding
	if err := json.Unmarshal(o.Bytes(), &fs); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, o.String())
	}
	seen := map[string]bool{}
	for _, f := range fs {
		seen[f.Check] = true
		if f.Level == launch.LevelProblem && f.Fix == "" {
			t.Errorf("problem without a fix: %+v", f)
		}
		if f.Check == "gpu" && (f.Level != launch.LevelWarn || !strings.Contains(f.Detail, "no GPU")) {
			t.Errorf("gpu finding = %+v, want a warning that says no GPU", f)
		}
	}
	for _, c := range []string{"gpu", "cuda", "ncu", "nsys", "counters", "python"} {
		if !seen[c] {
			t.Errorf("no %q finding in %s", c, o.String())
		}
	}
	// Text form and --strict.
	o.Reset()
	code := run(context.Background(), []string{"doctor", "--probe=false", "--strict", "--ncu", "/nonexistent/ncu"}, &IO{Out: &o, Err: &e})
	if code != exitFailure || !strings.Contains(o.String(), "fix: ") || !strings.Contains(o.String(), "problem(s) found") {
		t.Errorf("doctor --strict with no ncu: exit %d\n%s", code, o.String())
	}
}
