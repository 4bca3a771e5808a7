package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Info is what rooftool knows of its own build. Its JSON keys are the
// CSV's columns.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"` // full hash, "-dirty" where the tree had changes; "" unknown
	Date     string `json:"date,omitempty"`   // build date where the build recorded one
	Go       string `json:"go"`               // the Go version it was built with
	Platform string `json:"platform"`         // GOOS/GOARCH
}

// Read is rooftool's build: version and, where set, the commit and date
// of the link flags; else the commit the Go toolchain recorded
// (vcs.revision, "-dirty" where vcs.modified).
func Read(version, commit, date string) Info {
	b := Info{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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

// WriteText writes b as gh does: the version line (with the build date
// where known), then the commit and the toolchain.
func (b Info) WriteText(w io.Writer) error {
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
