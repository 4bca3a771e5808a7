package spec

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestDRAMClaimValue pins the claim values by hand: replays 70, 68, 72
// (median 70) over 100, 98, 102 (median 100): ratio 0.7, least 68/102 =
// 0.66667, greatest 72/98 = 0.73469; reduction 0.3 over 0.26531..0.33333.
func TestDRAMClaimValue(t *testing.T) {
	cand, base := SpreadOf([]float64{70, 68, 72}), SpreadOf([]float64{100, 98, 102})
	if even := SpreadOf([]float64{4, 1, 3, 2}); even != (DRAMSpread{Center: 2.5, Lo: 1, Hi: 4, N: 4}) {
		t.Errorf("SpreadOf(4,1,3,2) = %+v, want median 2.5 over 1..4", even)
	}
	for _, tc := range []struct {
		metric string
		want   DRAMSpread
	}{
		{"dram_ratio", DRAMSpread{0.7, 0.66667, 0.73469, 3}},
		{"dram_reduction", DRAMSpread{0.3, 0.26531, 0.33333, 3}},
		{"dram_bytes", DRAMSpread{70, 68, 72, 3}},
	} {
		got, err := DRAMClaimValue(tc.metric, cand, base)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range [][2]float64{{got.Center, tc.want.Center}, {got.Lo, tc.want.Lo}, {got.Hi, tc.want.Hi}} {
			if math.Abs(p[0]-p[1]) > 1e-5 {
				t.Errorf("%s = %+v, want %+v", tc.metric, got, tc.want)
				break
			}
		}
		if got.N != tc.want.N {
			t.Errorf("%s n = %d, want %d", tc.metric, got.N, tc.want.N)
		}
	}
	if _, err := DRAMClaimValue("speedup", cand, base); err == nil {
		t.Error("speedup: no error")
	}
}

// A best-of claim takes part in the replay rule through every member of its
// fusion: gated_ssm's hbm-traffic-best (best-of:epilogues against eager,
// claims.yaml) rests on triton-epilogue, triton-gate-epilogue, cutlass-evt
// and quack-epilogue, each against eager, never on a variant named
// "best-of:epilogues".
func TestRangeDecisionsExpandBestOf(t *testing.T) {
	exps, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var e *Experiment
	for _, x := range exps {
		if x.Name == "gated_ssm" {
			e = x
		}
	}
	if e == nil {
		t.Fatal("no gated_ssm experiment")
	}
	const shape = "B=16,T=512,d=768,H=12,dk=64,n=16"
	var got []string
	for _, d := range e.RangeDecisions([]string{shape}) {
		if strings.HasPrefix(d.Candidate, BestOfPrefix) {
			t.Errorf("claim %s: candidate %q is no variant", d.Claim.ID, d.Candidate)
		}
		if d.Claim.ID == "hbm-traffic-best" {
			got = append(got, d.Candidate+" vs "+d.Baseline+" at "+d.Shape)
		}
	}
	want := []string{
		"triton-epilogue vs eager at " + shape, "triton-gate-epilogue vs eager at " + shape,
		"cutlass-evt vs eager at " + shape, "quack-epilogue vs eager at " + shape,
	}
	if !slices.Equal(got, want) {
		t.Errorf("hbm-traffic-best rests on %q, want %q", got, want)
	}
}
