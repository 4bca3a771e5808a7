package shard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/runs/a.shard-1": "/runs/a.shard-1", "--variant=good": "--variant=good",
		"": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$HOME": "'$HOME'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestSlurmScripts: the array runs shard I of N into RUN.shard-I, resuming
// a run it finds there; the merge job merges the N runs into RUN; both
// are shell scripts bash reads. (cmd/rooftool pins the whole texts.)
func TestSlurmScripts(t *testing.T) {
	tmp := t.TempDir()
	run := filepath.Join(tmp, "runs", "my run")
	j := SlurmJob{Run: run, Shards: 3, GPUsPerTask: 2, Profile: []string{"--gpu=h100", "--variant=it's"}, Exe: "/bin/rooftool", Dir: tmp}
	sc, err := j.WriteScripts()
	if err != nil {
		t.Fatal(err)
	}
	if sc.Dir != run+".slurm" || sc.ShardsPath != filepath.Join(run+".slurm", "shards.sbatch") {
		t.Errorf("scripts at %s, %s", sc.Dir, sc.ShardsPath)
	}
	for _, want := range []string{"#SBATCH --array=1-3\n", "#SBATCH --gres=gpu:2\n", `profile --shard "$I/3"`, `'--variant=it'\''s'`, "RESUME=(--resume)"} {
		if !strings.Contains(sc.Shards, want) {
			t.Errorf("shards.sbatch lacks %q:\n%s", want, sc.Shards)
		}
	}
	if strings.Contains(sc.Shards, "--partition") {
		t.Errorf("shards.sbatch names a partition none was given:\n%s", sc.Shards)
	}
	for _, want := range []string{"merge \\\n  '" + run + ".shard-1'", "'" + run + ".shard-3' \\\n  -o '" + run + "'\n"} {
		if !strings.Contains(sc.Merge, want) {
			t.Errorf("merge.sbatch lacks %q:\n%s", want, sc.Merge)
		}
	}
	for _, p := range []string{sc.ShardsPath, sc.MergePath} {
		if st, err := os.Stat(p); err != nil || st.Mode()&0o100 == 0 {
			t.Errorf("%s: %v: want an executable script", p, err)
		}
		if out, err := exec.Command("bash", "-n", p).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", p, err, out)
		}
	}
}
