package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the roofline command is written; its owner replaces this file.
func newRooflineCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "roofline",
		Short:  "(not yet written)",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("roofline: not yet written") },
	}
}
