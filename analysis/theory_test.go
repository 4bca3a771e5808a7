package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/spec"
)

func loadExp(t *testing.T, name string) *spec.Experiment {
	t.Helper()
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("experiment %s not found", name)
	return nil
}

func theory(t *testing.T, e *spec.Experiment, variant, shape string) (bytes, flops float64) {
	t.Helper()
	th, ok := e.Theory[variant]
	if !ok {
		t.Fatalf("%s: no theory for variant %s", e.Name, variant)
	}
	b, f, err := EvalTheory(th, shape)
	if err != nil {
		t.Fatalf("%s/%s at %s: %v", e.Name, variant, shape, err)
	}
	return b, f
}

// Seed 000 lines 188-191: with H=16 heads of dk=dv=128 at d=2048,
// DV_unfused / DV_fused = 22*2048 / (8*2048) = 22/8 = 2.75x exactly.
func TestTheorySeed000Ratio(t *testing.T) {
	e := loadExp(t, "gated_ssm")
	const shape = "B=16,T=2048,d=2048,H=16,dk=128,n=16"
	unfused, _ := theory(t, e, "eager", shape)
	for _, fused := range []string{"triton-epilogue", "cutlass-evt", "compiled"} {
		f, _ := theory(t, e, fused, shape)
		if got := unfused / f; got != 22.0/8.0 {
			t.Errorf("eager/%s = %v, want 22/8 = 2.75 exactly", fused, got)
		}
	}
	// Line 185, per-head dimensions without H: 8576/6784 = 1.264...
	u, err := EvalFormula(e.Theory["eager"].DRAMBytes, "B=16,T=2048,d=2048,H=1,dk=128,n=16")
	if err != nil {
		t.Fatal(err)
	}
	f, err := EvalFormula(e.Theory["triton-epilogue"].DRAMBytes, "B=16,T=2048,d=2048,H=1,dk=128,n=16")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u/f, 8576.0/6784.0; got != want {
		t.Errorf("H=1: ratio %v, want 8576/6784 = %v", got, want)
	}
	// The seed's MVE shape has H*dk = 768 = d: the same 22/8.
	u, _ = theory(t, e, "eager", "B=16,T=512,d=768,H=12,dk=64,n=16")
	f, _ = theory(t, e, "triton-epilogue", "B=16,T=512,d=768,H=12,dk=64,n=16")
	if u/f != 2.75 {
		t.Errorf("MVE shape: ratio %v, want 2.75", u/f)
	}
}

// Seed 002 lines 62-64: unfused 1.748 GB, fused 0.672 GB, savings 61.5%.
func TestTheorySeed002Traffic(t *testing.T) {
	e := loadExp(t, "gla_proj")
	// The seed's alpha is 16 wide in all (line 86: "4x128x16 + 16"): H*n with n=1.
	const shape = "B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=1"
	u, _ := theory(t, e, "unfused", shape)
	f, _ := theory(t, e, "wide-gemm-epilogue", shape)
	if got := fmt.Sprintf("%.3f GB", u/1e9); got != "1.748 GB" {
		t.Errorf("unfused = %s (%v B), seed says 1.748 GB", got, u)
	}
	if got := fmt.Sprintf("%.3f GB", f/1e9); got != "0.672 GB" {
		t.Errorf("fused = %s (%v B), seed says 0.672 GB", got, f)
	}
	if got := fmt.Sprintf("%.1f%%", 100*(1-f/u)); got != "61.5%" {
		t.Errorf("savings = %s, seed says 61.5%%", got)
	}
	// Exact byte counts: 13 x-sized tensors + 3 alpha-sized ones; 5 + 1.
	x := 8.0 * 4096 * 2048 * 2
	a := 8.0 * 4096 * 16 * 2
	if u != 13*x+3*a || f != 5*x+a {
		t.Errorf("unfused %v, fused %v; want %v, %v", u, f, 13*x+3*a, 5*x+a)
	}
}

