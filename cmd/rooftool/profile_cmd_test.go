package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// The test program that marks its cells with the helper, and the fake
// runner and profilers (launch/testdata).
const (
	cmdProgram = "python3 ../../launch/testdata/cmd/marked.py"
	fakeBin    = "../../launch/testdata/bin/"
	fakeKernel = "../../launch/testdata/kernels"
)

func cmdTestEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH: the test program and the fake profilers are Python scripts")
	}
	for _, k := range []string{"FAKE_LOG", "FAKE_NCU_PERM", "FAKE_NSYS_NOLIB", "FAKE_NCU_LOG", "FAKE_CODE", "FAKE_CMD_LOG",
		"FAKE_RANGE_FAIL", "FAKE_RANGE_PARTIAL", "FAKE_APPRANGE_FAIL", "FAKE_APPRANGE_PARTIAL"} {
		t.Setenv(k, "")
	}
}

// TestProfileCmd runs profile --cmd end to end on the fake profilers: every
// pass over the cells the program marks, the tables, the report with the
// verdict of the --claims file, and report re-rendering it offline.
func TestProfileCmd(t *testing.T) {
	cmdTestEnv(t)
	tmp := t.TempDir()
	claims := filepath.Join(tmp, "claims.yaml")
	// The fake nsys traces 2 kernels in each cell's range.
	if err := os.WriteFile(claims, []byte(`experiment: toy
claims:
  - {id: two-kernels, source: "notes.md", line: 1, quote: "fused runs 2 kernels", metric: kernel_count, candidate: fused, baseline: unfused, op: "<=", threshold: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	args := []string{"profile", "--gpu", "h100", "--kernels", fakeKernel, "--ncu", fakeBin + "ncu", "--nsys", fakeBin + "nsys",
		"--reps", "30", "--cmd", cmdProgram, "--claims", claims, "-o", dir}
	var o, e bytes.Buffer
	if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, o.String(), e.String())
	}
	for _, want := range []string{"timing: 4 ok, 0 failed", "ncu:    4 ok, 0 failed", "range:  4 ok, 0 failed", "nsys:   4 ok, 0 failed",
		"cells: 4 marked by --cmd (raw/marks/marks.jsonl)", "helper: " + filepath.Join(dir, "marks"), "report: " + filepath.Join(dir, "report.md")} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.String())
		}
	}
	if strings.Contains(o.String(), "check:") {
		t.Errorf("a --cmd run has no check pass:\n%s", o.String())
	}
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Options["cmd"] != cmdProgram || m.Options["cmd.claims"] != claims || len(m.Cells) != 4 {
		t.Errorf("manifest: options %v, %d cells", m.Options, len(m.Cells))
	}
	var rep struct {
		Decisions []struct{ Claim, Shape, Verdict string }
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, d := range rep.Decisions {
		verdicts[d.Claim+" "+d.Shape] = d.Verdict
	}
	if verdicts["two-kernels M=64,N=32"] != "GO" || verdicts["two-kernels M=128,N=32"] != "GO" {
		t.Errorf("decisions = %v, want two-kernels GO at both shapes", verdicts)
	}

	// rooftool report re-renders the run offline from its own snapshot.
	out := filepath.Join(tmp, "again")
	o.Reset()
	e.Reset()
	if code := run(context.Background(), []string{"report", dir, "-o", out}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, e.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "two-kernels") {
		t.Errorf("re-rendered report.md: %v, claim missing:\n%.2000s", err, md)
	}
}

func TestProfileCmdErrors(t *testing.T) {
	cmdTestEnv(t)
	base := []string{"profile", "--gpu", "h100", "--kernels", fakeKernel, "--passes", "timing"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"claims alone", []string{"--claims", "c.yaml"}, exitBadArgs, "--claims goes with --cmd"},
		{"unknown gpu", []string{"--cmd", cmdProgram, "--gpu", "nonesuch"}, exitBadArgs, "--gpu nonesuch: not in the catalog"},
		{"with --experiment", []string{"--cmd", cmdProgram, "--experiment", "fake"}, exitBadArgs, "--cmd and --experiment exclude each other"},
		{"with --gpus", []string{"--cmd", cmdProgram, "--gpus", "0,1"}, exitBadArgs, "--cmd and --gpus exclude each other"},
		{"shell syntax", []string{"--cmd", cmdProgram + " | tee x"}, exitBadArgs, "'|' is shell syntax"},
		{"check pass", []string{"--cmd", cmdProgram, "--passes", "check,timing"}, exitBadArgs, "a --cmd program has no check pass"},
		{"marks nothing", []string{"--cmd", cmdProgram + " --none"}, exitBadArgs, "marked no range"},
		{"malformed range", []string{"--cmd", cmdProgram + " --shape M=1,N=x"}, exitBadArgs, `range "toy/fused/M=1,N=x/"`},
		{"exits non-zero", []string{"--cmd", cmdProgram + " --exit-in list"}, exitFailure, "exited with status 5 in its discovery run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			var o, e bytes.Buffer
			code := run(context.Background(), append(append(base, tc.args...), "-o", dir), &IO{Out: &o, Err: &e})
			if code != tc.code || !strings.Contains(e.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, e.String(), tc.code, tc.want)
			}
			if _, err := rundir.ReadManifest(dir); err == nil {
				t.Errorf("a manifest was written for a failed --cmd")
			}
		})
	}
}
