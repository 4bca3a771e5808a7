package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rooftool/rooftool/internal/tableout"
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
