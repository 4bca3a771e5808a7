// Package knob holds the sizes that rooftool's ingest packages read where
// a test of any of them lowers one: the Parquet row group, how often an
// export's parse reports progress, and whether rows go through the
// Builder's plain Add methods. It sits under ingest and imports nothing;
// only the packages under ingest see it, and only their tests change it.
package knob

// RowGroupRows is the most rows ingest.Tables.Write puts in one Parquet
// row group and, with ingest.StreamRowGroupRows, the batch of a streaming
// Builder: ingest.RowGroupRows, which tests lower.
var RowGroupRows int64 = 1 << 20

// ProgressEvery is how many kernel rows of an export are read between two
// calls of its Options.Progress.
var ProgressEvery int64 = 1 << 16

// SlowAppend makes the Builder's appenders (KernelAppender, RangeAppender)
// take the path of AddKernel and AddRange: tests compare the two.
var SlowAppend = false
