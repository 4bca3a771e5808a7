package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/rooftool/rooftool/launch/runsummary"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/shard"
)

// MergeOptions are the flags of `rooftool merge`.
type MergeOptions struct {
	IO         *IO
	Runs       []string
	Output     string
	AllowMixed bool
	NoReport   bool
	Format     string // table | json: the summary's form
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
runs of the same shard and an existing non-empty -o always are.

The summary (the run, its cells, the report) goes to stdout as text, or with
--format json as one object, {"rooftool_merge": 1, "run", "cells", "from",
"warnings", "report"} (JSON.md).`,
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
	f.StringVar(&opts.Format, "format", "table", "summary format: table (text lines) or json (one object on stdout)")
	mustRegisterCompletion(c, "format", completeOneOf(summaryFormats...))
	c.ValidArgsFunction = completeDirs
	mustRegisterCompletion(c, "output", completeDirs)
	return c
}

func runMerge(ctx context.Context, opts *MergeOptions) error {
	if err := checkSummaryFormat("merge", opts.Format); err != nil {
		return err
	}
	if err := shard.CheckRunDirs(opts.Runs); err != nil {
		return usageErrorf("merge: %v", err)
	}
	m, warns, err := shard.Merge(opts.Output, opts.Runs, shard.MergeOptions{
		AllowMixed: opts.AllowMixed,
		Command:    os.Args,
		Version:    version,
	})
	s := runsummary.MergeSummary{Version: runsummary.MergeJSONVersion, Run: opts.Output, From: append([]string{}, opts.Runs...), Warnings: append([]string{}, warns...)}
	if opts.Format != tableout.FormatJSON || err != nil {
		// As text, and where the merge fails, the warnings go to stderr.
		for _, w := range s.Warnings {
			fmt.Fprintln(opts.IO.Err, "warning:", w)
		}
	}
	var ce *plan.ConfigError
	if errors.As(err, &ce) {
		return usageErrorf("%v", ce.Err)
	}
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	s.Cells = len(m.Cells)
	text := summaryText(opts.IO, opts.Format)
	fmt.Fprintf(text, "run: %s\ncells: %d from %d runs\n", s.Run, s.Cells, len(s.From))
	if !opts.NoReport {
		path, err := writeRunReport(ctx, opts.IO, opts.Output)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if s.Report = path; path != "" {
			fmt.Fprintf(text, "report: %s\n", path)
		}
	}
	return writeJSONSummary(opts.IO, opts.Format, s)
}
