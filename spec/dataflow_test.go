package spec

import (
	"slices"
	"strings"
	"testing"
)

func TestParseFlowStep(t *testing.T) {
	s, err := ParseFlowStep(" go = mul(o, gate) ")
	if err != nil || s.Op != "mul" || !slices.Equal(s.In, []string{"o", "gate"}) || !slices.Equal(s.Out, []string{"go"}) {
		t.Errorf("%+v %v", s, err)
	}
	s, err = ParseFlowStep("gate, go = silu_mul_gate(g_raw, o)")
	if err != nil || !slices.Equal(s.Out, []string{"gate", "go"}) || s.Op != "silu_mul_gate" {
		t.Errorf("%+v %v", s, err)
	}
	for _, bad := range []string{"mul(o, gate)", "= mul(a)", "y = mul(a", "y = (a)"} {
		if _, err := ParseFlowStep(bad); err == nil {
			t.Errorf("%q parses", bad)
		}
	}
}

// A variant's dataflow is checked with its spec: one step per kernel it
// launches, no tensor written twice, every output written.
func TestDataflowValidate(t *testing.T) {
	v := Variant{Name: "v", Role: RoleBaseline, Kernels: 2}
	for _, tc := range []struct {
		d    Dataflow
		want string
	}{
		{Dataflow{Outputs: []string{"y"}, Kernels: []string{"h = mm(x, W)", "y = silu(h)"}}, ""},
		{Dataflow{Outputs: []string{"y"}, Kernels: []string{"y = mm(x, W)"}}, "lists 1 kernels, the variant launches 2"},
		{Dataflow{Kernels: []string{"h = mm(x, W)", "h = silu(h)"}}, "writes \"h\" twice"},
		{Dataflow{Outputs: []string{"z"}, Kernels: []string{"h = mm(x, W)", "y = silu(h)"}}, "output \"z\" is written by no kernel"},
	} {
		err := tc.d.validate(v)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.d, err, tc.want)
		}
	}
}

// The built-in baselines state their dataflow (rooftool suggest builds its
// chains from it).
func TestBuiltinDataflows(t *testing.T) {
	exps, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range exps {
		for _, v := range e.Variants {
			if v.Role == RoleBaseline && !v.Backward && v.Dataflow == nil {
				t.Errorf("%s/%s: a forward baseline without a dataflow", e.Name, v.Name)
			}
			if v.Dataflow != nil {
				n++
			}
		}
	}
	if n == 0 {
		t.Error("no dataflow")
	}
}
