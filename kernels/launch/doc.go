// Package launch is the profile runner: it drives kernels/run.py under the
// timing pass, ncu and nsys, and keeps a run directory (package
// ingest/rundir: layout, manifest, cell keys) with every cell's status. It
// sits between the experiment specs (package kernels) and ingest.
package launch
