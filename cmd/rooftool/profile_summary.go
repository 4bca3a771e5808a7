package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/reports"
)

// The summaries of profile and merge: as text, line by line on stdout as
// their facts become known (summaryText); with --format json, one object
// on stdout at the end.

// summaryText is where a summary's text goes: stdout, or nowhere where
// --format json prints the summary whole at the end.
func summaryText(streams *IO, format string) io.Writer {
	if format == tableout.FormatJSON {
		return io.Discard
	}
	return streams.Out
}

// writeProfileSummaryText prints one line per pass with its counts, then
// the failed cells with their reasons, the warnings, and what a --cmd
// program marked.
func writeProfileSummaryText(w io.Writer, s launch.ProfileSummary) {
	fmt.Fprintf(w, "run: %s\ngpu: %s\n", s.Run, s.GPU)
	for _, p := range s.Passes {
		fmt.Fprintf(w, "%-7s %d ok, %d failed, %d skipped%s\n", p.Pass+":", p.OK, p.Failed, p.Skipped, p.RangeNote())
	}
	for _, f := range s.Failed {
		fmt.Fprintf(w, "failed: %s [%s]: %s\n", f.Cell, f.Pass, f.Reason)
	}
	for _, wn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	if c := s.Cmd; c != nil {
		fmt.Fprintf(w, "cells: %d marked by --cmd (%s)\n", c.Cells, c.Marked)
		fmt.Fprintf(w, "helper: %s (rooftool_marks; PYTHONPATH=%s for a plain run of the program)\n", c.Helper, c.Helper)
	}
}

// writeRunReport renders a run's go/no-go report (report.md, report.json,
// report.html, plots/) into its directory, as `rooftool report` would, and
// returns the path of report.md; "" (and a note on stderr) where the run
// has no tables.
func writeRunReport(ctx context.Context, streams *IO, dir string) (string, error) {
	if err := pipeline.CheckRunTables(dir); err != nil {
		fmt.Fprintf(streams.Err, "report: not written: %v\n", err)
		return "", nil
	}
	_, res, err := loadRun(ctx, dir, pipeline.Options{})
	if err == nil {
		err = reports.Write(ctx, res, dir, reports.DefaultFormats)
	}
	if err != nil {
		return "", fmt.Errorf("the run is kept, but its report failed: %w (retry with: rooftool report %s)", err, dir)
	}
	return filepath.Join(dir, reports.FileName(reports.FormatMarkdown)), nil
}

// writeJSONSummary writes s as the JSON summary where format asks for it.
func writeJSONSummary(streams *IO, format string, s any) error {
	if format != tableout.FormatJSON {
		return nil
	}
	return tableout.WriteJSON(streams.Out, s)
}
