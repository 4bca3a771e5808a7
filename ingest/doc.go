// Package ingest is the core of rooftool's ingest stage, the first stage
// of the pipeline after the profile runner: the Arrow schema of the tables
// every later stage reads (schema.go, generated into SCHEMA.md), the
// Builder that parsers add rows to, and the reading, writing, scanning and
// streaming of those tables as Parquet or Arrow IPC.
//
// Beside it sits one package per export format, each importing this core
// and none of the others: ingest/ncu (Nsight Compute CSV, .ncu-rep),
// ingest/nsys (Nsight Systems SQLite, .nsys-rep), ingest/kineto (PyTorch
// profiler traces) and ingest/timing (rooftool's timing JSON). Above them,
// ingest/detect names the format of each export and runs its parser; it is
// what commands call to ingest files. This package imports none of them:
// the stages after ingest (analysis, launch, pipeline, reports, cmd) read
// tables through it alone (Tables, ReadDir, ScanKernels, ScanMetrics).
// Arrow, cgo and SQLite details stay behind the ingest packages' APIs.
//
// A parser is given an Input (the export's path and its Options) and a
// Builder. It adds rows with AddKernel, AddMetric, AddRange, AddGPU,
// AddMeta and AddTiming, or many at a time with KernelAppender,
// RangeAppender and MetricAppender, and reports a bad export as an
// *InputError (BadInput, NoKernels). Builder.Finish holds the tables in
// memory; Stream writes what a parse adds as it goes, Parquet row group by
// row group, so that an export of any length is ingested in bounded memory.
package ingest
