// Command rooftool checks kernel-fusion claims on a real GPU: it profiles
// fused and unfused kernel variants, ingests the exports into Arrow tables,
// draws rooflines and writes go/no-go reports.
//
// Exit codes: 0 success, 1 failure, 2 bad usage or bad input.
package main

import "os"

func main() { os.Exit(Main()) }
