// Package testdata holds rooftool's committed inputs: real exports from
// public projects (realdata/, see realdata/SOURCES.tsv) and real runs of
// `rooftool profile` (runs/<name>/: manifest.json, tables/, raw/, ...).
//
// The runs are embedded, so that `rooftool report` with no argument renders
// the committed run from any build of rooftool — `go run ./cmd/rooftool
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
)

//go:embed runs
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

// Run returns a committed run's files, rooted at the run directory. name ""
// picks the last run in name order (run names start with their date).
func Run(name string) (string, fs.FS, error) {
	runs := Runs()
	if len(runs) == 0 {
		return "", nil, fmt.Errorf("no run is committed under testdata/runs")
	}
	if name == "" {
		name = runs[len(runs)-1]
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
