package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rooftool/rooftool/launch/shard"
)

// SlurmOptions are the flags of `rooftool slurm` besides the profile flags
// it passes on.
type SlurmOptions struct {
	IO          *IO
	Shards      int
	Output      string
	Submit      bool
	Partition   string
	GPUsPerTask int
	Profile     []string // profile flags, as each shard task passes them
	Exe         string   // the rooftool binary the jobs run
	Dir         string   // the jobs' working directory
}

// slurmOwnFlags are profile flags that rooftool slurm sets itself per task.
var slurmOwnFlags = map[string]bool{"output": true, "shard": true, "help": true}

// slurmPathFlags are profile flags naming files or folders; their values
// are made absolute. ncu, nsys and python only when they hold a slash (a
// bare name is looked up on PATH).
var slurmPathFlags = map[string]bool{"kernels": true, "experiments": true, "costs-from": true, "nsys-libs": true, "ncu": true, "nsys": true, "python": true}

func newSlurmCmd(io *IO) *cobra.Command {
	opts := &SlurmOptions{IO: io}
	c := &cobra.Command{
		Use:   "slurm [profile flags] --shards N -o RUN [--submit]",
		Short: "Write (and submit) a Slurm job array that profiles a sweep in N shards and merges them",
		Long: `Slurm writes into RUN.slurm/ two sbatch scripts: shards.sbatch, a job array
of N tasks (--array=1-N, one GPU each through --gres=gpu:K), task I running
rooftool profile --shard I/N -o RUN.shard-I with the profile flags given here,
and merge.sbatch, running rooftool merge RUN.shard-1 ... RUN.shard-N -o RUN
(which writes the report), meant to be submitted with
--dependency=afterok:<array job id>. A task whose run directory already
holds a manifest resumes it (--resume), so one failed shard is run again
with sbatch --array=I RUN.slurm/shards.sbatch.

Paths in the scripts are absolute; the rooftool binary is this one. The jobs
run in the current directory and inherit the submitting environment
(sbatch's default). With --submit both scripts are submitted and their job
ids printed.`,
		Example: `  rooftool slurm --gpu h100 --shards 4 -o runs/all
  rooftool slurm --gpu h100 --experiment swiglu --shards 8 -o runs/swiglu --submit --partition gpu`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Shards < 1 {
				return usageErrorf("slurm: --shards N is required (N >= 1)")
			}
			if opts.Output == "" {
				return usageErrorf("slurm: -o RUN is required")
			}
			if opts.GPUsPerTask < 0 {
				return usageErrorf("slurm: --gpus-per-task must be >= 0")
			}
			gpu, _ := c.Flags().GetString("gpu")
			ingestOnly, _ := c.Flags().GetBool("ingest-only")
			if gpu == "" || ingestOnly {
				return usageErrorf("slurm: --gpu is required, and --ingest-only makes no sense per shard")
			}
			exe, dir, err := shard.Locate()
			if err != nil {
				return fmt.Errorf("slurm: %w", err)
			}
			opts.Exe, opts.Dir = exe, dir
			opts.Profile = slurmProfileArgs(c.Flags(), dir)
			return runSlurm(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.IntVar(&opts.Shards, "shards", 0, "number of shards, one array task each")
	f.StringVarP(&opts.Output, "output", "o", "", "the merged run directory; shard I runs into RUN.shard-I, the scripts and logs go to RUN.slurm/")
	f.BoolVar(&opts.Submit, "submit", false, "submit the array and the merge job with sbatch and print their job ids")
	f.StringVar(&opts.Partition, "partition", "", "Slurm partition of both jobs (default: the cluster's)")
	f.IntVar(&opts.GPUsPerTask, "gpus-per-task", 1, "GPUs each shard task asks for (--gres=gpu:K; 0 asks for none)")
	// The profile flags, passed on to every shard.
	newProfileCmd(io).Flags().VisitAll(func(pf *pflag.Flag) {
		if !slurmOwnFlags[pf.Name] {
			f.AddFlag(pf)
		}
	})
	mustRegisterCompletion(c, "output", completeDirs)
	return c
}

// slurmProfileArgs turns the profile flags set on the command line back
// into arguments, in flag-name order, with paths made absolute against dir.
func slurmProfileArgs(fs *pflag.FlagSet, dir string) []string {
	var args []string
	fs.Visit(func(pf *pflag.Flag) {
		if slurmOwnFlags[pf.Name] || pf.Name == "shards" || pf.Name == "submit" || pf.Name == "partition" || pf.Name == "gpus-per-task" {
			return
		}
		vals := []string{pf.Value.String()}
		if sv, ok := pf.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			if slurmPathFlags[pf.Name] && v != "" && !filepath.IsAbs(v) {
				if (pf.Name != "ncu" && pf.Name != "nsys" && pf.Name != "python") || strings.Contains(v, "/") {
					v = filepath.Join(dir, v)
				}
			}
			args = append(args, "--"+pf.Name+"="+v)
		}
	})
	return args
}

func runSlurm(ctx context.Context, opts *SlurmOptions) error {
	run, err := filepath.Abs(opts.Output)
	if err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	if shard.NonEmptyDir(run) {
		return usageErrorf("slurm: %s exists and is not empty", run)
	}
	job := shard.SlurmJob{Run: run, Shards: opts.Shards, Partition: opts.Partition, GPUsPerTask: opts.GPUsPerTask,
		Profile: opts.Profile, Exe: opts.Exe, Dir: opts.Dir}
	sc, err := job.WriteScripts()
	if err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	shards, merge := sc.ShardsPath, sc.MergePath
	out := opts.IO.Out
	fmt.Fprintf(out, "scripts: %s %s\n", shards, merge)
	resubmit := func(array string) {
		fmt.Fprintf(out, "a failed shard I runs again (resuming its run) with:\n  A=$(sbatch --parsable --array=I %s)\n", shard.ShellQuote(shards))
		fmt.Fprintf(out, "then the merge, if it was cancelled for the failed dependency:\n  sbatch --dependency=afterok:%s %s\n", array, shard.ShellQuote(merge))
	}
	if !opts.Submit {
		fmt.Fprintf(out, "submit with:\n  A=$(sbatch --parsable %s) && sbatch --dependency=afterok:$A %s\n", shard.ShellQuote(shards), shard.ShellQuote(merge))
		resubmit("$A")
		return nil
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return fmt.Errorf("slurm: sbatch not found on PATH (the scripts are written): %w", err)
	}
	a, err := shard.Sbatch(ctx, shards)
	if err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	fmt.Fprintf(out, "array job: %s (%d shards, logs %s)\n", a, opts.Shards, filepath.Join(sc.Dir, "shard-I.out"))
	m, err := shard.Sbatch(ctx, "--dependency=afterok:"+a, merge)
	if err != nil {
		return fmt.Errorf("slurm: array job %s is submitted, the merge is not: %w", a, err)
	}
	fmt.Fprintf(out, "merge job: %s (after array %s; log %s)\n", m, a, filepath.Join(sc.Dir, "merge.out"))
	resubmit("$A")
	return nil
}
