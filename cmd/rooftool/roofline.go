package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/roofline"
)

// RooflineOptions are the flags of `rooftool roofline`.
type RooflineOptions struct {
	IO       *IO
	Inputs   []string
	OutDir   string
	GPU      string // catalog name for the roofs the export does not state
	Ceilings string // ceilings.json of `rooftool ceilings`
	Format   string // table | json: the summary's form
}

func newRooflineCmd(io *IO) *cobra.Command {
	opts := &RooflineOptions{IO: io}
	c := &cobra.Command{
		Use:   "roofline INPUT... -o DIR",
		Short: "Draw the hierarchical roofline of an export or a run (PNG and SVG)",
		Long:  helpText("roofline"),
		Example: `  rooftool roofline --gpu rtx-a4500 testdata/realdata/ESMM-Research/metrics.csv -o out/
  rooftool roofline --gpu rtx-5090 report.ncu.csv -o out/
  rooftool roofline runs/2026-11-22-h100-1 -o runs/2026-11-22-h100-1/plots`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Inputs = args
			if opts.OutDir == "" {
				return usageErrorf("roofline: -o DIR is required")
			}
			return runRoofline(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "output", "o", "", "directory to write the plots to")
	c.Flags().StringVar(&opts.GPU, "gpu", "", "GPU whose catalog roofs fill in what the export lacks (default: the export's device name)")
	c.Flags().StringVar(&opts.Ceilings, "ceilings", "", "measured ceilings JSON (rooftool ceilings -o FILE)")
	c.Flags().StringVar(&opts.Format, "format", "table", "summary format: table (chart paths on stdout, roofs and warnings on stderr) or json (one object on stdout)")
	mustRegisterCompletion(c, "gpu", completeGPU)
	mustRegisterCompletion(c, "format", completeOneOf(summaryFormats...))
	return c
}

func runRoofline(ctx context.Context, opts *RooflineOptions) error {
	if err := checkSummaryFormat("roofline", opts.Format); err != nil {
		return err
	}
	in, err := pipeline.OpenInput(opts.Inputs, pipeline.InputOptions{GPU: opts.GPU, Ceilings: opts.Ceilings})
	if err != nil {
		return err
	}
	facts, err := in.Facts(ctx, 0)
	if err != nil {
		return err
	}
	defer facts.Close()
	s, err := roofline.Draw(facts, roofline.Options{OutDir: opts.OutDir})
	if err != nil {
		for _, w := range s.Warnings {
			fmt.Fprintf(opts.IO.Err, "warning: %s\n", w)
		}
		return err
	}
	if opts.Format == tableout.FormatJSON {
		return tableout.WriteJSON(opts.IO.Out, s)
	}
	return s.WriteText(opts.IO.Out, opts.IO.Err)
}
