// Package testdata holds rooftool's committed inputs: real exports from
// public projects (realdata/, see realdata/SOURCES.tsv) and real runs of
// `rooftool profile` (runs/<name>/: manifest.json, tables/, raw/, ...).
//
// The runs are embedded, so that `rooftool report` with no argument renders
// the most complete committed run (Default) from any build of rooftool — `go run ./cmd/rooftool
// report` in a clean checkout as well as an installed binary — without
// looking for files next to the binary. (`go test ./...` and `go vet ./...`
// skip this directory, as they skip every testdata directory; it is still an
// importable package.)
package testdata

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Only what a report reads is embedded (about 2 MB of the runs' 14 MB: the
// ncu CSVs and nsys SQLite exports stay out of the binary). Each pattern
// must match at least one file, or the package does not build.
//
//go:embed runs/README.md runs/DEFAULT runs/*/manifest.json runs/*/ceilings.json runs/*/specs runs/*/tables runs/*/raw/check runs/*/raw/timing
var runsFS embed.FS

// Runs lists the committed runs: the names of runs/<name>/ that hold a
// manifest.json, sorted.
func Runs() []string {
	ents, err := fs.ReadDir(runsFS, "runs")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(runsFS, path.Join("runs", e.Name(), "manifest.json")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Default names the committed run that `rooftool report` renders with no
// argument: the one runs/DEFAULT names (its first line), a choice made when
// a run is committed rather than derived from the runs' contents, so that
// committing a newer or larger run (a multi-GPU one, another GPU's) does not
// change what `make demo` shows. "" when the file is missing or names no
// committed run.
func Default() string {
	data, err := fs.ReadFile(runsFS, "runs/DEFAULT")
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(string(data), "\n")
	name = strings.TrimSpace(name)
	for _, r := range Runs() {
		if r == name {
			return name
		}
	}
	return ""
}

// Run returns a committed run's files, rooted at the run directory. name ""
// picks Default().
func Run(name string) (string, fs.FS, error) {
	runs := Runs()
	if len(runs) == 0 {
		return "", nil, fmt.Errorf("no run is committed under testdata/runs")
	}
	if name == "" {
		if name = Default(); name == "" {
			return "", nil, fmt.Errorf("testdata/runs/DEFAULT names no committed run (have %v)", runs)
		}
	}
	found := false
	for _, r := range runs {
		found = found || r == name
	}
	if !found {
		return "", nil, fmt.Errorf("testdata/runs/%s: no such committed run (have %v)", name, runs)
	}
	sub, err := fs.Sub(runsFS, path.Join("runs", name))
	if err != nil {
		return "", nil, err
	}
	return name, sub, nil
}
