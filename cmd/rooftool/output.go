package main

import (
	"slices"

	"github.com/rooftool/rooftool/internal/tableout"
)

// dataFormats are the --format values of every command that prints data;
// each writes its output through tableout.
var dataFormats = tableout.Formats

// checkDataFormat rejects a --format outside dataFormats.
func checkDataFormat(cmd, format string) error {
	if !tableout.Valid(format) {
		return usageErrorf("%s: --format %q: want table, csv or json", cmd, format)
	}
	return nil
}

// summaryFormats are the --format values of the commands whose output is a
// summary of work done (roofline, merge, profile): text for reading, or one
// JSON object.
var summaryFormats = []string{tableout.FormatTable, tableout.FormatJSON}

// checkSummaryFormat rejects a --format outside summaryFormats ("" is
// the default, table).
func checkSummaryFormat(cmd, format string) error {
	if format != "" && !slices.Contains(summaryFormats, format) {
		return usageErrorf("%s: --format %q: want table or json (a summary has no CSV form)", cmd, format)
	}
	return nil
}
