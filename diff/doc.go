// Package diff compares two runs: cell by cell, the median wall time of
// the timing pass in each with its interval, the change and its
// Mann-Whitney p-value, and a geomean over the cells both timed; then, in
// every cell whose kernels both runs recorded, the kernels by name
// (launches, time, DRAM bytes; added and removed ones). It reads the
// tables of two runs as pipeline.OpenTables opens them (the caller opens
// and releases them; each manifest masks its failed passes) and analyses
// each with package analysis; it gives a Result and its formatters:
// aligned Markdown-compatible tables (WriteText), CSV and JSON
// (JSONVersion). rooftool diff (cmd/rooftool) calls it; it opens no run
// and judges no claim.
//
// It sits at the module root beside reports rather than under it: a
// report renders one run's verdicts, a diff compares two runs' tables, and
// neither calls the other. It borrows from reports only the Markdown table
// writer, so that its tables read like the report's.
//
// Files by job: diff.go (Result; Timings, Tables, Runs), kernels.go (the
// kernels by name), format.go (text, CSV and JSON).
package diff
