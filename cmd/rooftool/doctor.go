package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the doctor command is written; its owner replaces this file.
func newDoctorCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:    "doctor",
		Short:  "(not yet written)",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("doctor: not yet written") },
	}
}
