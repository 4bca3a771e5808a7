package analysis

import (
	"fmt"

	"github.com/expr-lang/expr"

	"github.com/rooftool/rooftool/kernels"
)

// TheoryFromSpec evaluates a variant's theoretical DRAM bytes and FLOPs
// (claims.yaml theory formulas, expr-lang syntax) at a shape. A variant
// without a model gives 0, 0 and no error.
func TheoryFromSpec(e *kernels.Experiment, variant, shape string) (dramBytes, flops float64, err error) {
	if e == nil {
		return 0, 0, nil
	}
	th, ok := e.Theory[variant]
	if !ok {
		return 0, 0, nil
	}
	vars, err := kernels.ParseShape(shape)
	if err != nil {
		return 0, 0, err
	}
	env := map[string]any{}
	for k, v := range vars {
		env[k] = float64(v)
	}
	eval := func(what, formula string) (float64, error) {
		if formula == "" {
			return 0, nil
		}
		out, err := expr.Eval(formula, env)
		if err != nil {
			return 0, fmt.Errorf("kernels/%s/claims.yaml: theory %s %s %q at %s: %w", e.Name, variant, what, formula, shape, err)
		}
		switch x := out.(type) {
		case float64:
			return x, nil
		case int:
			return float64(x), nil
		case int64:
			return float64(x), nil
		}
		return 0, fmt.Errorf("kernels/%s/claims.yaml: theory %s %s %q at %s: got %T, want a number", e.Name, variant, what, formula, shape, out)
	}
	if dramBytes, err = eval("dram_bytes", th.DRAMBytes); err != nil {
		return 0, 0, err
	}
	if flops, err = eval("flops", th.FLOPs); err != nil {
		return 0, 0, err
	}
	return dramBytes, flops, nil
}
