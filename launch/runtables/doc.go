// Package runtables makes a run directory's tables: it lists the raw
// exports the manifest's finished passes name (package ingest/rundir),
// with what is known of each (the cell of a timing record or a cell's ncu
// CSV, the experiment of a shared nsys export, the paired timing records),
// reads them through package ingest and writes tables/ as Parquet with
// their digests in the manifest. Reingest does it again for a finished run
// (profile --ingest-only, after a merge).
//
// The profile runner (launch) calls it at the end of a run, shard's Merge
// for the merged run, and cmd/rooftool for --ingest-only. It imports no
// other package under launch.
package runtables
