package kernels

import "testing"

func TestLoadEmbedded(t *testing.T) {
	exps, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) < 4 {
		t.Fatalf("loaded %d experiments, want at least 4", len(exps))
	}
	for _, e := range exps {
		if len(e.AllShapes()) == 0 {
			t.Errorf("%s: no shapes", e.Name)
		}
	}
}

func TestParseShape(t *testing.T) {
	v, err := ParseShape("B=16,T=512,d=768")
	if err != nil || v["B"] != 16 || v["T"] != 512 || v["d"] != 768 {
		t.Fatalf("ParseShape = %v, %v", v, err)
	}
	for _, bad := range []string{"", "B", "B=x", "B=1,B=2", "=3"} {
		if _, err := ParseShape(bad); err == nil {
			t.Errorf("ParseShape(%q) succeeded", bad)
		}
	}
	if got := CanonicalShape(map[string]int64{"d": 768, "B": 16, "T": 512}, []string{"B", "T", "d"}); got != "B=16,T=512,d=768" {
		t.Errorf("CanonicalShape = %q", got)
	}
}

func TestBaselineFor(t *testing.T) {
	e := &Experiment{Variants: []Variant{
		{Name: "fwd", Role: RoleBaseline}, {Name: "fused", Role: RoleCandidate},
		{Name: "fwdbwd", Role: RoleBaseline, Backward: true}, {Name: "compiled-fwdbwd", Role: RoleCandidate, Backward: true},
	}}
	for v, want := range map[string]string{"fused": "fwd", "compiled-fwdbwd": "fwdbwd", "fwd": "fwd", "nope": "fwd"} {
		if got := e.BaselineFor(v); got != want {
			t.Errorf("BaselineFor(%q) = %q, want %q", v, got, want)
		}
	}
}
