package main

import "github.com/rooftool/rooftool/internal/tableout"

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
