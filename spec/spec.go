// Package spec is what an experiment is: each experiment is a folder
// kernels/<name>/ with spec.yaml (variants, shapes, tolerances),
// claims.yaml (the seed document's claims and the theoretical byte and FLOP
// model per variant) and a Python module with the variants, all run by
// kernels/run.py. This package loads and validates the specs (the built-in
// ones embedded by package kernels, or a folder of the user's own); the
// launcher (launch) and the analysis and reports stages read them.
package spec

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rooftool/rooftool/kernels"
)

// Roles of a variant.
const (
	RoleBaseline  = "baseline"
	RoleCandidate = "candidate"
	RoleReference = "reference" // shown, never compared (e.g. an eager PyTorch reference)
)

// DTypes are the element types an experiment may name: each picks a compute
// roof (tensor roofs for the tensor-core types).
var DTypes = []string{"bf16", "fp16", "fp8", "tf32", "fp32", "fp64"}

// Experiment is one experiment: spec.yaml merged with claims.yaml.
type Experiment struct {
	Name        string    `yaml:"experiment"` // folder name, also the outer NVTX range
	Title       string    `yaml:"title"`
	Seeds       []string  `yaml:"seeds"` // seed documents, e.g. ["000"]
	Description string    `yaml:"description"`
	DType       string    `yaml:"dtype"`     // bf16, fp16, fp8, fp32
	Tolerance   float64   `yaml:"tolerance"` // max relative error against the reference
	Vars        []string  `yaml:"vars"`      // shape variables, in canonical order
	Shapes      []string  `yaml:"shapes"`    // default grid, canonical strings
	Sweeps      []Sweep   `yaml:"sweeps"`    // named sweeps over one variable
	Variants    []Variant `yaml:"variants"`
	Passes      []string  `yaml:"passes"` // passes this experiment supports, default all

	// From claims.yaml.
	Claims []Claim           `yaml:"-"`
	Theory map[string]Theory `yaml:"-"` // variant -> theoretical model
	// Fusions groups the variants that implement the same fusion (the same
	// elementwise work moved into the same GEMMs): fusion name -> variants.
	// A member the spec does not have is in no run yet: it is absent from
	// every comparison, and a claim on it is NOT MEASURED.
	Fusions map[string][]string `yaml:"-"`

	Dir string `yaml:"-"` // kernels/<name>
}

// Sweep is a named series of shapes that vary one variable.
type Sweep struct {
	Name   string   `yaml:"name"`   // e.g. "T"
	Var    string   `yaml:"var"`    // the variable that changes
	Shapes []string `yaml:"shapes"` // canonical strings, in sweep order
}

// Variant is one implementation of the experiment's computation.
type Variant struct {
	Name        string `yaml:"name"` // NVTX range name, e.g. "unfused"
	Role        string `yaml:"role"` // baseline | candidate | reference
	Description string `yaml:"description"`
	Kernels     int    `yaml:"kernels"`  // expected kernel launches per forward, 0 if unknown
	Graph       bool   `yaml:"graph"`    // timed with CUDA-graph replay
	Requires    string `yaml:"requires"` // optional Python package it needs (e.g. "cutlass"); missing -> skipped
	Backward    bool   `yaml:"backward"` // forward+backward variant
	// Dataflow: which of its kernels consumes which one's output (nil: not
	// stated).
	Dataflow *Dataflow `yaml:"dataflow"`
}

// Claim is one claim of a seed document, as data.
type Claim struct {
	ID        string   `yaml:"id"`
	Seed      string   `yaml:"seed"`      // seed document id, e.g. "000"
	Source    string   `yaml:"source"`    // instead of seed: the claim's own document, a path or URL
	Line      int      `yaml:"line"`      // line in the seed (or source) document
	Quote     string   `yaml:"quote"`     // the claim's words
	Metric    string   `yaml:"metric"`    // speedup | dram_reduction | dram_ratio | kernel_count | kernel_reduction | elementwise_kernel_count | elementwise_dram_ratio | time_us | rel_error | dram_bytes
	Candidate string   `yaml:"candidate"` // variant
	Baseline  string   `yaml:"baseline"`  // variant, for comparisons
	Op        string   `yaml:"op"`        // >=, <=, >, <
	Threshold float64  `yaml:"threshold"`
	Shapes    []string `yaml:"shapes"` // shapes it applies to; empty: every shape run
	Note      string   `yaml:"note"`
}

