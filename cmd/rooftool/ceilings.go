package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the ceilings command is written; its owner replaces this file.
func newCeilingsCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "ceilings",
		Short:  "(not yet written)",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("ceilings: not yet written") },
	}
}
