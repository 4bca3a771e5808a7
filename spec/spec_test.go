package spec

import (
	"strings"
	"testing"
)

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
		// cutlass-evt is a member of fusion epilogues, which hbm-traffic-best names.
		{"cutlass-evt", d2048, true}, {"compiled", mve, false}, {"compiled-max-autotune", d2048, false}, {"triton-epilogue", "B=16,T=1024,d=768,H=12,dk=64,n=16", false},
	} {
		if got := g.RangeDecided(c.variant, c.shape); got != c.want {
			t.Errorf("RangeDecided(%s, %s) = %v, want %v", c.variant, c.shape, got, c.want)
		}
	}
}

// TestFusionsValidate: claims.yaml's fusions may list a variant the spec
// does not have yet (a claim on it is then allowed), but not a baseline, a
// variant twice, or a best-of claim on a fusion that is not there.
func TestFusionsValidate(t *testing.T) {
	base := func() *Experiment {
		return &Experiment{Name: "x", Shapes: []string{"n=1"}, Vars: []string{"n"},
			Variants: []Variant{{Name: "b", Role: RoleBaseline}, {Name: "c1", Role: RoleCandidate}, {Name: "c2", Role: RoleCandidate}}}
	}
	for _, tc := range []struct {
		name    string
		fusions map[string][]string
		claim   Claim
		wantErr string
	}{
		{"member not in spec, claimed", map[string][]string{"f": {"c1", "later"}}, Claim{ID: "k", Candidate: "later", Baseline: "b"}, ""},
		{"best-of", map[string][]string{"f": {"c1", "c2"}}, Claim{ID: "k", Candidate: "best-of:f", Baseline: "b"}, ""},
		{"best-of unknown fusion", map[string][]string{"f": {"c1"}}, Claim{ID: "k", Candidate: "best-of:g"}, "names no fusion"},
		{"unknown variant", map[string][]string{"f": {"c1"}}, Claim{ID: "k", Candidate: "later"}, "which the spec does not have"},
		{"baseline in a fusion", map[string][]string{"f": {"b", "c1"}}, Claim{ID: "k", Candidate: "c1"}, "is a baseline"},
		{"in two fusions", map[string][]string{"f": {"c1"}, "g": {"c1", "c2"}}, Claim{ID: "k", Candidate: "c1"}, "in another fusion"},
		{"empty fusion", map[string][]string{"f": {}}, Claim{ID: "k", Candidate: "c1"}, "lists no variant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base()
			e.Fusions, e.Claims = tc.fusions, []Claim{tc.claim}
			err := e.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Validate: %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}
