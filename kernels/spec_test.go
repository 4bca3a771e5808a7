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

// TestRangeDecided: the cells a DRAM claim rests on, from gated_ssm's claims
// read by hand: hbm-traffic compares triton-epilogue with eager at both
// default shapes; no DRAM claim names cutlass-evt or compiled.
func TestRangeDecided(t *testing.T) {
	exps, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var g *Experiment
	for _, e := range exps {
		if e.Name == "gated_ssm" {
			g = e
		}
	}
	if g == nil {
		t.Fatal("no gated_ssm experiment")
	}
	mve, d2048 := "B=16,T=512,d=768,H=12,dk=64,n=16", "B=16,T=2048,d=2048,H=16,dk=128,n=16"
	for _, c := range []struct {
		variant, shape string
		want           bool
	}{
		{"triton-epilogue", mve, true}, {"triton-epilogue", d2048, true}, {"eager", mve, true}, {"eager", d2048, true},
		{"cutlass-evt", d2048, false}, {"compiled", mve, false}, {"triton-epilogue", "B=16,T=1024,d=768,H=12,dk=64,n=16", false},
	} {
		if got := g.RangeDecided(c.variant, c.shape); got != c.want {
			t.Errorf("RangeDecided(%s, %s) = %v, want %v", c.variant, c.shape, got, c.want)
		}
	}
}
