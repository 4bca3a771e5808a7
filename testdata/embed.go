// Package testdata holds rooftool's committed inputs: real exports from
// public projects (realdata/, see realdata/SOURCES.tsv; the largest,
// cutlass_benchmark/report1.sqlite, is stored gzipped, and its size and
// sha256 there are those of the file gunzipped, as upstream has it) and
// real runs of `rooftool profile` (runs/<name>/: manifest.json, tables/,
// raw/, ...; what each keeps is in runs/README.md).
//
// One run is embedded: the default (Default, the one runs/DEFAULT names),
// so that `rooftool report` with no argument renders it from any build of
// rooftool — `go run ./cmd/rooftool report` in a clean checkout as well as
// an installed binary — without looking for files next to the binary. The
// other committed runs are read from the checkout: Run and Runs look for
// testdata/runs in the rooftool repository that holds the working
// directory (the first parent with rooftool's go.mod), so they work by name
// from anywhere inside the repository and `go test` finds them from each
// package's folder; outside it, naming one is an error (NotFoundError)
// that says where it looked. (`go test ./...` and `go vet ./...` skip this
// directory, as they skip every testdata directory; it is still an
// importable package.)
package testdata

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/internal/checkout"
)

// embeddedRun is the run embedded in the binary; runs/DEFAULT must name it
// (TestDefaultRunEmbedded in cmd/rooftool). Only what a report reads is
// embedded: 1.0 MB of the run's 7.3 MB (the ncu CSVs and nsys SQLite
// exports stay out of the binary; this run has no ceilings.json, a run
// that has one adds it here). Each pattern must match at least one file,
// or the package does not build.
const embeddedRun = "2026-11-23-h100-161238"

//go:embed runs/README.md runs/DEFAULT
//go:embed runs/2026-11-23-h100-161238/manifest.json
//go:embed runs/2026-11-23-h100-161238/specs runs/2026-11-23-h100-161238/tables
//go:embed runs/2026-11-23-h100-161238/raw/check runs/2026-11-23-h100-161238/raw/timing
var runsFS embed.FS

// Embedded names the run embedded in the binary.
func Embedded() string { return embeddedRun }

// RepoDir returns the testdata/runs folder of the rooftool repository that
// holds the working directory (checkout.Root). "" and the folders tried
// when there is none.
func RepoDir() (string, []string) {
	root, tried := checkout.Root()
	if root == "" {
		return "", tried
	}
	runs := filepath.Join(root, "testdata", "runs")
	if st, err := os.Stat(runs); err != nil || !st.IsDir() {
		return "", []string{root}
	}
	return runs, nil
}

// Runs lists the committed runs, sorted: the embedded one and, inside the
// repository, every runs/<name>/ that holds a manifest.json.
func Runs() []string {
	set := map[string]bool{embeddedRun: true}
	if dir, _ := RepoDir(); dir != "" {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "manifest.json")); e.IsDir() && err == nil {
				set[e.Name()] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Default names the committed run that `rooftool report` renders with no
// argument: the one runs/DEFAULT names (its first line), a choice made when
// a run is committed rather than derived from the runs' contents, so that
// committing a newer or larger run (a multi-GPU one, another GPU's) does not
// change what `make demo` shows. "" when the file is missing or names a run
// other than the embedded one.
func Default() string {
	data, err := fs.ReadFile(runsFS, "runs/DEFAULT")
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(string(data), "\n")
	if name = strings.TrimSpace(name); name != embeddedRun {
		return ""
	}
	return name
}

// NotFoundError says that a run named by name is neither embedded nor in
// the repository's testdata/runs, and where it was looked for.
type NotFoundError struct {
	Name   string
	Looked string // the testdata/runs folder searched, or the folders tried for rooftool's go.mod
	// Outside: no rooftool clone holds the working directory, so the
	// embedded run is the only committed run there is.
	Outside bool
}

func (e *NotFoundError) Error() string {
	if e.Outside {
		return fmt.Sprintf("%s: not a committed run: outside a rooftool clone the only committed run is the one embedded in rooftool, %s (%s); name a run directory instead (the -o of rooftool profile, e.g. runs/%s)",
			e.Name, embeddedRun, e.Looked, e.Name)
	}
	return fmt.Sprintf("%s: not a committed run: this binary embeds only %s, and %s", e.Name, embeddedRun, e.Looked)
}

// Run returns a committed run's files, rooted at the run directory: the
// embedded run from the binary, another from the repository's
// testdata/runs/<name>. name "" picks Default(). A name found nowhere
// gives a *NotFoundError.
func Run(name string) (string, fs.FS, error) {
	if name == "" {
		if name = Default(); name == "" {
			return "", nil, fmt.Errorf("testdata/runs/DEFAULT does not name the embedded run %s", embeddedRun)
		}
	}
	if name == embeddedRun {
		sub, err := fs.Sub(runsFS, path.Join("runs", name))
		return name, sub, err
	}
	dir, tried := RepoDir()
	if dir == "" {
		return "", nil, &NotFoundError{Name: name, Outside: true,
			Looked: fmt.Sprintf("no rooftool clone (go.mod of %s with testdata/runs) holds the working directory: looked in %s", checkout.ModulePath, strings.Join(tried, ", "))}
	}
	if !fs.ValidPath(name) || strings.ContainsAny(name, `/\`) {
		return "", nil, &NotFoundError{Name: name, Looked: "a run is named by one folder name of " + dir}
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(filepath.Join(p, "manifest.json")); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
		return "", nil, &NotFoundError{Name: name, Looked: fmt.Sprintf("%s holds no manifest.json (committed runs: %v)", p, Runs())}
	}
	return name, os.DirFS(p), nil
}
