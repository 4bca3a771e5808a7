package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/internal/buildinfo"
	"github.com/rooftool/rooftool/internal/tableout"
)

// commit and date are set with -ldflags "-X main.commit=... -X
// main.date=..." (the Makefile sets both); without them the commit comes
// from the Go toolchain's record of the checkout it built in, and the
// build date is not known.
var (
	commit = ""
	date   = ""
)

// VersionOptions are the flags of `rooftool version`.
type VersionOptions struct {
	IO     *IO
	Format string // table | csv | json
}

func newVersionCmd(io *IO) *cobra.Command {
	opts := &VersionOptions{IO: io}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print rooftool's version, commit, Go version and build date",
		Long: `Version prints what rooftool knows of its own build: its version (git describe
of the commit it was built from), that commit, the Go version and platform
it was built with, and the build date where the build recorded one.
rooftool --version prints the version alone.

--format table (default), csv or json ({"rooftool_version": 1, "version",
"commit", "date", "go", "platform"}; JSON.md).`,
		Example: `  rooftool version
  rooftool version --format json | jq -r .commit`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runVersion(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	return c
}

// buildInfo is rooftool's build, with the version, commit and date of the
// link flags.
func buildInfo() buildinfo.Info { return buildinfo.Read(version, commit, date) }

func runVersion(ctx context.Context, opts *VersionOptions) error {
	if err := checkDataFormat("version", opts.Format); err != nil {
		return err
	}
	b := buildInfo()
	csv, err := tableout.Records([]buildinfo.Info{b})
	if err != nil {
		return err
	}
	return writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  csv,
		JSON: b.JSON(),
		Text: b.WriteText,
	})
}
