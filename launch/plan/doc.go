// Package plan is the floor of the profile runner (package launch): it
// reads the experiment specs (package spec: a kernels folder's, else those
// built into rooftool) and a selection of experiments, variants, shapes,
// passes and sweep mode, and gives the sweep's cells in run order, each
// with the passes it gets. It also holds ConfigError, the error of a bad
// flag or name that every launch package returns and on which commands
// exit 2.
//
// It imports no other package under launch; launch, its sub-packages
// (shard splits the cells this package plans) and cmd/rooftool import it.
package plan
