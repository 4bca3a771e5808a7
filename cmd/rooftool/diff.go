package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/reports"
)

// DiffOptions are the flags of `rooftool diff`.
type DiffOptions struct {
	IO     *IO
	A, B   string // run directories (or table directories)
	Format string // table | csv
}

func newDiffCmd(io *IO) *cobra.Command {
	opts := &DiffOptions{IO: io}
	c := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "Compare the wall times of two runs cell by cell, benchstat style",
		Long: `Diff compares two runs (H100 against H200, or before and after a kernel change)
cell by cell: for each (experiment, variant, shape) the median wall time of the
timing pass with its 95% interval in each run, the change in percent, and the
p-value of a Mann-Whitney U test (golang.org/x/perf/benchmath, as benchstat).
A change that is not significant (p >= 0.05) shows as "~". Cells in one run
only are listed apart. A run may also be named by a run committed under
testdata/runs (embedded in the binary).`,
		Example: `  rooftool diff 2026-11-22-h100-003504 2026-11-22-h200-004838   # the committed H100 and H200 runs
  rooftool diff runs/2026-11-22-h100-1 runs/2026-11-22-h200-1
  rooftool diff --format csv runs/before runs/after > diff.csv`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			return runDiff(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table or csv")
	return c
}

func runDiff(ctx context.Context, opts *DiffOptions) error {
	if opts.Format != "table" && opts.Format != "csv" {
		return usageErrorf("--format %q: want table or csv", opts.Format)
	}
	var runs [2]*rundir.Run
	for i, d := range []string{opts.A, opts.B} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			if !isCommittedRun(d) {
				return usageErrorf("%s: not a run directory", d)
			}
		}
		run, _, err := openRun(d, "")
		if err != nil {
			return err
		}
		runs[i] = run
	}
	d, err := reports.DiffRuns(ctx, runs[0], runs[1], nil)
	if err != nil {
		return err
	}
	if opts.Format == "csv" {
		return d.WriteCSV(opts.IO.Out)
	}
	return d.WriteTable(opts.IO.Out)
}