// Theory is a variant's theoretical model: expressions over the shape
// variables (github.com/expr-lang/expr syntax), e.g. "2*(B*T*d + d*dv)".
type Theory struct {
	DRAMBytes string `yaml:"dram_bytes"`
	FLOPs     string `yaml:"flops"`
	Note      string `yaml:"note"`
	// EpilogueBytes is the DRAM traffic the variant's fused GEMM epilogues
	// (and prologues) must move beyond what the baseline's GEMMs move for the
	// same products: the operands the baseline reads or writes in its
	// elementwise kernels (a residual, a gate). The implementation-limited
	// DRAM counterfactual keeps these bytes in the candidate. Empty: not
	// stated. Epilogue names those operands.
	EpilogueBytes string `yaml:"epilogue_bytes"`
	Epilogue      string `yaml:"epilogue"`
	// Library names the variant whose library GEMMs compute the same
	// products as this variant's fused GEMMs, grouped alike (one cuBLAS
	// GEMM over the same wide product): the kernel quality table sets this
	// variant's GEMM DRAM against it. Empty: the baseline.
	Library string `yaml:"library"`
}

type claimsFile struct {
	Experiment string              `yaml:"experiment"`
	Claims     []Claim             `yaml:"claims"`
	Theory     map[string]Theory   `yaml:"theory"`
	Fusions    map[string][]string `yaml:"fusions"`
}

// Load reads every embedded experiment, sorted by name.
func Load() ([]*Experiment, error) { return LoadFS(kernels.SpecFS) }

// LoadFS reads every <dir>/spec.yaml (and <dir>/claims.yaml if present) of fsys.
func LoadFS(fsys fs.FS) ([]*Experiment, error) {
	specs, err := fs.Glob(fsys, "*/spec.yaml")
	if err != nil {
		return nil, err
	}
	var out []*Experiment
	for _, p := range specs {
		e, err := loadOne(fsys, p, "kernels/")
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// LoadDir reads the one experiment in folder dir (dir/spec.yaml, and
// dir/claims.yaml if present), an experiment kept outside rooftool's
// kernels folder. Its name must be the folder's base name. Errors name the
// file by its path under dir's parent.
func LoadDir(dir string) (*Experiment, error) {
	dir = filepath.Clean(dir)
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	return loadOne(os.DirFS(parent), base+"/spec.yaml", strings.TrimSuffix(parent, "/")+"/")
}

// loadOne reads specPath of fsys; errors name the file as prefix+path.
func loadOne(fsys fs.FS, specPath, prefix string) (*Experiment, error) {
	data, err := fs.ReadFile(fsys, specPath)
	if err != nil {
		return nil, err
	}
	var e Experiment
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s%s: %w", prefix, specPath, err)
	}
	e.Dir = path.Dir(specPath)
	cp := path.Join(e.Dir, "claims.yaml")
	if cdata, err := fs.ReadFile(fsys, cp); err == nil {
		var c claimsFile
		dec := yaml.NewDecoder(strings.NewReader(string(cdata)))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s%s: %w", prefix, cp, err)
		}
		if c.Experiment != "" && c.Experiment != e.Name {
			return nil, fmt.Errorf("%s%s: experiment %q, spec.yaml says %q", prefix, cp, c.Experiment, e.Name)
		}
		e.Claims, e.Theory, e.Fusions = c.Claims, c.Theory, c.Fusions
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("%s%s: %w", prefix, specPath, err)
	}
	return &e, nil
}

