package launch

import (
	"bufio"
	"bytes"
	"context"
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
	"github.com/rooftool/rooftool/launch/shard"
	"github.com/rooftool/rooftool/spec"
)

// Manifest options of a --cmd run.
const (
	OptionCmd       = "cmd"        // the command line, exactly as given
	OptionCmdClaims = "cmd.claims" // the --claims file as given
	OptionCmdHelper = "cmd.helper" // the helper package the program imported
	OptionCmdCells  = "cmd.cells"  // the discovery run's list of marked cells
)

// discover runs the --cmd program once with the helper in list mode (each
// marked body once, no range, no timing), checks the cells it marked and
// plans them in the order met. Each experiment's spec (its variants and
// shapes as marked; roles from the claims) and the claims go into the run's
// specs/ snapshot, which the report judges the run by. It returns the cells
// and their plan hash. A program that cannot start, marks nothing or marks
// a malformed or repeated range is a plan.ConfigError; one that fails otherwise
// is an error naming its log.
func (r *Runner) discover(ctx context.Context) ([]plan.Cell, string, error) {
	t := r.cfg.Cmd
	switch {
	case r.cfg.Shard.Count > 0:
		return nil, "", configErrorf("--cmd and --shard exclude each other")
	case r.m.Options[OptionCmd] != "" && r.m.Options[OptionCmd] != t.Line:
		return nil, "", configErrorf("-o %s: the run profiles --cmd %q; this command gives --cmd %q: the command line changes the measured code, so give it another -o", r.cfg.RunDir, r.m.Options[OptionCmd], t.Line)
	}
	for _, p := range r.cfg.Passes {
		if p == rundir.PassCheck {
			return nil, "", configErrorf("--passes check: a --cmd program has no check pass (its own assertions are its check); passes: %s", strings.Join(CmdPasses, ","))
		}
		if !slices.Contains(rundir.AllPasses, p) {
			return nil, "", configErrorf("--passes: unknown pass %q (want %s)", p, strings.Join(CmdPasses, ","))
		}
	}
	if err := r.writeHelper(); err != nil {
		return nil, "", err
	}
	raw := filepath.Join(r.dir, filepath.FromSlash(MarksRawDir))
	listed := filepath.Join(raw, marksListed)
	logf := filepath.Join(raw, "run.log")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		return nil, "", err
	}
	os.Remove(listed)
	r.prog.Begin("--cmd: discovering the marked cells (each marked region once)")
	res := RunCmd(ctx, Cmd{Argv: t.Argv, Env: append(r.runnerEnvVars(nil), r.marksEnv("list", raw, nil)...), Log: logf, Timeout: r.cfg.Timeout})
	keys, bad, rerr := readMarks(listed)
	cmd := fmt.Sprintf("--cmd %q", t.Line)
	switch {
	case res.Canceled:
		return nil, "", ctx.Err()
	case res.ExitCode < 0 && res.Err != nil && !res.TimedOut:
		return nil, "", configErrorf("%s: %v", cmd, res.Err)
	case len(bad) > 0:
		return nil, "", configErrorf("%s: malformed range name: %s", cmd, strings.Join(bad, "; "))
	case rerr != nil:
		return nil, "", configErrorf("%s: %s: %w", cmd, r.rel(listed), rerr)
	case res.TimedOut:
		return nil, "", fmt.Errorf("%s: its discovery run (each marked region once) was still running after %s (--timeout); log %s", cmd, r.cfg.Timeout, r.rel(logf))
	case res.ExitCode != 0:
		return nil, "", fmt.Errorf("%s exited with status %d in its discovery run (each marked region once; log %s): %s", cmd, res.ExitCode, r.rel(logf), res.Tail)
	case len(keys) == 0:
		return nil, "", configErrorf("%s marked no range (log %s): mark each variant's call with `for _ in rooftool_marks.mark(experiment, variant, shape):` (kernels/README.md, \"Profile a program of your own\")", cmd, r.rel(logf))
	}
	exps, err := r.cmdExperiments(keys)
	if err != nil {
		return nil, "", err
	}
	var cells []plan.Cell
	for _, k := range keys {
		cells = append(cells, plan.Cell{Exp: exps[k.Experiment], Variant: k.Variant, Shape: k.Shape, Passes: r.cfg.Passes})
	}
	_, _, hash, err := shard.Split(cells, nil, 0, false)
	if err != nil {
		return nil, "", err
	}
	if r.m.Options == nil {
		r.m.Options = map[string]string{}
	}
	r.m.Options[OptionCmd] = t.Line
	r.m.Options[OptionCmdHelper] = MarksHelperDir + "/rooftool_marks"
	r.m.Options[OptionCmdCells] = MarksRawDir + "/" + marksListed
	delete(r.m.Options, OptionCmdClaims)
	if t.Claims != "" {
		r.m.Options[OptionCmdClaims] = t.Claims
	}
	return cells, hash, nil
}

// readMarks reads the list run's cells in the order met, with the helper's
// refusals of malformed names ("range: why"). A missing file lists none.
func readMarks(p string) (keys []markedCell, bad []string, err error) {
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
			markedCell
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
		keys = append(keys, l.markedCell)
	}
	return keys, bad, sc.Err()
}