// Seed 001 line 156: 16.8 MB of intermediates; seed 003 line 27: 30.1 GFLOP per GEMM.
func TestTheorySeed001003(t *testing.T) {
	e := loadExp(t, "swiglu")
	const shape = "M=512,N=4096,K=7168"
	u, fl := theory(t, e, "unfused", shape)
	d, _ := theory(t, e, "dual-acc", shape)
	g, _ := theory(t, e, "gemm2-epilogue", shape)
	// The unfused chain writes R1 and R2 and reads them back (4*M*N bf16
	// elements); dual-acc also reads A once instead of twice.
	inter := u - d - 2*512*7168
	if got := fmt.Sprintf("%.1f MB", inter/1e6); got != "16.8 MB" {
		t.Errorf("intermediates = %s, seed says 16.8 MB", got)
	}
	// gemm2-epilogue keeps R1 (written and read) and drops R2: half of it.
	if u-g != inter/2 {
		t.Errorf("unfused - gemm2-epilogue = %v, want half the intermediates %v", u-g, inter/2)
	}
	if d != 128974848 {
		t.Errorf("dual-acc = %v B, want 2*(M*K + 2*K*N + M*N) = 128974848", d)
	}
	if got := fmt.Sprintf("%.1f GFLOP", (fl-5*512*4096)/2/1e9); got != "30.1 GFLOP" {
		t.Errorf("one GEMM = %s, seed 003 says 30.1 GFLOPS", got)
	}
}

// Every variant of every experiment has a model that evaluates at every shape.
func TestTheoryEveryVariant(t *testing.T) {
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		for _, v := range e.Variants {
			if v.Role == spec.RoleReference {
				continue // shown, never compared: a model is optional
			}
			th, ok := e.Theory[v.Name]
			if !ok || th.DRAMBytes == "" || th.FLOPs == "" {
				t.Errorf("%s/%s: no theory (dram_bytes and flops) in claims.yaml", e.Name, v.Name)
				continue
			}
			for _, s := range e.AllShapes() {
				b, f, err := EvalTheory(th, s)
				if err != nil || b <= 0 || f <= 0 {
					t.Errorf("%s/%s at %s: %v, %v, %v", e.Name, v.Name, s, b, f, err)
				}
			}
		}
	}
}

func TestEvalFormulaErrors(t *testing.T) {
	for _, tc := range []struct{ formula, shape, want string }{
		{"2*M*N", "M=2", "variable N is not in shape"},
		{"2*(M", "M=2", "formula"},
		{"M", "M=x", "not an integer"},
		{"M/0", "M=2", "not a finite number"},
	} {
		_, err := EvalFormula(tc.formula, tc.shape)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EvalFormula(%q, %q) = %v, want an error with %q", tc.formula, tc.shape, err, tc.want)
		}
	}
	// Float64 arithmetic: no integer overflow on large shapes.
	v, err := EvalFormula("M*N*K*M", "M=1000000,N=1000000,K=1000000")
	if err != nil || v != 1e24 {
		t.Errorf("large product = %v, %v", v, err)
	}
	if _, _, err := EvalTheory(spec.Theory{DRAMBytes: "q"}, "M=1"); err == nil || !strings.Contains(err.Error(), "dram_bytes") {
		t.Errorf("EvalTheory error %v does not name dram_bytes", err)
	}
}

// A hand-written model: 2*M*N*K at M=2, N=3, K=4 is 48; M/(N-N) divides
// by zero (+Inf) and is refused with the formula and the shape named, by
// TheoryFromSpec too, which names the claims.yaml and the variant.
func TestTheoryHandWritten(t *testing.T) {
	const shape = "M=2,N=3,K=4"
	if v, err := EvalFormula("2*M*N*K", shape); err != nil || v != 48 {
		t.Errorf("2*M*N*K at %s = %v, %v; want 48", shape, v, err)
	}
	for _, f := range []string{"M/(N-N)", "-M/(N-N)", "(N-N)/(N-N)"} {
		_, err := EvalFormula(f, shape)
		if err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), shape) || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("EvalFormula(%q, %q) = %v, want a not-finite error naming both", f, shape, err)
		}
	}
	e := &spec.Experiment{Name: "hand", Theory: map[string]spec.Theory{
		"ok":  {DRAMBytes: "2*M*N*K", FLOPs: "M*N"},
		"inf": {DRAMBytes: "2*M*N*K", FLOPs: "M/(N-N)"},
	}}
	if b, f, err := TheoryFromSpec(e, "ok", shape); err != nil || b != 48 || f != 6 {
		t.Errorf("TheoryFromSpec(ok) = %v, %v, %v; want 48, 6", b, f, err)
	}
	b, f, err := TheoryFromSpec(e, "inf", shape)
	if err == nil || b != 0 || f != 0 {
		t.Fatalf("TheoryFromSpec(inf) = %v, %v, %v; want an error", b, f, err)
	}
	for _, want := range []string{"kernels/hand/claims.yaml", "theory of inf", "flops", `"M/(N-N)"`, shape, "not a finite number"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("TheoryFromSpec(inf) error %q does not name %q", err, want)
		}
	}
}
