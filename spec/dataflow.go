package spec

import (
	"fmt"
	"regexp"
	"strings"
)

// Dataflow says which kernel of a variant consumes which one's output: its
// kernels in launch order, each written "out = op(in, ...)" (an output may
// be several names, "a, b = op(...)"; tensor names are free; an input no
// kernel writes is an input of the call, such as a weight), and the tensors
// the call returns, which are written whatever is fused. rooftool suggest
// builds its chains from it; without it a chain follows launch order.
type Dataflow struct {
	Outputs []string `yaml:"outputs"`
	Kernels []string `yaml:"kernels"`
	// From says where the dataflow came from where not the spec it was
	// read with (a run's specs snapshot filled from the built-in specs).
	From string `yaml:"-"`
}

// FlowStep is one kernel of a Dataflow.
type FlowStep struct {
	Op  string   // the operation, e.g. mm, silu, mul, scan
	In  []string // tensors it reads
	Out []string // tensors it writes
}

var flowStepRE = regexp.MustCompile(`^\s*([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*([A-Za-z_][\w.]*)\s*\(([^()]*)\)\s*$`)

// ParseFlowStep reads one "out = op(in, ...)".
func ParseFlowStep(s string) (FlowStep, error) {
	m := flowStepRE.FindStringSubmatch(s)
	if m == nil {
		return FlowStep{}, fmt.Errorf("dataflow kernel %q: want \"out = op(in, ...)\"", s)
	}
	split := func(l string) []string {
		var out []string
		for _, x := range strings.Split(l, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	return FlowStep{Op: m[2], In: split(m[3]), Out: split(m[1])}, nil
}

// Steps parses every kernel of the dataflow.
func (d *Dataflow) Steps() ([]FlowStep, error) {
	out := make([]FlowStep, 0, len(d.Kernels))
	for _, k := range d.Kernels {
		s, err := ParseFlowStep(k)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// validate checks that every step parses, no tensor is written twice,
// every output is written by a step, and the steps number the variant's
// kernels where it states them.
func (d *Dataflow) validate(v Variant) error {
	steps, err := d.Steps()
	if err != nil {
		return err
	}
	if len(steps) == 0 {
		return fmt.Errorf("dataflow lists no kernel")
	}
	if v.Kernels > 0 && len(steps) != v.Kernels {
		return fmt.Errorf("dataflow lists %d kernels, the variant launches %d", len(steps), v.Kernels)
	}
	written := map[string]bool{}
	for _, s := range steps {
		for _, o := range s.Out {
			if written[o] {
				return fmt.Errorf("dataflow writes %q twice", o)
			}
			written[o] = true
		}
	}
	for _, o := range d.Outputs {
		if !written[o] {
			return fmt.Errorf("dataflow output %q is written by no kernel", o)
		}
	}
	return nil
}