// markedCell is one cell the list run found, with the element type the
// program gave for it (mark(..., dtype=...); empty: none).
type markedCell struct {
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

// cmdExperiments checks the marked cells (each range once, names and
// shapes as rooftool's own specs require them, shapes canonical in the
// order their variables were first met) and builds, validates and
// snapshots one experiment per experiment marked.
func (r *Runner) cmdExperiments(keys []markedCell) (map[string]*spec.Experiment, error) {
	cmd := fmt.Sprintf("--cmd %q", r.cfg.Cmd.Line)
	var order []string
	specs := map[string]*cmdSpec{}
	seen := map[cellkey.Key]bool{}
	for _, mc := range keys {
		k := mc.Key
		rng := k.String() + "/"
		if seen[k] {
			return nil, configErrorf("%s: range %q marked twice: each experiment/variant/shape is one cell, marked once per run", cmd, rng)
		}
		seen[k] = true
		s := specs[k.Experiment]
		if s == nil {
			s = &cmdSpec{Experiment: k.Experiment, Title: "marked by a program of its own", Description: "rooftool profile --cmd " + r.cfg.Cmd.Line, Passes: r.cfg.Passes}
			specs[k.Experiment] = s
			order = append(order, k.Experiment)
		}
		if mc.DType != "" {
			if s.DType != "" && s.DType != mc.DType {
				return nil, configErrorf("%s: range %q: dtype %q, but an earlier cell of %s was marked %q: an experiment has one element type", cmd, rng, mc.DType, k.Experiment, s.DType)
			}
			s.DType = mc.DType
		}
		if _, err := spec.ParseShape(k.Shape); err != nil {
			return nil, configErrorf("%s: range %q: %w (want name=integer,...: e.g. M=4096,N=4096)", cmd, rng, err)
		}
		for _, kv := range strings.Split(k.Shape, ",") {
			if name, _, _ := strings.Cut(kv, "="); !slices.Contains(s.Vars, name) {
				s.Vars = append(s.Vars, name)
			}
		}
		one := spec.Experiment{Name: k.Experiment, Vars: s.Vars, Shapes: []string{k.Shape}, Variants: []spec.Variant{{Name: k.Variant, Role: spec.RoleBaseline}}}
		if err := one.Validate(); err != nil {
			return nil, configErrorf("%s: range %q: %w", cmd, rng, err)
		}
		if !slices.Contains(s.Shapes, k.Shape) {
			s.Shapes = append(s.Shapes, k.Shape)
		}
		if !slices.ContainsFunc(s.Variants, func(v cmdVariant) bool { return v.Name == k.Variant }) {
			s.Variants = append(s.Variants, cmdVariant{Name: k.Variant, Role: spec.RoleCandidate})
		}
	}
	claimsExp, claims, baselines, err := r.cmdClaims(order)
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
			msg := strings.ReplaceAll(err.Error(), filepath.Join(tmp, name, "claims.yaml"), r.cfg.Cmd.Claims)
			err = errors.New(strings.ReplaceAll(msg, filepath.Join(tmp, name, "spec.yaml"), "the marked cells"))
			return nil, configErrorf("%s with --claims %s: %w", cmd, r.cfg.Cmd.Claims, err)
		}
		out[name] = e
	}
	return out, r.writeCmdSnapshot(order, files)
}

// cmdClaims reads the --claims file: the experiment it judges (its
// experiment: field, or the only one marked), its bytes and the variants
// its claims name as baselines. No file: none of them.
func (r *Runner) cmdClaims(marked []string) (string, []byte, []string, error) {
	p := r.cfg.Cmd.Claims
	if p == "" {
		return "", nil, nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", nil, nil, configErrorf("--claims %s: %w", p, err)
	}
	var head struct {
		Experiment string `yaml:"experiment"`
		Claims     []struct {
			Baseline string `yaml:"baseline"`
		} `yaml:"claims"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return "", nil, nil, configErrorf("--claims %s: %w", p, err)
	}
	exp := head.Experiment
	switch {
	case exp == "" && len(marked) > 1:
		return "", nil, nil, configErrorf("--claims %s: no experiment: field, and the program marked several (%s): name the one it judges", p, strings.Join(marked, ", "))
	case exp == "":
		exp = marked[0]
	case !slices.Contains(marked, exp):
		return "", nil, nil, configErrorf("--claims %s: experiment %q, but the program marked only %s", p, exp, strings.Join(marked, ", "))
	}
	var bases []string
	for _, c := range head.Claims {
		if c.Baseline != "" && !slices.Contains(bases, c.Baseline) {
			bases = append(bases, c.Baseline)
		}
	}
	return exp, data, bases, nil
}

// writeCmdSnapshot writes the experiments' spec and claims files into the
// run's specs/ (a resumed run's copy is replaced, with a warning where it
// differs; a claims.yaml no longer given is removed).
func (r *Runner) writeCmdSnapshot(order []string, files map[string][]byte) error {
	for _, name := range order {
		for _, f := range rundir.SnapshotFiles {
			rel := rundir.SpecsPath(name, f)
			dst := filepath.Join(r.dir, filepath.FromSlash(rel))
			have, herr := os.ReadFile(dst)
			data, ok := files[rel]
			if herr == nil && (!ok || !bytes.Equal(have, data)) {
				r.warn("%s differs from the run's earlier snapshot (another program run, or other claims): replaced", rel)
			}
			if !ok {
				os.Remove(dst)
				continue
			}
			if err := rundir.WriteFileAtomic(dst, data); err != nil {
				return fmt.Errorf("snapshot %s: %w", rel, err)
			}
		}
	}
	return nil
}
