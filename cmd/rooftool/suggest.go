package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/suggest"
)

// SuggestOptions are the flags of `rooftool suggest`.
type SuggestOptions struct {
	IO         *IO
	Inputs     []string
	Format     string // table | csv | json
	AgainstRun bool   // set predictions against the run's measured fused variants
}

func newSuggestCmd(io *IO) *cobra.Command {
	opts := &SuggestOptions{IO: io}
	c := &cobra.Command{
		Use:   "suggest RUN|EXPORT...",
		Short: "Find GEMM + elementwise chains a fusion could collapse, and predict what fusing saves",
		Long:  helpText("suggest", "{{suggest.ChainModel}}", suggest.ChainModel, "{{suggest.InductorModel}}", suggest.InductorModel),
		Example: `  rooftool suggest testdata/realdata/gpu4/report.sqlite
  rooftool suggest 2026-11-23-h100-140505
  rooftool suggest --against-run 2026-11-22-h100-003504 --format csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Inputs = args
			return runSuggest(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	c.Flags().BoolVar(&opts.AgainstRun, "against-run", false, "compare predicted savings with the run's measured fused variants")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	return c
}

func runSuggest(ctx context.Context, opts *SuggestOptions) error {
	if err := checkDataFormat("suggest", opts.Format); err != nil {
		return err
	}
	in, err := pipeline.OpenInput(opts.Inputs, pipeline.InputOptions{Committed: true})
	if err != nil {
		return err
	}
	out, notes, err := in.Suggest(ctx, opts.AgainstRun)
	for _, n := range notes {
		fmt.Fprintf(opts.IO.Err, "rooftool: suggest: %s\n", n)
	}
	if err != nil {
		return err
	}
	return writeData(opts.IO, opts.Format, tableout.Output{CSV: out.CSV(), JSON: out.JSON(), Text: out.WriteText})
}
