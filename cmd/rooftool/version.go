package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

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

// versionJSONVersion is the "rooftool_version" field of the JSON output;
// it changes when a key is renamed or removed or a value changes meaning.
const versionJSONVersion = 1

// build is what rooftool knows of its own build. Its JSON keys are the
// CSV's columns.
type build struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"` // full hash, "-dirty" where the tree had changes; "" unknown
	Date     string `json:"date,omitempty"`   // build date where the build recorded one
	Go       string `json:"go"`               // the Go version it was built with
	Platform string `json:"platform"`         // GOOS/GOARCH
}

// versionJSON is the JSON output of `rooftool version --format json`.
type versionJSON struct {
	Version int `json:"rooftool_version"`
	build
}

// buildInfo is rooftool's build: the version and, where set, the commit
// and date of the link flags; else the commit the Go toolchain recorded
// (vcs.revision, "-dirty" where vcs.modified).
func buildInfo() build {
	b := build{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if b.Commit != "" {
		return b
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		dirty := ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "-dirty"
				}
			}
		}
		if b.Commit != "" {
			b.Commit += dirty
		}
	}
	return b
}

func runVersion(ctx context.Context, opts *VersionOptions) error {
	if err := checkDataFormat("version", opts.Format); err != nil {
		return err
	}
	b := buildInfo()
	csv, err := tableout.Records([]build{b})
	if err != nil {
		return err
	}
	return writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  csv,
		JSON: versionJSON{Version: versionJSONVersion, build: b},
		Text: func(w io.Writer) error { return writeVersionText(w, b) },
	})
}

// writeVersionText writes b as gh does: the version line (with the build
// date where known), then the commit and the toolchain.
func writeVersionText(w io.Writer, b build) error {
	line := "rooftool version " + b.Version
	if b.Date != "" {
		line += " (" + b.Date + ")"
	}
	fmt.Fprintln(w, line)
	if b.Commit != "" {
		fmt.Fprintf(w, "commit %s\n", b.Commit)
	} else {
		fmt.Fprintln(w, "commit unknown (built outside a git checkout)")
	}
	_, err := fmt.Fprintf(w, "built with %s for %s\n", b.Go, b.Platform)
	return err
}
