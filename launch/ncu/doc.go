// Package ncu is what the profile runner asks of Nsight Compute and reads
// back from it: the metric lists of the kernel and range passes, the
// metric names the device's ncu knows (ncu --query-metrics) and the list
// expanded against them, the raw CSV export split by the cell each row's
// NVTX stack names and its metrics summed in base units, and what ncu's
// log says (replay passes per result, metrics it rejected, its errors).
//
// It runs no pass and writes nothing: launch's ncu and range passes call
// it, and cmd/rooftool names the kernel pass's metrics in its advice. It
// imports only the standard library. (Package ingest reads the same CSV
// into tables; this package reads only what the runner needs while a run
// is under way.)
package ncu
