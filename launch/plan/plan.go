package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// Sweep modes: which shapes run under which passes.
const (
	SweepsTiming = "timing" // default grid under every pass, sweep shapes under check and timing only
	SweepsNone   = "none"   // default grid only (--default-only)
	SweepsAll    = "all"    // sweep shapes under every pass too (--sweeps)
)

// ConfigError is a bad flag or name; commands exit 2 on it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ConfigErrorf is a ConfigError with a message formatted as fmt.Errorf
// formats it (%w wraps).
func ConfigErrorf(format string, args ...any) error {
	return &ConfigError{fmt.Errorf(format, args...)}
}

// LoadSpecs reads the experiments from dir/<exp>/spec.yaml when dir has any
// (the checkout the runner also reads), else the specs built into rooftool.
func LoadSpecs(dir string) ([]*spec.Experiment, error) {
	if dir != "" {
		if ms, _ := filepath.Glob(filepath.Join(dir, "*", "spec.yaml")); len(ms) > 0 {
			return spec.LoadFS(os.DirFS(dir))
		}
	}
	return spec.Load()
}

// Cell is one cell of the sweep and the passes it gets.
type Cell struct {
	Exp     *spec.Experiment
	Variant string
	Shape   string
	Passes  []string // in rundir.AllPasses order
}

// Key is the cell's key; Key().String() is "experiment/variant/shape".
func (c Cell) Key() cellkey.Key {
	return cellkey.New(c.Exp.Name, c.Variant, c.Shape)
}

// Cells lists the cells of the selected experiments, variants and shapes, in
// run order: experiments by name, variants in spec order, shapes in spec
// order (default grid, then sweeps).
func Cells(exps []*spec.Experiment, experiments, variants, shapes, passes []string, sweeps string) ([]Cell, error) {
	for _, p := range passes {
		if !slices.Contains(rundir.AllPasses, p) {
			return nil, ConfigErrorf("--passes: unknown pass %q (want %s)", p, strings.Join(rundir.AllPasses, ","))
		}
	}
	switch sweeps {
	case SweepsTiming, SweepsNone, SweepsAll:
	default:
		return nil, ConfigErrorf("sweeps mode %q: want timing, none or all", sweeps)
	}
	byName := map[string]*spec.Experiment{}
	var names []string
	for _, e := range exps {
		byName[e.Name] = e
		names = append(names, e.Name)
	}
	sel := exps
	if len(experiments) > 0 {
		sel = nil
		for _, n := range experiments {
			e, ok := byName[n]
			if !ok {
				return nil, ConfigErrorf("--experiment %q: unknown experiment (have %s)", n, strings.Join(names, ", "))
			}
			if !slices.Contains(sel, e) {
				sel = append(sel, e)
			}
		}
		slices.SortFunc(sel, func(a, b *spec.Experiment) int { return strings.Compare(a.Name, b.Name) })
	}
	usedV, usedS := map[string]bool{}, map[string]bool{}
	var out []Cell
	for _, e := range sel {
		var ps []string
		for _, p := range rundir.AllPasses {
			if slices.Contains(passes, p) && (len(e.Passes) == 0 || slices.Contains(e.Passes, p)) {
				ps = append(ps, p)
			}
		}
		grid := map[string]bool{}
		for _, s := range e.Shapes {
			grid[s] = true
		}
		for _, v := range e.Variants {
			if len(variants) > 0 && !slices.Contains(variants, v.Name) {
				continue
			}
			usedV[v.Name] = true
			for _, s := range e.AllShapes() {
				if len(shapes) > 0 && !slices.Contains(shapes, s) {
					continue
				}
				usedS[s] = true
				cp := ps
				if !grid[s] {
					switch sweeps {
					case SweepsNone:
						if len(shapes) == 0 {
							continue
						}
						// an explicitly named sweep shape runs like a grid shape
					case SweepsTiming:
						if len(shapes) == 0 || !slices.Contains(shapes, s) {
							cp = nil
							for _, p := range ps {
								if p == rundir.PassCheck || p == rundir.PassTiming {
									cp = append(cp, p)
								}
							}
						}
					}
				}
				if len(cp) == 0 {
					continue
				}
				out = append(out, Cell{Exp: e, Variant: v.Name, Shape: s, Passes: cp})
			}
		}
	}
	for _, v := range variants {
		if !usedV[v] {
			return nil, ConfigErrorf("--variant %q: no selected experiment has it", v)
		}
	}
	for _, s := range shapes {
		if !usedS[s] {
			return nil, ConfigErrorf("--shape %q: no selected experiment has it (shapes are canonical, e.g. %q)", s, firstShape(sel))
		}
	}
	if len(out) == 0 {
		return nil, ConfigErrorf("nothing to run: no cell matches the selection")
	}
	return out, nil
}

func firstShape(exps []*spec.Experiment) string {
	for _, e := range exps {
		if len(e.Shapes) > 0 {
			return e.Shapes[0]
		}
	}
	return ""
}
