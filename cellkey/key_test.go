package cellkey

import (
	"sort"
	"testing"
)

func TestParse(t *testing.T) {
	k, err := Parse("gated_ssm/triton-gate-epilogue/B=16,T=512,d=768,H=12,dk=64,n=16")
	if err != nil {
		t.Fatal(err)
	}
	want := Key{Experiment: "gated_ssm", Variant: "triton-gate-epilogue", Shape: "B=16,T=512,d=768,H=12,dk=64,n=16"}
	if k != want {
		t.Errorf("Parse = %+v, want %+v", k, want)
	}
	if s := k.String(); s != "gated_ssm/triton-gate-epilogue/B=16,T=512,d=768,H=12,dk=64,n=16" {
		t.Errorf("String = %q", s)
	}
	for _, bad := range []string{"", "swiglu", "swiglu/eager", "swiglu//M=512", "/eager/M=512", "swiglu/eager/", "swiglu/eager/M=512/extra"} {
		if k, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, k)
		}
	}
}

func TestKeyLess(t *testing.T) {
	keys := []Key{
		{"swiglu", "eager", "M=512"},
		{"gla_proj", "fused", "M=64"},
		{"swiglu", "eager", "M=1024"},
		{"gla_proj", "eager", "M=64"},
		{"swiglu", "compiled", "M=4096"},
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	want := []string{"gla_proj/eager/M=64", "gla_proj/fused/M=64", "swiglu/compiled/M=4096", "swiglu/eager/M=1024", "swiglu/eager/M=512"}
	for i, k := range keys {
		if k.String() != want[i] {
			t.Errorf("sorted[%d] = %s, want %s", i, k, want[i])
		}
	}
	if a := (Key{"e", "v", "s"}); a.Less(a) {
		t.Error("a key is less than itself")
	}
}