// Validate checks names, roles and shapes.
func (e *Experiment) Validate() error {
	if e.Name == "" || strings.ContainsAny(e.Name, "/ ") {
		return fmt.Errorf("experiment name %q: want a non-empty name without '/' or spaces", e.Name)
	}
	if e.DType != "" && !slices.Contains(DTypes, e.DType) {
		return fmt.Errorf("experiment %q: dtype %q: want one of %s (it picks the compute roof of the roofline floor)", e.Name, e.DType, strings.Join(DTypes, ", "))
	}
	if e.Dir != "" && e.Dir != e.Name {
		return fmt.Errorf("experiment %q lives in folder %q: they must match", e.Name, e.Dir)
	}
	seen := map[string]bool{}
	for _, v := range e.Variants {
		if v.Name == "" || strings.ContainsAny(v.Name, "/ ") {
			return fmt.Errorf("variant name %q: want a non-empty name without '/' or spaces", v.Name)
		}
		if seen[v.Name] {
			return fmt.Errorf("variant %q listed twice", v.Name)
		}
		seen[v.Name] = true
		switch v.Role {
		case RoleBaseline, RoleCandidate, RoleReference:
		default:
			return fmt.Errorf("variant %q: role %q, want baseline, candidate or reference", v.Name, v.Role)
		}
		if v.Dataflow != nil {
			if err := v.Dataflow.validate(v); err != nil {
				return fmt.Errorf("variant %q: %w", v.Name, err)
			}
		}
	}
	if e.Baseline() == "" {
		return fmt.Errorf("no variant has role baseline")
	}
	all := append([]string{}, e.Shapes...)
	for _, s := range e.Sweeps {
		all = append(all, s.Shapes...)
	}
	for _, s := range all {
		vars, err := ParseShape(s)
		if err != nil {
			return err
		}
		if c := CanonicalShape(vars, e.Vars); c != s {
			return fmt.Errorf("shape %q is not canonical: want %q (variables in the order %v)", s, c, e.Vars)
		}
	}
	member, err := e.validateFusions()
	if err != nil {
		return err
	}
	for _, c := range e.Claims {
		if c.Seed != "" && c.Source != "" {
			return fmt.Errorf("claim %s: give seed or source, not both", c.ID)
		}
		if g, ok := c.BestOf(); ok {
			if _, ok := e.Fusions[g]; !ok {
				return fmt.Errorf("claim %s: candidate %s%s names no fusion of claims.yaml's fusions", c.ID, BestOfPrefix, g)
			}
		} else if c.Candidate != "" && !seen[c.Candidate] && !member[c.Candidate] {
			return fmt.Errorf("claim %s names variant %q, which the spec does not have (nor a fusion of claims.yaml lists)", c.ID, c.Candidate)
		}
		if c.Baseline != "" && !seen[c.Baseline] {
			return fmt.Errorf("claim %s names variant %q, which the spec does not have", c.ID, c.Baseline)
		}
	}
	for v, th := range e.Theory {
		if !seen[v] && !member[v] {
			return fmt.Errorf("theory for variant %q, which the spec does not have (nor a fusion of claims.yaml lists)", v)
		}
		if th.Library != "" && !seen[th.Library] {
			return fmt.Errorf("theory of %s: library %q, which the spec does not have", v, th.Library)
		}
	}
	return nil
}

// validateFusions checks claims.yaml's fusions: named like variants, each
// with members, no variant in two, none a baseline or reference of the
// spec. It returns the members.
func (e *Experiment) validateFusions() (map[string]bool, error) {
	member := map[string]bool{}
	for _, g := range slices.Sorted(maps.Keys(e.Fusions)) {
		if g == "" || strings.ContainsAny(g, "/ :") {
			return nil, fmt.Errorf("fusion name %q: want a non-empty name without '/', ':' or spaces", g)
		}
		if len(e.Fusions[g]) == 0 {
			return nil, fmt.Errorf("fusion %s lists no variant", g)
		}
		for _, v := range e.Fusions[g] {
			if member[v] {
				return nil, fmt.Errorf("fusion %s: variant %q is in another fusion too", g, v)
			}
			if vv := e.Variant(v); vv != nil && vv.Role != RoleCandidate {
				return nil, fmt.Errorf("fusion %s: variant %q is a %s, not a candidate", g, v, vv.Role)
			}
			if v == "" || strings.ContainsAny(v, "/ ") {
				return nil, fmt.Errorf("fusion %s: variant name %q: want a non-empty name without '/' or spaces", g, v)
			}
			member[v] = true
		}
	}
	return member, nil
}

