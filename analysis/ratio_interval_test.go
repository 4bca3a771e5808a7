package analysis

import "testing"

// TestRatioIntervalIs95 pins the speedup interval's level by hand: base
// samples 1..20 ms against a candidate of 20 samples of 1 ms (its interval
// [1, 1]), so the ratio's ends are the base median's interval ends. Order
// statistics (k, 21-k) of n=20 cover the median with 1-2P(B<=k-1), B ~
// Binomial(20, 1/2): P(B<=4) = 6196/2^20 = 0.00591, P(B<=5) = 21700/2^20 =
// 0.02069. At 97.5% (each side of a 95% ratio) k=5 (0.988; k=6 gives only
// 0.959): [5, 16]. A 95% median interval alone is k=6: [6, 15], the
// narrower interval that bounded the ratio with only 90% coverage.
func TestRatioIntervalIs95(t *testing.T) {
	base, cand := make([]float64, 20), make([]float64, 20)
	for i := range base {
		base[i], cand[i] = float64(i+1), 1
	}
	iv, ws := RatioInterval(base, cand, 0.95)
	if iv.Center != 10.5 || iv.Lo != 5 || iv.Hi != 16 || len(ws) != 0 {
		t.Errorf("RatioInterval = %+v %v, want 10.5 [5, 16]", iv, ws)
	}
	if m, _ := SummarizeMs(base, 0.95); m.Lo != 6 || m.Hi != 15 {
		t.Errorf("95%% median interval = %+v, want [6, 15]", m)
	}
	if c := DefaultStats().Compare(base, cand); c.Speedup.Lo != 5 || c.Speedup.Hi != 16 {
		t.Errorf("Compare's speedup = %+v, want [5, 16]", c.Speedup)
	}
}
