// Command rooftool checks kernel-fusion claims on a real GPU: it profiles
// fused and unfused kernel variants, ingests the exports into Arrow tables,
// draws rooflines and writes go/no-go reports.
//
// Exit codes, one table for every command:
//
//	0  success
//	1  machine or tool failure: nsys or ncu not found where rooftool looks,
//	   a tool or the GPU failing, a profile or ceilings run that measured
//	   nothing, doctor finding something required missing (a GPU, ncu,
//	   nsys, counters, the runner's Python with torch, the kernels),
//	   unreadable tables, a failed write; the heap past the
//	   memory limit (GOMEMLIMIT, else 3/4 of the machine's, cgroup's or
//	   ulimit -v memory), stopped with a message before the Go runtime's
//	   own out-of-memory death
//	2  bad usage or bad input: bad flags or arguments; an input that is
//	   missing, malformed or of the wrong kind (a directory where export
//	   files are expected, a directory without tables, an empty run
//	   directory, a plain ingest directory given to report); an export
//	   holding nothing rooftool can use; a value without a unit rooftool
//	   knows or that is not a number where one is needed; the same export
//	   given twice; ingest into a run directory without --force, or into
//	   an -o that is a file or device, not a directory; a binary
//	   named by --nsys, --ncu or --python that does not exist
package main

import "os"

func main() { os.Exit(Main()) }
