package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rooftool/rooftool/internal/golden"
)

// TestSlurmScripts pins the scripts of `rooftool slurm`, with the test's
// paths replaced by $ROOFTOOL, $TMP and $REPO.
func TestSlurmScripts(t *testing.T) {
	tmp := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	repo, _ := filepath.Abs("../..")
	run := filepath.Join(tmp, "runs", "all")
	out, _ := mustRun(t, exitOK, "slurm", "--gpu", "h100", "--kernels", "../../launch/testdata/kernels",
		"--ncu", "../../launch/testdata/bin/ncu", "--nsys", "nsys", "--variant", "good", "--variant", "it's",
		"--passes", "check,timing", "--timeout", "90s", "--shards", "3", "-o", run, "--partition", "gpu")
	norm := func(s string) string {
		s = strings.ReplaceAll(s, exe, "$ROOFTOOL")
		s = strings.ReplaceAll(s, tmp, "$TMP")
		return strings.ReplaceAll(s, repo, "$REPO")
	}
	for _, name := range []string{"shards.sbatch", "merge.sbatch"} {
		data, err := os.ReadFile(filepath.Join(run+".slurm", name))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("bash", "-n", filepath.Join(run+".slurm", name)).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", name, err, out)
		}
		got := norm(string(data))
		path := filepath.Join("testdata/slurm", name+".golden")
		golden.Check(t, path, []byte(got))
	}
	for _, want := range []string{"sbatch --parsable $TMP/runs/all.slurm/shards.sbatch", "sbatch --parsable --array=I ", "--dependency=afterok:$A"} {
		if !strings.Contains(norm(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// An output that holds a run is refused; so are missing flags.
	if err := os.MkdirAll(filepath.Join(tmp, "full"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmp, "full", "manifest.json"), []byte("{}"), 0o644)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"slurm", "--gpu", "h100", "-o", run}, "--shards"},
		{[]string{"slurm", "--gpu", "h100", "--shards", "2"}, "-o RUN"},
		{[]string{"slurm", "--shards", "2", "-o", run}, "--gpu"},
		{[]string{"slurm", "--gpu", "h100", "--shards", "2", "-o", filepath.Join(tmp, "full")}, "not empty"},
		{[]string{"slurm", "--gpu", "h100", "--shards", "2", "-o", run, "--shard", "1/2"}, "unknown flag"},
	} {
		_, e := mustRun(t, exitBadArgs, tc.args...)
		if !strings.Contains(e, tc.msg) {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.args, tc.msg, e)
		}
	}
}

// TestSlurmReal submits a 2-shard sweep of the fake experiment to a real
// Slurm (make slurm-test starts one with scripts/slurm-up.sh), waits for the
// array and the merge job, and checks the merged run decides as a whole run.
func TestSlurmReal(t *testing.T) {
	if os.Getenv("ROOFTOOL_SLURM_TEST") != "1" {
		t.Skip("set ROOFTOOL_SLURM_TEST=1 with a Slurm cluster reachable (make slurm-test starts one)")
	}
	for _, b := range []string{"sbatch", "squeue"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("ROOFTOOL_SLURM_TEST=1 but %s is not on PATH", b)
		}
	}
	start := time.Now()
	sel := fakeSweep(t)
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	mustRun(t, exitOK, profileArgs(sel, whole)...)

	// The jobs run the binary that submitted them: build a real one.
	bin := filepath.Join(tmp, "rooftool")
	// go test puts its own GOROOT/bin first on the test's PATH.
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := filepath.Join(tmp, "runs", "all")
	args := append(profileArgs(sel, run)[1:], "--shards", "2", "--submit")
	submitted := time.Now()
	cmd := exec.Command(bin, append([]string{"slurm"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rooftool slurm: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	ids := regexp.MustCompile(`(?m)^(array|merge) job: ([0-9]+)`).FindAllStringSubmatch(stdout.String(), -1)
	if len(ids) != 2 {
		t.Fatalf("no job ids in:\n%s", stdout.String())
	}
	jobs := ids[0][2] + "," + ids[1][2]
	t.Logf("submitted array %s, merge %s", ids[0][2], ids[1][2])
	logs := func() string {
		var b strings.Builder
		matches, _ := filepath.Glob(filepath.Join(run+".slurm", "*.out"))
		for _, m := range matches {
			data, _ := os.ReadFile(m)
			b.WriteString("== " + m + "\n" + string(data))
		}
		return b.String()
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		out, err := exec.Command("squeue", "-h", "-j", jobs, "-o", "%i %T %r").CombinedOutput()
		if err != nil {
			t.Fatalf("squeue: %v\n%s", err, out)
		}
		if strings.TrimSpace(string(out)) == "" {
			break
		}
		if strings.Contains(string(out), "DependencyNeverSatisfied") {
			t.Fatalf("a shard failed:\n%s\n%s", out, logs())
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still queued after 5 minutes:\n%s\n%s", out, logs())
		}
		time.Sleep(250 * time.Millisecond)
	}
	queued := time.Now()
	if _, err := os.Stat(filepath.Join(run, "report.json")); err != nil {
		t.Fatalf("merged run: %v\n%s", err, logs())
	}
	if got, want := runDecisions(t, run), runDecisions(t, whole); got != want {
		t.Errorf("merged report differs from the whole run's:\n got %s\nwant %s", got, want)
	}
	t.Logf("slurm --submit to both jobs gone: %s; whole test (unsharded run and go build included): %s",
		queued.Sub(submitted).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}
