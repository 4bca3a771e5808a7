package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/cmdprog"
)

// cmdExcludes are the profile flags that select or split rooftool's own
// experiments: a --cmd program's cells are those it marks, so none applies.
var cmdExcludes = []string{"experiment", "experiments", "variant", "shape", "default-only", "sweeps",
	"shard", "costs-from", "gpus", "serial-timing", "remove-shards", "ingest-only"}

// checkCmdFlags refuses an empty --cmd, --claims without --cmd and the flags --cmd
// excludes; it notes whether --passes was given (else a --cmd run takes
// cmdprog.Passes).
func checkCmdFlags(c *cobra.Command, opts *ProfileOptions) error {
	if c.Flags().Changed("cmd") && strings.TrimSpace(opts.Cmd) == "" {
		return usageErrorf("profile: --cmd is empty: give the program's command line (e.g. --cmd \"python3 bench.py\"), or leave --cmd out to run the experiments")
	}
	if opts.Cmd == "" {
		if opts.Claims != "" {
			return usageErrorf("profile: --claims goes with --cmd (an experiment folder's claims are its claims.yaml)")
		}
		return nil
	}
	for _, name := range cmdExcludes {
		if c.Flags().Changed(name) {
			return usageErrorf("profile: --cmd and --%s exclude each other: the program's cells are those it marks", name)
		}
	}
	opts.passesGiven = c.Flags().Changed("passes")
	return nil
}

// cmdConfig sets cfg up for --cmd: the program to run and its claims.
func cmdConfig(opts *ProfileOptions, cfg *launch.Config) error {
	if opts.Cmd == "" {
		return nil
	}
	t, err := cmdprog.NewTarget(opts.Cmd, opts.Claims)
	if err != nil {
		return usageErrorf("profile: %v", err)
	}
	cfg.Cmd = t
	if !opts.passesGiven {
		cfg.Passes = nil
	}
	return nil
}
