package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the stats command is written.
func newStatsCmd(io *IO) *cobra.Command {
	return &cobra.Command{Use: "stats", Hidden: true, RunE: func(*cobra.Command, []string) error { return errors.New("stats: not yet written") }}
}
