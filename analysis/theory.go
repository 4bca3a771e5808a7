package analysis

import (
	"fmt"
	"math"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/rooftool/rooftool/spec"
)

// The theory evaluator: claims.yaml's theoretical models (spec.Theory,
// expressions over a shape's variables in github.com/expr-lang/expr syntax)
// evaluated at a shape. Every figure of a model — a cell's theoretical DRAM
// bytes and FLOPs, a report's theory column and roofline bound, an
// epilogue's operand bytes — comes from EvalFormula.

// programs caches compiled theory formulas: each formula is compiled once.
var programs sync.Map // formula string -> *compiled

type compiled struct {
	once sync.Once
	prog *vm.Program
	vars []string
	err  error
}

// compileFormula compiles a formula over float64 shape variables, once.
func compileFormula(formula string) (*vm.Program, []string, error) {
	c, _ := programs.LoadOrStore(formula, &compiled{})
	cc := c.(*compiled)
	cc.once.Do(func() {
		cc.prog, cc.err = expr.Compile(formula, expr.AsFloat64(), expr.AllowUndefinedVariables())
		if cc.err == nil {
			cc.vars = formulaVars(cc.prog)
		}
	})
	return cc.prog, cc.vars, cc.err
}

// EvalFormula evaluates one theory formula at a canonical shape such as
// "M=512,N=4096,K=7168". Variables are the shape's, as float64, so
// "2*M*N*K" cannot overflow an integer. A formula that does not compile, a
// variable the shape lacks and a result that is not a finite number
// ("M/(N-N)": +Inf) are errors naming the formula and the shape.
func EvalFormula(formula, shape string) (float64, error) {
	vars, err := spec.ParseShape(shape)
	if err != nil {
		return 0, err
	}
	prog, names, err := compileFormula(formula)
	if err != nil {
		return 0, fmt.Errorf("formula %q at %s: %w", formula, shape, err)
	}
	env := make(map[string]any, len(vars))
	for k, v := range vars {
		env[k] = float64(v)
	}
	for _, name := range names {
		if _, ok := env[name]; !ok {
			return 0, fmt.Errorf("formula %q: variable %s is not in shape %q", formula, name, shape)
		}
	}
	out, err := expr.Run(prog, env)
	if err != nil {
		return 0, fmt.Errorf("formula %q at %s: %w", formula, shape, err)
	}
	f, ok := out.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("formula %q at %s: result %v is not a finite number", formula, shape, out)
	}
	return f, nil
}

// EvalTheory evaluates a variant's theoretical model at a shape: DRAM bytes
// and FLOPs. An empty formula evaluates to 0 (no model).
func EvalTheory(th spec.Theory, shape string) (bytes, flops float64, err error) {
	if th.DRAMBytes != "" {
		if bytes, err = EvalFormula(th.DRAMBytes, shape); err != nil {
			return 0, 0, fmt.Errorf("dram_bytes: %w", err)
		}
	}
	if th.FLOPs != "" {
		if flops, err = EvalFormula(th.FLOPs, shape); err != nil {
			return 0, 0, fmt.Errorf("flops: %w", err)
		}
	}
	return bytes, flops, nil
}

// TheoryFromSpec evaluates the model of e's variant at shape (EvalTheory),
// an error naming the experiment's claims.yaml and the variant. A nil
// experiment or a variant without a model gives 0, 0 and no error. Analyze
// sets each cell's TheoryDRAMBytes and TheoryFLOPs with it.
func TheoryFromSpec(e *spec.Experiment, variant, shape string) (dramBytes, flops float64, err error) {
	if e == nil {
		return 0, 0, nil
	}
	th, ok := e.Theory[variant]
	if !ok {
		return 0, 0, nil
	}
	b, f, err := EvalTheory(th, shape)
	if err != nil {
		return 0, 0, fmt.Errorf("kernels/%s/claims.yaml: theory of %s: %w", e.Name, variant, err)
	}
	return b, f, nil
}

type identVisitor struct {
	seen map[string]bool
	out  []string
}

func (v *identVisitor) Visit(n *ast.Node) {
	if id, ok := (*n).(*ast.IdentifierNode); ok && !v.seen[id.Value] {
		v.seen[id.Value] = true
		v.out = append(v.out, id.Value)
	}
}

// formulaVars lists the variables a compiled formula uses, so that a
// variable missing from the shape is a clear error rather than nil.
func formulaVars(prog *vm.Program) []string {
	v := &identVisitor{seen: map[string]bool{}}
	n := prog.Node()
	ast.Walk(&n, v)
	return v.out
}
