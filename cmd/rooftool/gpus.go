package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the gpus command is written; its owner replaces this file.
func newGPUsCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "gpus",
		Short:  "(not yet written)",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("gpus: not yet written") },
	}
}
