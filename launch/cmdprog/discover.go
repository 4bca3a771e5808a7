package cmdprog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

// Manifest options of a --cmd run.
const (
	Option       = "cmd"        // the command line, exactly as given
	OptionClaims = "cmd.claims" // the --claims file as given
	OptionHelper = "cmd.helper" // the helper package the program imported
	OptionCells  = "cmd.cells"  // the discovery run's list of marked cells
)

// Check refuses what a run of the program cannot do: a shard of it
// (sharded), another program in a run that profiles one (recorded: the
// run directory runDir's Option, "" for a new run), the check pass and an
// unknown pass. Each is a plan.ConfigError.
func (t *Target) Check(passes []string, sharded bool, runDir, recorded string) error {
	switch {
	case sharded:
		return plan.ConfigErrorf("--cmd and --shard exclude each other")
	case recorded != "" && recorded != t.Line:
		return plan.ConfigErrorf("-o %s: the run profiles --cmd %q; this command gives --cmd %q: the command line changes the measured code, so give it another -o", runDir, recorded, t.Line)
	}
	for _, p := range passes {
		if p == rundir.PassCheck {
			return plan.ConfigErrorf("--passes check: a --cmd program has no check pass (its own assertions are its check); passes: %s", strings.Join(Passes, ","))
		}
		if !slices.Contains(rundir.AllPasses, p) {
			return plan.ConfigErrorf("--passes: unknown pass %q (want %s)", p, strings.Join(Passes, ","))
		}
	}
	return nil
}

