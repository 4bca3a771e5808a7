// Package shard splits a planned sweep into parts and joins their runs:
// it estimates each cell's cost from the pass seconds earlier runs
// recorded (or the shape size), assigns the cells to N parts of about
// equal cost (longest first, the two cells of a range-decided claim
// together) with the plan hash every part records, merges the parts' run
// directories into one run (raw exports, specs snapshot, manifest, tables
// made again by runtables), checks a merged run against what its merge
// recorded of each part (CheckMerged), and writes (and submits) the Slurm
// job array that profiles the parts and the job that merges them.
//
// It reads the plan (package plan) and run directories (ingest/rundir);
// the profile runner (launch: Run, PlanFor) imports it for the split, and
// cmd/rooftool for plan, merge, slurm and profile --gpus. It imports plan
// and runtables and no other package under launch; none of them imports
// it back.
package shard
