package shard

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// SlurmJob is a sweep profiled in shards as a Slurm job array, and the job
// that merges the shards' runs once the array is done (rooftool slurm).
type SlurmJob struct {
	Run         string   // the merged run directory, absolute; shard I runs into Run.shard-I
	Shards      int      // N: the array's tasks, one shard each
	Partition   string   // the Slurm partition of both jobs ("": the cluster's default)
	GPUsPerTask int      // GPUs each shard task asks for (--gres=gpu:K; 0 asks for none)
	Profile     []string // the profile flags each shard task passes on, as arguments
	Exe         string   // the rooftool binary the jobs run
	Dir         string   // the jobs' working directory
}

// SlurmScripts are the sbatch scripts of a SlurmJob.
type SlurmScripts struct {
	Dir                   string // Run.slurm: the scripts and the jobs' logs
	ShardsPath, MergePath string // Dir/shards.sbatch, Dir/merge.sbatch
	Shards, Merge         string // the scripts' texts
}

// ShellQuote quotes s for a POSIX shell (s itself where it needs no
// quotes).
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-=,:+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Scripts are the texts of the job's two scripts: shards.sbatch, the job
// array (task I runs rooftool profile --shard I/N -o Run.shard-I, with
// --resume where that run has a manifest already), and merge.sbatch,
// which runs rooftool merge of the N shard runs into Run.
func (j SlurmJob) Scripts() SlurmScripts {
	shq := ShellQuote
	run := j.Run
	sd := run + ".slurm"
	name := filepath.Base(run)
	n := j.Shards
	header := func(b *bytes.Buffer, job string) {
		fmt.Fprintf(b, "#!/bin/bash\n")
		fmt.Fprintf(b, "#SBATCH --job-name=%s\n", shq("rooftool-"+job+"-"+name))
		fmt.Fprintf(b, "#SBATCH --chdir=%s\n", shq(j.Dir))
		if j.Partition != "" {
			fmt.Fprintf(b, "#SBATCH --partition=%s\n", shq(j.Partition))
		}
		fmt.Fprintf(b, "#SBATCH --ntasks=1\n")
	}
	var s bytes.Buffer
	header(&s, "shards")
	fmt.Fprintf(&s, "#SBATCH --array=1-%d\n", n)
	if j.GPUsPerTask > 0 {
		fmt.Fprintf(&s, "#SBATCH --gres=gpu:%d\n", j.GPUsPerTask)
	}
	fmt.Fprintf(&s, "#SBATCH --output=%s\n", shq(filepath.Join(sd, "shard-%a.out")))
	fmt.Fprintf(&s, "# Shard I of %d of %s; run one again with: sbatch --array=I %s\n", n, run, shq(filepath.Join(sd, "shards.sbatch")))
	fmt.Fprintf(&s, "set -euo pipefail\n")
	fmt.Fprintf(&s, "I=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\n")
	fmt.Fprintf(&s, "OUT=%s.shard-$I\n", shq(run))
	fmt.Fprintf(&s, "RESUME=()\n")
	fmt.Fprintf(&s, "if [ -e \"$OUT/manifest.json\" ]; then RESUME=(--resume); fi\n")
	fmt.Fprintf(&s, "exec %s profile --shard \"$I/%d\" -o \"$OUT\" \"${RESUME[@]}\"", shq(j.Exe), n)
	for _, a := range j.Profile {
		fmt.Fprintf(&s, " \\\n  %s", shq(a))
	}
	fmt.Fprintf(&s, "\n")

	var m bytes.Buffer
	header(&m, "merge")
	fmt.Fprintf(&m, "#SBATCH --output=%s\n", shq(filepath.Join(sd, "merge.out")))
	fmt.Fprintf(&m, "# Submit with: sbatch --dependency=afterok:<array job id of shards.sbatch> %s\n", shq(filepath.Join(sd, "merge.sbatch")))
	fmt.Fprintf(&m, "set -euo pipefail\n")
	fmt.Fprintf(&m, "exec %s merge", shq(j.Exe))
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&m, " \\\n  %s", shq(fmt.Sprintf("%s.shard-%d", run, i)))
	}
	fmt.Fprintf(&m, " \\\n  -o %s\n", shq(run))
	return SlurmScripts{Dir: sd, ShardsPath: filepath.Join(sd, "shards.sbatch"), MergePath: filepath.Join(sd, "merge.sbatch"),
		Shards: s.String(), Merge: m.String()}
}

// WriteScripts writes the job's scripts (Scripts) into their folder,
// executable, and returns them.
func (j SlurmJob) WriteScripts() (SlurmScripts, error) {
	sc := j.Scripts()
	if err := os.MkdirAll(sc.Dir, 0o755); err != nil {
		return sc, err
	}
	for _, w := range []struct{ path, text string }{{sc.ShardsPath, sc.Shards}, {sc.MergePath, sc.Merge}} {
		if err := os.WriteFile(w.path, []byte(w.text), 0o755); err != nil {
			return sc, err
		}
	}
	return sc, nil
}

// Sbatch runs sbatch --parsable with args and returns the job id.
func Sbatch(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", append([]string{"--parsable"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sbatch %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch %s: no job id in %q", strings.Join(args, " "), out.String())
	}
	return id, nil
}

// Locate is the rooftool binary running (its symlinks resolved) and the
// working directory: what a SlurmJob's Exe and Dir name.
func Locate() (exe, dir string, err error) {
	if exe, err = os.Executable(); err != nil {
		return "", "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", "", err
	}
	if dir, err = os.Getwd(); err != nil {
		return "", "", err
	}
	return exe, dir, nil
}

// NonEmptyDir reports whether dir is a directory with something in it:
// no place for a new run.
func NonEmptyDir(dir string) bool {
	ents, err := os.ReadDir(dir)
	return err == nil && len(ents) > 0
}
