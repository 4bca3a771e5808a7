// Package timing reads rooftool's own timing JSON into its tables (the
// ingest core): the file kernels/run.py time writes per cell (File: wall
// samples, device samples, clock samples) and the paired record that
// kernels/run.py pair writes per claim (PairedFile). It gives timings rows
// (one per sample, ms) and meta rows (clocks, GPU, launch method, pairs'
// clocks); the timings table's method prefixes are the core's
// (ingest.DeviceMethodPrefix, ingest.PairedMethodPrefix).
//
// ingest/detect calls Parse for the files it names timing JSON; pipeline
// reads File for a cell's samples directly. The package imports the ingest
// core and no other format's package.
package timing
