package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the report command is written; its owner replaces this file.
func newReportCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "report",
		Short:  "(not yet written)",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("report: not yet written") },
	}
}
