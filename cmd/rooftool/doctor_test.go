package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/launch"
)

// TestDoctorNoGPU runs doctor on this machine. Without nvidia-smi it must
// say there is no GPU, still exit 0, and give every problem a fix.
func TestDoctorNoGPU(t *testing.T) {
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Skip("nvidia-smi present: this test is for machines without a GPU")
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"doctor", "--format", "json", "--probe=false"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	var doc doctorJSON
	if err := json.Unmarshal(o.Bytes(), &doc); err != nil {
		t.Fatalf("doctor --format json: %v\n%s", err, o.String())
	}
	if doc.Version != doctorJSONVersion {
		t.Errorf("rooftool_doctor = %d, want %d", doc.Version, doctorJSONVersion)
	}
	seen := map[string]bool{}
	problems := 0
	for _, f := range doc.Findings {
		seen[f.Check] = true
		if f.Level == launch.LevelProblem {
			problems++
			if f.Fix == "" {
				t.Errorf("problem without a fix: %+v", f)
			}
		}
		if f.Check == "gpu" && (f.Level != launch.LevelWarn || !strings.Contains(f.Detail, "no GPU")) {
			t.Errorf("gpu finding = %+v, want a warning that says no GPU", f)
		}
	}
	if doc.Problems != problems {
		t.Errorf("problems = %d, findings of level problem = %d", doc.Problems, problems)
	}
	for _, c := range []string{"gpu", "cuda", "ncu", "nsys", "counters", "python"} {
		if !seen[c] {
			t.Errorf("no %q finding in %s", c, o.String())
		}
	}

	// CSV: the JSON keys of a finding as columns, one row per finding.
	o.Reset()
	if code := run(context.Background(), []string{"doctor", "--format", "csv", "--probe=false"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("doctor --format csv: exit %d: %s", code, e.String())
	}
	recs, err := csv.NewReader(&o).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "check,level,detail,fix" || len(recs)-1 != len(doc.Findings) {
		t.Errorf("doctor --format csv: header %q, %d rows for %d findings", recs[0], len(recs)-1, len(doc.Findings))
	}

	// Text form and --strict.
	o.Reset()
	code := run(context.Background(), []string{"doctor", "--probe=false", "--strict", "--ncu", "/nonexistent/ncu"}, &IO{Out: &o, Err: &e})
	if code != exitFailure || !strings.Contains(o.String(), "fix: ") || !strings.Contains(o.String(), "problem(s) found") {
		t.Errorf("doctor --strict with no ncu: exit %d\n%s", code, o.String())
	}
}

// TestDoctorJSONAlias checks that the deprecated --json still gives the
// JSON of --format json, with its warning on stderr and not in the JSON.
func TestDoctorJSONAlias(t *testing.T) {
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"doctor", "--json", "--probe=false"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("doctor --json: exit %d: %s", code, e.String())
	}
	var doc doctorJSON
	if err := json.Unmarshal(o.Bytes(), &doc); err != nil || doc.Version != doctorJSONVersion {
		t.Fatalf("doctor --json: %v, version %d\n%s", err, doc.Version, o.String())
	}
	if !strings.Contains(e.String(), "--json has been deprecated, use --format json") {
		t.Errorf("doctor --json: stderr %q lacks the deprecation", e.String())
	}
	// --json hides from help; --json with another --format is bad usage.
	o.Reset()
	run(context.Background(), []string{"doctor", "--help"}, &IO{Out: &o, Err: &e})
	for _, l := range strings.Split(o.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--json") {
			t.Errorf("doctor --help lists --json: %q", l)
		}
	}
	if !strings.Contains(o.String(), "--format string") {
		t.Errorf("doctor --help lacks --format:\n%s", o.String())
	}
	for _, args := range [][]string{{"doctor", "--json", "--format", "csv"}, {"doctor", "--format", "xml"}} {
		if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != exitBadArgs {
			t.Errorf("rooftool %q: exit %d, want %d", args, code, exitBadArgs)
		}
	}
}
