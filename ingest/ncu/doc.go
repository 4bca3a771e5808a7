// Package ncu reads Nsight Compute exports into rooftool's tables (the
// ingest core): the CSV that ncu --csv writes (raw page, details page, the
// long --metrics form and the 2020-era layout; plain or gzipped) and,
// through the ncu binary, a binary .ncu-rep report. It gives a kernels row
// per profiled kernel (per NVTX range in the range pass), every metric in
// long form converted to base units (units.go), the GPUs and the export's
// messages as meta rows; ncu.go says which column fills what.
//
// ingest/detect calls Parse and ParseRep for the exports it names ncu's.
// The package imports the ingest core and no other format's package.
package ncu
