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
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
)

// Only what a report reads is embedded (about 2 MB of the runs' 14 MB: the
// ncu CSVs and nsys SQLite exports stay out of the binary). Each pattern
// must match at least one file, or the package does not build.
//
//go:embed runs/README.md runs/*/manifest.json runs/*/ceilings.json runs/*/specs runs/*/tables runs/*/raw/check runs/*/raw/timing
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
// argument: of the runs that ran every pass, the one with the most
// experiments, the newest (last in name order, names start with the date)
// among equals, so a newer run of a few experiments does not hide a full
// one; where none ran every pass, the most complete one (the most
// experiments with data, then the most kinds of pass with data, then the
// most passes ok over all cells), the later in name order on a tie. "" when
// none is committed.
func Default() string {
	best, bestExps, bestKinds, bestOK := "", -1, -1, -1
	newestFull, fullExps := "", -1
	for _, r := range Runs() {
		data, err := fs.ReadFile(runsFS, path.Join("runs", r, "manifest.json"))
		if err != nil {
			continue
		}
		var m struct {
			Cells []struct {
				Experiment string `json:"experiment"`
				Passes     map[string]struct {
					Status string `json:"status"`
				} `json:"passes"`
			} `json:"cells"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		exps, kinds, ok := map[string]bool{}, map[string]bool{}, 0
		for _, c := range m.Cells {
			for name, p := range c.Passes {
				if p.Status == "ok" {
					exps[c.Experiment] = true
					kinds[name] = true
					ok++
				}
			}
		}
		if len(kinds) == allPasses && len(exps) >= fullExps {
			newestFull, fullExps = r, len(exps) // Runs is sorted: the newest of the widest
		}
		better := len(exps) > bestExps ||
			len(exps) == bestExps && (len(kinds) > bestKinds || len(kinds) == bestKinds && ok >= bestOK)
		if better {
			best, bestExps, bestKinds, bestOK = r, len(exps), len(kinds), ok
		}
	}
	if newestFull != "" {
		return newestFull
	}
	return best
}

// allPasses is how many kinds of pass a full run makes: check, timing,
// ncu, range, nsys.
const allPasses = 5

// Run returns a committed run's files, rooted at the run directory. name ""
// picks Default().
func Run(name string) (string, fs.FS, error) {
	runs := Runs()
	if len(runs) == 0 {
		return "", nil, fmt.Errorf("no run is committed under testdata/runs")
	}
	if name == "" {
		name = Default()
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
