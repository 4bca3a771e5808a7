// Package launch is the profile runner: it drives kernels/run.py (or a
// program of the user's own that marks its cells, rooftool profile --cmd)
// under the check and timing passes, ncu and nsys, and keeps a run
// directory (package ingest/rundir: layout, manifest, cell keys) with
// every cell's status. It sits between the experiment specs (package
// spec) and ingest; cmd/rooftool calls it (profile, plan, doctor).
//
// Files by job: run.go (Config, Run: the manifest and the pass loop),
// env.go (device, tools, git commit, the ROOFTOOL_* environment, the spec
// snapshot), preflight.go, pass.go (one pass over cells, re-launching the
// runner after a crash or timeout), exec.go (a process with its log and
// timeout), check.go and timing.go (the runner's own passes and its
// per-cell JSON, "code" record included), paired.go (the claims' paired
// timing), warm.go (the compile stage before the passes), ncupass.go (the
// ncu process: kernel and range replay), rangepass.go and rangefloor.go
// (the range pass: replay rounds and their processes, coverage against the
// kernel pass, the DRAM floor once nsys ran), nsyspass.go, program.go
// (--cmd: the discovery run and the program's settings per pass),
// multigpu.go (profile --gpus: one shard process per GPU), doctor.go.
//
// Its sub-packages each do one job for it, and launch imports them all:
// plan (the sweep's cells and passes, ConfigError), shard (the split into
// parts and its costs, merge, the check of a merged run, Slurm scripts),
// rangerule (the replay rule, coverage and DRAM floor figures), ncu (its
// metric lists, CSV and log), cmdprog (a --cmd program's command line,
// marks and specs), compilecache (the run's compile caches) and runtables
// (the run's tables from its raw exports). None of them imports launch.
package launch
