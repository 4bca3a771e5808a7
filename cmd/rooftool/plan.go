package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/plan"
)

// PlanOptions are the flags of `rooftool plan`.
type PlanOptions struct {
	IO          *IO
	Experiments []string
	ExpDirs     []string
	Variants    []string
	Shapes      []string
	Passes      []string
	Kernels     string
	DefaultOnly bool
	Sweeps      bool
	ShardCount  int
	CostsFrom   []string
	GPU         string // --gpu: the kind whose newest committed run predicts, where --costs-from is not given
	Format      string
	costsGiven  bool
}

func newPlanCmd(io *IO) *cobra.Command {
	opts := &PlanOptions{IO: io}
	c := &cobra.Command{
		Use:   "plan [profile selection flags] [--shard-count N]",
		Short: "List the cells rooftool profile would run, their estimated cost and their shard",
		Long: `Plan prints the cells a rooftool profile with the same selection flags
would run, with their passes, an estimated cost and, with --shard-count N,
the part of N each falls in (rooftool profile --shard I/N runs part I). It
runs nothing. SECONDS is each cell's predicted time: the seconds an
earlier run measured for it (or that run's seconds per unit of shape size
for its pass), else a default per pass and cell. The earlier run is
--costs-from, else the newest committed run (testdata/runs) on the --gpu
kind, else the newest of another kind (unscaled; the output says which);
--costs-from none splits by shape size instead. The parts minimise the
slowest part's predicted seconds (the costliest cell or range-decided
pair first, to the least loaded part); the output gives each part's
seconds, how balanced they are (slowest over mean), the compile stage
before the passes (warm) and the predicted wall time on one GPU and on N.
The split is deterministic: the same planned cells and costs always give
the same parts, and the plan hash printed last is the one each shard's
manifest records.`,
		Example: `  rooftool plan --shard-count 4
  rooftool plan --experiment swiglu --shard-count 2 --format csv
  rooftool plan --shard-count 4 --costs-from runs/2026-11-20-h100-101112`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.DefaultOnly && opts.Sweeps {
				return usageErrorf("plan: --default-only and --sweeps exclude each other")
			}
			if _, err := gpu.Find(opts.GPU); opts.GPU != "" && err != nil {
				return usageErrorf("plan: --gpu %s: %v", opts.GPU, err)
			}
			opts.costsGiven = c.Flags().Changed("costs-from")
			return runPlan(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&opts.Experiments, "experiment", nil, "experiment to plan (repeatable; default all)")
	f.StringArrayVar(&opts.ExpDirs, "experiments", nil, "experiment folder outside the repository, or a folder of them (repeatable)")
	f.StringArrayVar(&opts.Variants, "variant", nil, "variant to plan (repeatable; default all)")
	f.StringArrayVar(&opts.Shapes, "shape", nil, "canonical shape to plan (repeatable; default all)")
	f.StringSliceVar(&opts.Passes, "passes", rundir.AllPasses, "passes: "+strings.Join(rundir.AllPasses, ","))
	f.StringVar(&opts.Kernels, "kernels", "", kernelsFlagHelp)
	f.BoolVar(&opts.DefaultOnly, "default-only", false, "the default grid only, no sweep shapes")
	f.BoolVar(&opts.Sweeps, "sweeps", false, "sweep shapes under every pass, not only check and timing")
	f.IntVar(&opts.ShardCount, "shard-count", 0, "split the cells into N parts (as rooftool profile --shard I/N does)")
	f.StringArrayVar(&opts.CostsFrom, "costs-from", nil, "earlier run directory whose pass seconds predict each cell (repeatable; default: the newest committed run on the --gpu kind; none: split by shape size)")
	f.StringVar(&opts.GPU, "gpu", "", "the GPU kind to plan for (h100, h200, ...): picks the committed run that predicts the seconds")
	f.StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	mustRegisterCompletion(c, "gpu", completeGPU)
	mustRegisterCompletion(c, "experiment", completeExperiments)
	mustRegisterCompletion(c, "variant", completeVariants)
	mustRegisterCompletion(c, "passes", completeListOf(rundir.AllPasses...))
	mustRegisterCompletion(c, "kernels", completeDirs)
	mustRegisterCompletion(c, "experiments", completeDirs)
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	return c
}

func runPlan(ctx context.Context, opts *PlanOptions) error {
	if err := checkDataFormat("plan", opts.Format); err != nil {
		return err
	}
	if opts.ShardCount < 0 {
		return usageErrorf("plan: --shard-count %d: want a positive count", opts.ShardCount)
	}
	var costsNote string
	opts.CostsFrom, costsNote = costsFrom(opts.CostsFrom, opts.costsGiven, opts.GPU)
	cfg := launch.Config{
		KernelsDir:     opts.Kernels,
		Experiments:    opts.Experiments,
		ExperimentDirs: opts.ExpDirs,
		Variants:       opts.Variants,
		Shapes:         opts.Shapes,
		Passes:         opts.Passes,
		Sweeps:         sweepsMode(opts.DefaultOnly, opts.Sweeps),
		CostsFrom:      opts.CostsFrom,
	}
	out, err := launch.NewPlanReport(cfg, opts.ShardCount, costsNote)
	var ce *plan.ConfigError
	var pe *launch.PlanCostsError
	switch {
	case errors.As(err, &ce):
		return usageErrorf("plan: %v", ce.Err)
	case errors.As(err, &pe):
		return usageErrorf("plan: %v", pe.Err)
	case err != nil:
		return fmt.Errorf("plan: %w", err)
	}
	csv, err := tableout.Records(out.Cells)
	if err != nil {
		return err
	}
	return writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  csv,
		JSON: out,
		Text: func(w io.Writer) error { return out.WriteText(w) },
	})
}
