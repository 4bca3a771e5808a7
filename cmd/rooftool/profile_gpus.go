package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rooftool/rooftool/launch/runsummary"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/shard"
)

// profile --gpus: one shard per GPU of the host, after one warm compile stage
// and with one shared compile cache, merged into one run (profile.go runs one).

// profileExe is the rooftool binary that --gpus runs once per GPU.
var profileExe = os.Executable

// multiGPUOnly are the flags of profile that a --gpus shard does not get:
// the parent's own and those it sets per shard.
var multiGPUOnly = map[string]bool{"gpus": true, "serial-timing": true, "remove-shards": true, "output": true, "shard": true,
	"costs-from": true, "compile-cache": true, "compile-cache-dir": true, "no-warm": true, "format": true}

// shardFlags lists the flags given on the command line, as each --gpus
// shard gets them.
func shardFlags(c *cobra.Command) []string {
	var out []string
	c.Flags().Visit(func(f *pflag.Flag) {
		if multiGPUOnly[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// runProfileGPUs is rooftool profile --gpus: one shard per GPU at once,
// then merged into -o with the report.
func runProfileGPUs(ctx context.Context, opts *ProfileOptions) error {
	if err := checkSummaryFormat("profile", opts.Format); err != nil {
		return err
	}
	switch {
	case opts.OutDir == "":
		return usageErrorf("profile: --gpus needs -o RUNDIR (the shards run into RUNDIR.gpu-<id>)")
	case opts.Shard != "":
		return usageErrorf("profile: --gpus and --shard exclude each other")
	case opts.IngestOnly:
		return usageErrorf("profile: --gpus and --ingest-only exclude each other")
	case len(opts.GPUs) < 2:
		return usageErrorf("profile: --gpus %s: name at least two GPUs (for one, set CUDA_VISIBLE_DEVICES)", opts.GPUs[0])
	}
	if opts.Reps != 0 && opts.Reps < 30 {
		return usageErrorf("profile: --reps %d: want at least 30", opts.Reps)
	}
	if opts.RangeReplays < 1 {
		return usageErrorf("profile: --range-replays %d: want at least 1", opts.RangeReplays)
	}
	out := opts.OutDir
	if m, err := rundir.ReadManifest(out); err == nil {
		if !opts.Resume || len(m.MergedFrom) == 0 {
			return usageErrorf("profile: -o %s: the directory holds a run already: pass --resume to continue its shards, or another -o", out)
		}
	}
	exe, err := profileExe()
	if err != nil {
		return fmt.Errorf("profile --gpus: %w", err)
	}
	start := time.Now()
	args, pred, warm, err := prepareShards(ctx, opts)
	if err != nil {
		return err
	}
	shards, err := launch.RunMultiGPU(ctx, launch.MultiGPUConfig{
		Exe:          exe,
		GPUs:         opts.GPUs,
		Out:          out,
		Args:         args,
		SerialTiming: opts.SerialTime,
		Log:          opts.IO.Err,
	})
	var ce *plan.ConfigError
	if errors.As(err, &ce) {
		return usageErrorf("profile: %v", ce.Err)
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("profile: interrupted; the shards' finished cells are kept: rerun with --resume to continue")
		}
		return fmt.Errorf("profile: %w (the shards are kept: rerun with --resume to continue)", err)
	}
	m, warns, err := launch.MergeHostRun(out, shards, launch.HostRun{Resume: opts.Resume, Command: opts.Args, Version: version,
		Start: start, Predicted: pred, Warm: warm})
	for _, w := range warns {
		fmt.Fprintln(opts.IO.Err, "warning:", w)
	}
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	s := runsummary.NewProfileSummary(out, m)
	text := summaryText(opts.IO, opts.Format)
	s.WriteText(text)
	if err := runsummary.NothingMeasured(m); err != nil {
		writeJSONSummary(opts.IO, opts.Format, s)
		return fmt.Errorf("profile: %w (the shards are kept)", err)
	}
	// The shards go (--remove-shards) only once the merged run holds what
	// each gave it, each cell naming its own shard's exports.
	if err := shard.CheckMerged(out); err != nil {
		return fmt.Errorf("profile: %w (the shards are kept)", err)
	}
	if !opts.NoIngest && !opts.NoReport {
		path, err := writeRunReport(ctx, opts.IO, out)
		if err != nil {
			writeJSONSummary(opts.IO, opts.Format, s)
			return fmt.Errorf("profile: %w", err)
		}
		if s.Report = path; path != "" {
			fmt.Fprintf(text, "report: %s\n", path)
		}
	}
	if opts.RemoveParts {
		for _, sh := range shards {
			if err := errors.Join(os.RemoveAll(sh.Dir), os.Remove(sh.Log)); err != nil {
				fmt.Fprintf(opts.IO.Err, "warning: %v\n", err)
			}
		}
	} else {
		for _, sh := range shards {
			s.Shards = append(s.Shards, sh.Dir)
		}
		fmt.Fprintf(text, "shards: %s.gpu-{%s}\n", filepath.Clean(out), strings.Join(opts.GPUs, ","))
	}
	return writeJSONSummary(opts.IO, opts.Format, s)
}

// prepareShards readies a --gpus run before its shards start: it resolves
// --costs-from (the shards get it explicitly, so all plan alike), predicts
// each shard's seconds, makes the shared compile-cache folder RUNDIR.cache
// (seeded from --compile-cache) and runs the warm stage once for the host
// into it. It returns the shards' flags, the predicted seconds per shard
// and the warm stage's record (nil where none ran).
func prepareShards(ctx context.Context, opts *ProfileOptions) ([]string, []float64, *rundir.Warm, error) {
	n := len(opts.GPUs)
	costs, note := costsFrom(opts.CostsFrom, opts.costsGiven, opts.GPU)
	args := append([]string{}, opts.shardFlags...)
	if len(costs) == 0 {
		args = append(args, "--costs-from="+costsNone)
	}
	for _, d := range costs {
		args = append(args, "--costs-from="+d)
	}
	fmt.Fprintf(opts.IO.Err, "shard costs: %s (%s)\n", strings.Join(costs, ", "), note)
	cfg := launch.Config{KernelsDir: opts.Kernels, Experiments: opts.Experiments, ExperimentDirs: opts.ExpDirs,
		Variants: opts.Variants, Shapes: opts.Shapes, Passes: opts.Passes, Sweeps: sweepsMode(opts.DefaultOnly, opts.Sweeps),
		CostsFrom: costs, Shard: shard.Part{Index: 1, Count: n}, RangeReplaysFor: opts.ReplaysFor}
	pred := make([]float64, n)
	var cells []plan.Cell
	if opts.Cmd == "" {
		var err error
		cells, pred, err = launch.PredictShards(cfg)
		var ce *plan.ConfigError
		var pe *launch.PlanCostsError
		switch {
		case errors.As(err, &ce):
			return nil, nil, nil, usageErrorf("profile: %v", ce.Err)
		case errors.As(err, &pe):
			return nil, nil, nil, usageErrorf("profile: %v", pe.Err)
		case err != nil:
			return nil, nil, nil, fmt.Errorf("profile: %w", err)
		}
	}
	if opts.NoCache {
		return args, pred, nil, nil
	}
	a, w, err := launch.PrepareSharedWarm(ctx, launch.SharedWarmConfig{OutDir: opts.OutDir, CompileCache: opts.CompileCache,
		NoWarm: opts.NoWarm, Python: opts.Python, Kernels: opts.Kernels, Timeout: opts.Timeout, Cells: cells, Log: opts.IO.Err})
	var ce *plan.ConfigError
	switch {
	case errors.As(err, &ce):
		return nil, nil, nil, usageErrorf("profile: %v", ce.Err)
	case err != nil:
		return nil, nil, nil, fmt.Errorf("profile: %w", err)
	}
	return append(args, a...), pred, w, nil
}
