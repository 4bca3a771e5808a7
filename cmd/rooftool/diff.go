package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the diff command is written; its owner replaces this file.
func newDiffCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "diff",
		Short:  "(not yet written)",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("diff: not yet written") },
	}
}
