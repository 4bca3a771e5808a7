package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the profile command is written; its owner replaces this file.
func newProfileCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "profile",
		Short:  "(not yet written)",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("profile: not yet written") },
	}
}
