// Package progress shows long work (reading exports, summarising tables)
// on a terminal: one line on stderr, redrawn in place, with a spinner, the
// export being read and the kernels read so far (or the step under way)
// and the time spent, wiped when the work ends so that what the command
// prints next starts on a clean line. Off a terminal there is no line: a
// nil *Line prints nothing.
//
// It imports only leaf packages of rooftool (internal/tableout, for the
// thousands separators); cmd/rooftool's ingest and stats commands use it.
package progress
