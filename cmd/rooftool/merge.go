package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch"
)

// MergeOptions are the flags of `rooftool merge`.
type MergeOptions struct {
	IO         *IO
	Runs       []string
	Output     string
	AllowMixed bool
	NoReport   bool
}

func newMergeCmd(io *IO) *cobra.Command {
	opts := &MergeOptions{IO: io}
	c := &cobra.Command{
		Use:   "merge RUN... -o RUN",
		Short: "Combine the run directories of a sharded sweep into one run",
		Long: `Merge joins the run directories that rooftool profile --shard I/N wrote
into a new run directory: the union of their cells in one manifest, their
raw exports (an export path two runs share with other bytes is renamed
shard<I>-<name>, the manifest follows), the specs snapshot, ceilings.json
where the runs agree, tables ingested again from the merged manifest, and
the report. The run is built in a temporary folder and renamed into place.

Runs made with a different git commit, specs snapshot, plan hash or GPU
model are refused unless --allow-mixed; two runs holding the same cell, two
runs of the same shard and an existing non-empty -o always are.`,
		Example: `  rooftool merge runs/part1 runs/part2 -o runs/2026-11-23-h100-all
  rooftool merge runs/part* -o runs/all --allow-mixed`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Output == "" {
				return usageErrorf("merge: -o RUN is required")
			}
			opts.Runs = args
			return runMerge(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "the merged run directory (must not exist, or be empty)")
	f.BoolVar(&opts.AllowMixed, "allow-mixed", false, "merge runs of different git commits, specs snapshots, plans or GPU models (warned about)")
	f.BoolVar(&opts.NoReport, "no-report", false, "do not write report.md, report.json into the merged run")
	c.ValidArgsFunction = completeDirs
	mustRegisterCompletion(c, "output", completeDirs)
	return c
}

func runMerge(ctx context.Context, opts *MergeOptions) error {
	for _, d := range opts.Runs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return usageErrorf("merge: %s: not a run directory", d)
		}
	}
	m, warns, err := launch.Merge(opts.Output, opts.Runs, launch.MergeOptions{
		AllowMixed: opts.AllowMixed,
		Command:    os.Args,
		Version:    version,
	})
	for _, w := range warns {
		fmt.Fprintln(opts.IO.Err, "warning:", w)
	}
	var ce *launch.ConfigError
	if errors.As(err, &ce) {
		return usageErrorf("%v", ce.Err)
	}
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	fmt.Fprintf(opts.IO.Out, "run: %s\ncells: %d from %d runs\n", opts.Output, len(m.Cells), len(opts.Runs))
	if opts.NoReport {
		return nil
	}
	if _, err := os.Stat(filepath.Join(opts.Output, rundir.TablesDir)); err != nil {
		fmt.Fprintf(opts.IO.Err, "report: not written: %s has no tables\n", opts.Output)
		return nil
	}
	po := &ProfileOptions{IO: opts.IO}
	if err := writeProfileReport(ctx, po, opts.Output); err != nil {
		return fmt.Errorf("merge: the merged run is kept, but its report failed: %w", err)
	}
	return nil
}
