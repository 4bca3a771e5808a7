package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/diff"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
)

// DiffOptions are the flags of `rooftool diff`.
type DiffOptions struct {
	IO     *IO
	A, B   string // run directories (or table directories)
	Format string // table | csv | json
	// OneRunCells lists every cell in one run only in the table, a row
	// each; else they are counted per experiment.
	OneRunCells bool
}

func newDiffCmd(io *IO) *cobra.Command {
	opts := &DiffOptions{IO: io}
	c := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "Compare two runs cell by cell and kernel by kernel, benchstat and TraceDiff style",
		Long: `Diff compares two runs (H100 against H200, or before and after a kernel change)
cell by cell: for each (experiment, variant, shape) the median wall time of the
timing pass with its 95% interval in each run, the change in percent, and the
p-value of a Mann-Whitney U test (golang.org/x/perf/benchmath, as benchstat).
A change that is not significant (p >= 0.05) shows as "~"; a geomean row sums
up the cells both runs timed. Cells in one run only are counted per experiment
and run (--one-run-cells lists them, a row each, as CSV and JSON always do).

Then, for every cell both runs recorded kernels for, the kernels by name (as
HTA's TraceDiff): launches and summed durations per iteration (nsys timeline,
else the ncu kernel pass) and DRAM bytes (ncu kernel pass, read + write), each
old against new, with the kernels added and removed. Names are matched across
the tools' spellings (namespaces, integer casts).

--format table (default) is Markdown-compatible; csv is one long table whose
"row" column says what a row holds (cell, geomean, cell_kernels, kernel);
json is one object with "rooftool_diff": 1, keys sorted.

A run may also be named by a run committed under testdata/runs (the default
run is embedded in the binary; the others are read from the repository that
holds the working directory). Exit status: 0 done, 2 bad usage or a run with no tables or
nothing to compare, 1 anything else.`,
		Example: `  rooftool diff 2026-11-22-h100-003504 2026-11-23-h100-140505   # two committed H100 runs
  rooftool diff runs/2026-11-22-h100-1 runs/2026-11-22-h200-1
  rooftool diff --format csv runs/before runs/after > diff.csv
  rooftool diff --format json runs/before runs/after | jq '.kernels[] | select(.status != "both")'`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: completeRunArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			return runDiff(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	c.Flags().BoolVar(&opts.OneRunCells, "one-run-cells", false, "list every cell in one run only (the table counts them per experiment by default)")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	return c
}

func runDiff(ctx context.Context, opts *DiffOptions) error {
	if err := checkDataFormat("diff", opts.Format); err != nil {
		return err
	}
	tables, err := pipeline.OpenRunsTables(ctx, opts.A, opts.B)
	if re := (*pipeline.RunInputError)(nil); errors.As(err, &re) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	defer func() {
		for _, t := range tables {
			t.Release()
		}
	}()
	d, err := diff.Runs(tables[0], tables[1])
	var ie *diff.InputError
	if errors.As(err, &ie) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	text := diff.TextOptions{OneRunCells: opts.OneRunCells}
	out := tableout.Output{Text: func(w io.Writer) error { return d.WriteText(w, text) }}
	switch opts.Format {
	case tableout.FormatCSV:
		out.CSV = d.CSV()
	case tableout.FormatJSON:
		if out.JSON, err = d.JSON(); err != nil {
			return err
		}
	}
	return writeData(opts.IO, opts.Format, out)
}
