// Package nsys reads Nsight Systems exports into rooftool's tables (the
// ingest core): the SQLite export of nsys export --type sqlite (schema 2.9
// to 3.24), plain or gzipped, and an .nsys-rep report through nsys export.
// It gives a kernels row per kernel launch, attributed to the innermost
// NVTX range around its launching runtime call, the NVTX ranges, CUDA
// graph launches and memory copies and memsets as ranges rows, the GPUs
// and the export's metadata (nsys.go says what is read from where).
//
// It also reads what rooftool stats reproduces of nsys stats without
// ingesting: kernel, CUDA API, memory and NVTX summaries grouped as nsys
// groups them (KernelGroups, CallGroups, MemGroups, RangeKernGroups), and
// Find locates the nsys binary.
//
// ingest/detect calls Parse, ParseGz and ParseRep for the exports it names
// nsys's; analysis builds the stats reports from the groups; launch and
// cmd/rooftool call Find. The package imports the ingest core and
// ingest/internal/callindex, and no other format's package; SQLite (cgo)
// stays behind it.
package nsys
