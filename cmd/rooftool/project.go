package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/project"
)

// ProjectOptions are the flags of `rooftool project`.
type ProjectOptions struct {
	IO      *IO
	Run     string // run directory or committed run
	GPU     string // target GPU: a catalog key, name or alias
	Against string // run measured on the target GPU ("" = none)
	Format  string // table | csv | json
}

func newProjectCmd(io *IO) *cobra.Command {
	opts := &ProjectOptions{IO: io}
	c := &cobra.Command{
		Use:   "project RUN --gpu GPU",
		Short: "Project a run onto another catalog GPU with the roofline model (a what-if, not a measurement)",
		Long:  helpText("project", "{{project.ModelText}}", project.ModelText),
		Example: `  rooftool project 2026-11-23-h100-140505 --gpu h200
  rooftool project 2026-11-22-h100-003504 --gpu h200 --against 2026-11-22-h200-004838
  rooftool project runs/my-run --gpu a100-sxm-80 --format json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeRunArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Run = args[0]
			return runProject(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.GPU, "gpu", "", "target GPU: a key, name or alias of the catalog (rooftool gpus)")
	c.Flags().StringVar(&opts.Against, "against", "", "a run measured on the target GPU to compare the projection with")
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	mustRegisterCompletion(c, "gpu", completeGPU)
	mustRegisterCompletion(c, "against", func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completeRunArgs(1)(c, nil, toComplete)
	})
	return c
}

func runProject(ctx context.Context, opts *ProjectOptions) error {
	if err := checkDataFormat("project", opts.Format); err != nil {
		return err
	}
	if opts.GPU == "" {
		return usageErrorf("project: --gpu is required (a GPU of rooftool gpus, e.g. --gpu h200)")
	}
	target, err := gpu.Find(opts.GPU)
	if err != nil {
		return usageErrorf("project: --gpu %s: %v", opts.GPU, err)
	}
	_, src, err := loadRun(ctx, opts.Run, pipeline.Options{})
	if err != nil {
		return err
	}
	srcSpec, ok := gpu.Lookup(src.Run.GPU)
	if !ok {
		return usageErrorf("project: run %s ran on %q, which is not in the catalog: no roofs to project from", src.Name, src.Run.GPU)
	}
	p := project.Run(src.Run, srcSpec, target, project.Options{})
	p.SourceRun = src.Name
	if len(p.Cells) == 0 {
		return usageErrorf("project: run %s has no cell with ncu kernels: nothing to project", src.Name)
	}
	if opts.Against != "" {
		_, m, err := loadRun(ctx, opts.Against, pipeline.Options{})
		if err != nil {
			return err
		}
		if !gpu.MatchGPU(target.Key, m.Run.GPU) {
			return usageErrorf("project: --against %s ran on %q, not on --gpu %s", m.Name, m.Run.GPU, opts.GPU)
		}
		p.Against(m.Name, m.Run)
	}
	a, b := gpu.ShortName(srcSpec.Key), target.Key
	return writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  project.ProjectionCSV(p),
		JSON: project.ProjectionJSON(p, srcSpec.Key, target.Key),
		Text: func(w io.Writer) error { return project.WriteProjectionTable(w, p, a, b, srcSpec.Key, target.Key) },
	})
}
