package runtables

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// Inputs lists the raw exports of a manifest's finished passes with what
// is known of each: timing JSON and per-cell ncu CSVs carry their cell,
// shared exports (a whole experiment's nsys SQLite) their experiment.
func Inputs(dir string, m *rundir.Manifest) []ingest.Input {
	var out []ingest.Input
	seen := map[string]bool{}
	add := func(rel string, o ingest.Options) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		p := filepath.Join(dir, filepath.FromSlash(rel))
		// A committed run keeps its exports gzipped (ncu CSVs and nsys
		// SQLite; package rundir): read <file>.gz where <file> itself is gone.
		if _, err := os.Stat(p); err != nil {
			if _, gzErr := os.Stat(p + ".gz"); gzErr == nil {
				p += ".gz"
			}
		}
		out = append(out, ingest.Input{Path: p, Options: o})
	}
	// An nsys export holds every cell of its runner process; a cell measured
	// again later (its pass failed or superseded here, ok in a later part)
	// must come from the later export only.
	// The cells in key order, as Manifest.Write sorts them: a manifest
	// written by an older binary (or by hand) lists them in another order,
	// and the tables' rows, hence their digests, must not depend on it.
	cells := slices.Clone(m.Cells)
	sort.SliceStable(cells, func(i, j int) bool { return cells[i].Key().Less(cells[j].Key()) })
	nsysCells := map[string][]string{}
	for _, c := range cells {
		if st, ok := c.Passes[rundir.PassNsys]; ok && st.Status == rundir.StatusOK && len(st.Files) > 0 {
			nsysCells[st.Files[0]] = append(nsysCells[st.Files[0]], c.Variant+"/"+c.Shape)
		}
	}
	for _, c := range cells {
		for _, pass := range []string{rundir.PassTiming, rundir.PassNCU, rundir.PassRange, rundir.PassNsys} {
			st, ok := c.Passes[pass]
			if !ok || st.Status != rundir.StatusOK || len(st.Files) == 0 {
				continue
			}
			cell := ingest.Options{Experiment: c.Experiment, Variant: c.Variant, Shape: c.Shape}
			f := st.Files[0]
			switch pass {
			case rundir.PassTiming:
				add(f, cell)
			case rundir.PassNCU, rundir.PassRange:
				o := cell
				o.Pass = ingest.PassKernel
				if pass == rundir.PassRange {
					o.Pass = ingest.PassRange
				}
				if pass == rundir.PassRange && len(st.Replays) > 0 {
					// Every replay's own CSV, each named as a replay: the
					// cell's range rows are one sum per replay.
					for _, rp := range st.Replays {
						if rp.Status == rundir.StatusOK && len(rp.Files) > 0 {
							ro := o
							ro.Replay = rp.Replay
							add(rp.Files[0], ro)
						}
					}
				} else if filepath.Ext(f) == ".csv" && filepath.Base(filepath.Dir(f)) == c.Variant {
					add(f, o) // the cell's own rows
				} else {
					add(f, ingest.Options{Experiment: c.Experiment, Pass: o.Pass})
				}
			case rundir.PassNsys:
				add(f, ingest.Options{Experiment: c.Experiment, Cells: nsysCells[f]})
			}
		}
	}
	// Paired timing records (kernels/run.py pair) name their cells themselves.
	for _, p := range pairedInputs(dir) {
		if r, err := filepath.Rel(dir, p); err == nil {
			add(filepath.ToSlash(r), ingest.Options{})
		}
	}
	return out
}

// Ingest reads a run's raw exports into dir/tables (Parquet). A file the
// parsers reject is left out with a warning; the others are still written.
func Ingest(dir string, m *rundir.Manifest) ([]string, error) {
	ins := Inputs(dir, m)
	if len(ins) == 0 {
		return []string{"no raw export to ingest: no tables written"}, nil
	}
	var warns []string
	var good []ingest.Input
	for _, in := range ins {
		t, err := detect.Files([]ingest.Input{in}, nil)
		if err != nil {
			warns = append(warns, fmt.Sprintf("ingest left out %s: %v", rel(dir, in.Path), err))
			continue
		}
		t.Release()
		good = append(good, in)
	}
	if len(good) == 0 {
		return warns, errors.New("ingest: every raw export was rejected")
	}
	t, err := detect.Files(good, nil)
	if err != nil {
		return warns, fmt.Errorf("ingest: %w", err)
	}
	defer t.Release()
	out := filepath.Join(dir, rundir.TablesDir)
	if err := t.Write(out, ingest.FormatParquet); err != nil {
		return warns, fmt.Errorf("ingest: write %s: %w", out, err)
	}
	d, err := rundir.TableDigests(os.DirFS(dir))
	if err != nil {
		return warns, fmt.Errorf("ingest: digests of %s: %w", out, err)
	}
	m.TableDigests = d
	return warns, nil
}

func rel(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// Reingest rebuilds dir/tables from the raw exports a run's manifest lists
// (after a parser fix, or after a run resumed with --no-ingest) and records
// the outcome in the manifest.
func Reingest(dir string) (*rundir.Manifest, []string, error) {
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	warns, err := Ingest(dir, m)
	if m.Options == nil {
		m.Options = map[string]string{}
	}
	m.Options["tables"] = rundir.TablesDir
	if err != nil {
		m.Options["tables"] = "not written"
		warns = append(warns, err.Error())
	}
	m.Options["ingest"] = "true"
	for _, w := range warns {
		if !slices.Contains(m.Warnings, w) {
			m.Warnings = append(m.Warnings, w)
		}
	}
	if werr := m.Write(dir); werr != nil {
		return m, warns, werr
	}
	return m, warns, err
}

// PairedDir is the folder of an experiment's paired timing records,
// raw/timing/<experiment>/paired/ (kernels/run.py pair).
const PairedDir = "paired"

// pairedInputs lists the paired records under a run's raw/timing/, sorted.
func pairedInputs(dir string) []string {
	ms, _ := filepath.Glob(filepath.Join(dir, "raw", "timing", "*", PairedDir, "*.json"))
	slices.Sort(ms)
	return ms
}
