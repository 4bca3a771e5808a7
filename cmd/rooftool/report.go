package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/reports"
)

// ReportOptions are the flags of `rooftool report`.
type ReportOptions struct {
	IO      *IO
	RunDir  string   // "" renders the run committed under testdata/runs (embedded)
	OutDir  string   // "" = RunDir, or out/report for the embedded run
	Formats []string // --files: md, json, html
}

func newReportCmd(io *IO) *cobra.Command {
	opts := &ReportOptions{IO: io}
	c := &cobra.Command{
		Use:   "report [RUNDIR]",
		Short: "Render the go/no-go report of a run offline (Markdown, JSON, HTML, plots)",
		Long: `Report re-renders the verdict of a run from its run directory alone: manifest.json,
tables/*.parquet, ceilings.json, raw/check/ and the timing JSON files (clocks) of
raw/timing/. It writes report.md (a decision
table of every claim, then per experiment its environment, per-shape tables,
plots, crossovers and warnings), report.json (the same facts), report.html
(the same page, plots embedded) and plots/*.png.

Each claim of kernels/<experiment>/claims.yaml is judged at each of its shapes:
GO when the measured value and its whole 95% interval clear the threshold,
NO-GO when both miss it, INCONCLUSIVE when the interval straddles it or a
warning voids the metric, NOT MEASURED (with the reason) when the cell failed,
was skipped or is absent.

RUNDIR must hold rooftool cells: a directory without manifest.json whose
tables hold no kernel or timing of any experiment (what rooftool ingest -o
writes from an export made outside rooftool profile) is refused with exit 2,
as is one without tables; use stats or roofline for such exports.

With no RUNDIR, report renders the most complete real run committed under
testdata/runs/ (embedded in the binary) into out/report (or -o DIR); RUNDIR
may also name another committed run, e.g. 2026-11-22-h200-004838, read from
testdata/runs of the rooftool repository that holds the working directory
(only the default run is embedded; outside a rooftool clone it is the only
committed run, and another name is refused with exit 2, saying where it
looked and to name a run directory instead).

Unlike the commands that print data (--format table, csv or json), report
writes files: --files picks which of report.md, report.json (its shape is in
JSON.md) and report.html (all three by default), and stdout gets only the
paths written. stderr says which files of an earlier report were replaced,
and removes (and names) a report file of a kind --files did not ask for:
left, it would show the earlier report's verdicts beside the new ones.
--format is the old name of --files; it still works and says so on stderr.`,
		Example: `  rooftool report                                   # the committed H100 run, into out/report
  rooftool report 2026-11-22-h200-004838 -o out/h200 # another committed run
  rooftool report runs/2026-11-22-h100-1            # writes into the run directory
  rooftool report runs/2026-11-22-h100-1 -o /tmp/r --files md,json   # no report.html (an old one is removed)`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeRunArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.RunDir = args[0]
			}
			return runReport(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "output", "o", "", "directory for report.md, report.json, report.html and plots/ (default: RUNDIR; out/report for the committed run)")
	c.Flags().StringSliceVar(&opts.Formats, "files", reports.DefaultFormats, "files to write, comma-separated: md, json, html (report.md, report.json, report.html)")
	mustRegisterCompletion(c, "files", completeListOf(reports.FormatMarkdown, reports.FormatJSON, reports.FormatHTML))
	renamedFlag(c, io.Err, "format", "files")
	mustRegisterCompletion(c, "output", completeDirs)
	return c
}

func runReport(ctx context.Context, opts *ReportOptions) error {
	formats, err := reports.ParseFormats(opts.Formats)
	if err != nil {
		return usageErrorf("--files: %w", err)
	}
	run, res, err := loadRun(ctx, opts.RunDir, pipeline.Options{})
	if err != nil {
		return err
	}
	outDir := pipeline.ReportDir(run, opts.OutDir)
	if run.Dir == "" {
		fmt.Fprintln(opts.IO.Err, pipeline.CommittedRunNote(run.Name))
	}
	before := reports.Existing(outDir)
	if err := reports.Write(ctx, res, outDir, formats); err != nil {
		return err
	}
	for _, f := range formats {
		path := filepath.Join(outDir, reports.FileName(f))
		fmt.Fprintln(opts.IO.Out, path)
		if before[f] {
			fmt.Fprintf(opts.IO.Err, "report: replaced %s\n", path)
		}
	}
	removed, err := reports.RemoveStale(outDir, before, formats)
	for _, path := range removed {
		fmt.Fprintf(opts.IO.Err, "report: removed stale %s (an earlier report; --files %s did not write it)\n", path, strings.Join(formats, ","))
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
