package ingest

import "testing"

func TestLooksLikeShape(t *testing.T) {
	for s, want := range map[string]bool{
		"B=16,T=512,d=768": true, "M=1": true, "x_1=a": true, "": false, "fused": false,
		"B=16,": false, "=3": false, "1B=2": false, "aten::add_, seq = 2": false,
	} {
		if got := looksLikeShape(s); got != want {
			t.Errorf("looksLikeShape(%q) = %v", s, got)
		}
	}
}