// ReadMarks reads the list run's cells (its MarksListed file p) in the
// order met, with the helper's refusals of malformed names ("range: why").
// A missing file lists none.
func ReadMarks(p string) (keys []MarkedCell, bad []string, err error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l struct {
			MarkedCell
			Range string `json:"range"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", n, err)
		}
		if l.Error != "" {
			bad = append(bad, l.Error)
			continue
		}
		keys = append(keys, l.MarkedCell)
	}
	return keys, bad, sc.Err()
}

// MarkedCell is one cell the list run found, with the element type the
// program gave for it (mark(..., dtype=...); empty: none).
type MarkedCell struct {
	cellkey.Key
	DType string `json:"dtype,omitempty"`
}

// cmdSpec is the spec.yaml a --cmd run writes per experiment it found.
type cmdSpec struct {
	Experiment  string       `yaml:"experiment"`
	Title       string       `yaml:"title"`
	Description string       `yaml:"description"`
	DType       string       `yaml:"dtype,omitempty"`
	Vars        []string     `yaml:"vars"`
	Shapes      []string     `yaml:"shapes"`
	Variants    []cmdVariant `yaml:"variants"`
	Passes      []string     `yaml:"passes"`
}

type cmdVariant struct {
	Name string `yaml:"name"`
	Role string `yaml:"role"`
}

// cmdSpecHeader opens each spec.yaml a --cmd run writes.
const cmdSpecHeader = "# Written by rooftool profile --cmd from the NVTX ranges the program marked\n" +
	"# (variants and shapes in the order met); roles from the claims' baselines, else the\n" +
	"# first variant marked is the baseline.\n"

// Specs are the experiments a run of the program profiles, one per
// experiment it marked, and the files of the run's specs/ snapshot made
// of them.
type Specs struct {
	Order []string                    // the experiments in the order marked
	Exps  map[string]*spec.Experiment // by name
	Files map[string][]byte           // spec.yaml and claims.yaml by their path in the run (rundir.SpecsPath)
}

// Experiments checks the marked cells (each range once, names and shapes
// as rooftool's own specs require them, shapes canonical in the order
// their variables were first met) and builds and validates one experiment
// per experiment marked, each with passes, the claims of --claims judging
// the one they name.
func (t *Target) Experiments(keys []MarkedCell, passes []string) (*Specs, error) {
	cmd := fmt.Sprintf("--cmd %q", t.Line)
	var order []string
	specs := map[string]*cmdSpec{}
	seen := map[cellkey.Key]bool{}
	for _, mc := range keys {
		k := mc.Key
		rng := k.String() + "/"
		if seen[k] {
			return nil, plan.ConfigErrorf("%s: range %q marked twice: each experiment/variant/shape is one cell, marked once per run", cmd, rng)
		}
		seen[k] = true
		s := specs[k.Experiment]
		if s == nil {
			s = &cmdSpec{Experiment: k.Experiment, Title: "marked by a program of its own", Description: "rooftool profile --cmd " + t.Line, Passes: passes}
			specs[k.Experiment] = s
			order = append(order, k.Experiment)
		}
		if mc.DType != "" {
			if s.DType != "" && s.DType != mc.DType {
				return nil, plan.ConfigErrorf("%s: range %q: dtype %q, but an earlier cell of %s was marked %q: an experiment has one element type", cmd, rng, mc.DType, k.Experiment, s.DType)
			}
			s.DType = mc.DType
		}
		if _, err := spec.ParseShape(k.Shape); err != nil {
			return nil, plan.ConfigErrorf("%s: range %q: %w (want name=integer,...: e.g. M=4096,N=4096)", cmd, rng, err)
		}
		for _, kv := range strings.Split(k.Shape, ",") {
			if name, _, _ := strings.Cut(kv, "="); !slices.Contains(s.Vars, name) {
				s.Vars = append(s.Vars, name)
			}
		}
		one := spec.Experiment{Name: k.Experiment, Vars: s.Vars, Shapes: []string{k.Shape}, Variants: []spec.Variant{{Name: k.Variant, Role: spec.RoleBaseline}}}
		if err := one.Validate(); err != nil {
			return nil, plan.ConfigErrorf("%s: range %q: %w", cmd, rng, err)
		}
		if !slices.Contains(s.Shapes, k.Shape) {
			s.Shapes = append(s.Shapes, k.Shape)
		}
		if !slices.ContainsFunc(s.Variants, func(v cmdVariant) bool { return v.Name == k.Variant }) {
			s.Variants = append(s.Variants, cmdVariant{Name: k.Variant, Role: spec.RoleCandidate})
		}
	}
	claimsExp, claims, baselines, err := t.claims(order)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "rooftool-cmd-specs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := map[string]*spec.Experiment{}
	files := map[string][]byte{}
	for _, name := range order {
		s := specs[name]
		for i := range s.Variants {
			if slices.Contains(baselines, s.Variants[i].Name) && name == claimsExp {
				s.Variants[i].Role = spec.RoleBaseline
			}
		}
		if !slices.ContainsFunc(s.Variants, func(v cmdVariant) bool { return v.Role == spec.RoleBaseline }) {
			s.Variants[0].Role = spec.RoleBaseline
		}
		y, err := yaml.Marshal(s)
		if err != nil {
			return nil, err
		}
		files[rundir.SpecsPath(name, "spec.yaml")] = append([]byte(cmdSpecHeader), y...)
		if name == claimsExp {
			files[rundir.SpecsPath(name, "claims.yaml")] = claims
		}
		for _, f := range rundir.SnapshotFiles {
			if data, ok := files[rundir.SpecsPath(name, f)]; ok {
				if err := rundir.WriteFileAtomic(filepath.Join(tmp, name, f), data); err != nil {
					return nil, err
				}
			}
		}
		e, err := spec.LoadDir(filepath.Join(tmp, name))
		if err != nil {
			msg := strings.ReplaceAll(err.Error(), filepath.Join(tmp, name, "claims.yaml"), t.Claims)
			err = errors.New(strings.ReplaceAll(msg, filepath.Join(tmp, name, "spec.yaml"), "the marked cells"))
			return nil, plan.ConfigErrorf("%s with --claims %s: %w", cmd, t.Claims, err)
		}
		out[name] = e
	}
	return &Specs{Order: order, Exps: out, Files: files}, nil
}

// claims reads the --claims file: the experiment it judges (its
// experiment: field, or the only one marked), its bytes and the variants
// its claims name as baselines. No file: none of them.
func (t *Target) claims(marked []string) (string, []byte, []string, error) {
	p := t.Claims
	if p == "" {
		return "", nil, nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", nil, nil, plan.ConfigErrorf("--claims %s: %w", p, err)
	}
	var head struct {
		Experiment string `yaml:"experiment"`
		Claims     []struct {
			Baseline string `yaml:"baseline"`
		} `yaml:"claims"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return "", nil, nil, plan.ConfigErrorf("--claims %s: %w", p, err)
	}
	exp := head.Experiment
	switch {
	case exp == "" && len(marked) > 1:
		return "", nil, nil, plan.ConfigErrorf("--claims %s: no experiment: field, and the program marked several (%s): name the one it judges", p, strings.Join(marked, ", "))
	case exp == "":
		exp = marked[0]
	case !slices.Contains(marked, exp):
		return "", nil, nil, plan.ConfigErrorf("--claims %s: experiment %q, but the program marked only %s", p, exp, strings.Join(marked, ", "))
	}
	var bases []string
	for _, c := range head.Claims {
		if c.Baseline != "" && !slices.Contains(bases, c.Baseline) {
			bases = append(bases, c.Baseline)
		}
	}
	return exp, data, bases, nil
}

// WriteSnapshot writes the experiments' spec and claims files into the
// specs/ of the run directory runDir (a resumed run's copy is replaced,
// with a warning where it differs; a claims.yaml no longer given is
// removed). It returns the warnings.
func (s *Specs) WriteSnapshot(runDir string) ([]string, error) {
	files := s.Files
	var warns []string
	for _, name := range s.Order {
		for _, f := range rundir.SnapshotFiles {
			rel := rundir.SpecsPath(name, f)
			dst := filepath.Join(runDir, filepath.FromSlash(rel))
			have, herr := os.ReadFile(dst)
			data, ok := files[rel]
			if herr == nil && (!ok || !bytes.Equal(have, data)) {
				warns = append(warns, rel+" differs from the run's earlier snapshot (another program run, or other claims): replaced")
			}
			if !ok {
				os.Remove(dst)
				continue
			}
			if err := rundir.WriteFileAtomic(dst, data); err != nil {
				return warns, fmt.Errorf("snapshot %s: %w", rel, err)
			}
		}
	}
	return warns, nil
}
