// Package detect is the entry to rooftool's ingest stage: it names the
// format of each export from its contents (Format) and runs the parser of
// that format (ingest/ncu, ingest/nsys, ingest/kineto, ingest/timing) into
// the tables of the ingest core. Files and File build the tables in
// memory; WriteFiles, WriteTemp and WriteTempKernels persist them as the
// exports are parsed, in bounded memory. An Input's Cells keep only the
// kernels of some cells of an export.
//
// It is the one package that imports every format's package; the commands
// (cmd/rooftool) and the profile runner (launch) call it to ingest files,
// and read the tables through the ingest core.
package detect
