// Package launch is the profile runner: it drives kernels/run.py (or a
// program of the user's own that marks its cells, rooftool profile --cmd)
// under the timing pass, ncu and nsys, and keeps a run directory (package
// ingest/rundir: layout, manifest, cell keys) with every cell's status. It
// sits between the experiment specs (package spec) and ingest.
//
// Files by job: run.go (Config, Run: the manifest and the pass loop),
// env.go (device, tools, git commit, the ROOFTOOL_* environment, the spec
// snapshot), pass.go (one pass over cells, re-launching the runner after a
// crash or timeout), check.go and timing.go (the runner's own passes and
// its per-cell JSON, "code" record included), ncupass.go (the ncu process:
// kernel and range replay), rangepass.go (the range pass: one ncu process
// per cell, method choice and coverage against the kernel pass),
// nsyspass.go, ingest.go (tables from the raw exports), cmdtarget.go and
// cmddiscover.go (--cmd: the program's command line and helper settings;
// the run that lists the cells it marks, checked, and the spec and claims
// snapshot made from them).
package launch