// BestOfPrefix begins a claim's candidate that names a fusion instead of a
// variant ("best-of:epilogues"): at each shape the claim is judged on the
// member of that fusion the run measured best (reports, METHOD.md).
const BestOfPrefix = "best-of:"

// BestOf returns the fusion a best-of claim names, and whether it is one.
func (c Claim) BestOf() (string, bool) {
	return strings.CutPrefix(c.Candidate, BestOfPrefix)
}

// FusionOf returns the fusion a variant belongs to ("" none).
func (e *Experiment) FusionOf(variant string) string {
	for g, vs := range e.Fusions {
		if slices.Contains(vs, variant) {
			return g
		}
	}
	return ""
}

// candidates are the variants a claim may rest on: its candidate, or every
// member of the fusion a best-of claim names.
func (e *Experiment) candidates(c Claim) []string {
	if g, ok := c.BestOf(); ok {
		return e.Fusions[g]
	}
	return []string{c.Candidate}
}

// Baseline returns the name of the first baseline variant.
func (e *Experiment) Baseline() string {
	for _, v := range e.Variants {
		if v.Role == RoleBaseline {
			return v.Name
		}
	}
	return ""
}

// Variant returns the named variant, or nil.
func (e *Experiment) Variant(name string) *Variant {
	for i := range e.Variants {
		if e.Variants[i].Name == name {
			return &e.Variants[i]
		}
	}
	return nil
}

// AllShapes returns the default grid followed by every sweep's shapes,
// without duplicates, in first-seen order.
func (e *Experiment) AllShapes() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range e.Shapes {
		add(s)
	}
	for _, sw := range e.Sweeps {
		for _, s := range sw.Shapes {
			add(s)
		}
	}
	return out
}

// ParseShape parses a canonical shape string "B=16,T=512,d=768" into its
// variables. Values are integers.
func ParseShape(s string) (map[string]int64, error) {
	if s == "" {
		return nil, fmt.Errorf("empty shape")
	}
	out := map[string]int64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("shape %q: %q is not name=value", s, kv)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("shape %q: %s=%q is not an integer", s, k, v)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("shape %q: %s given twice", s, k)
		}
		out[k] = n
	}
	return out, nil
}

// CanonicalShape writes vars in the given order (remaining ones sorted).
func CanonicalShape(vars map[string]int64, order []string) string {
	var parts []string
	used := map[string]bool{}
	for _, k := range order {
		if v, ok := vars[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", k, v))
			used[k] = true
		}
	}
	var rest []string
	for k := range vars {
		if !used[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%s=%d", k, vars[k]))
	}
	return strings.Join(parts, ",")
}

// BaselineFor returns the baseline a variant is compared with: the first
// baseline of the same direction (forward, or forward+backward when
// Variant.Backward), else the first baseline.
func (e *Experiment) BaselineFor(variant string) string {
	v := e.Variant(variant)
	if v != nil {
		for _, b := range e.Variants {
			if b.Role == RoleBaseline && b.Backward == v.Backward {
				return b.Name
			}
		}
	}
	return e.Baseline()
}

// RangeMetrics are the claim metrics the ncu range pass decides (DRAM bytes
// of a whole cell); reports' metric table names the same ones by their pass.
var RangeMetrics = []string{"dram_ratio", "dram_reduction", "dram_bytes"}

// RangeDecided reports whether a claim's range-pass metric rests on the cell
// (variant, shape): the variant is the claim's candidate (for a best-of
// claim, any member of its fusion), or the baseline it is compared with, at one of the claim's shapes (every shape when it names
// none).
func (e *Experiment) RangeDecided(variant, shape string) bool {
	for _, c := range e.Claims {
		if !slices.Contains(RangeMetrics, c.Metric) || (len(c.Shapes) > 0 && !slices.Contains(c.Shapes, shape)) {
			continue
		}
		for _, cand := range e.candidates(c) {
			base := c.Baseline
			if base == "" && c.Metric != "dram_bytes" {
				base = e.BaselineFor(cand)
			}
			if variant == cand || variant == base {
				return true
			}
		}
	}
	return false
}
