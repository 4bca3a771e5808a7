package verdict

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
)

// TestAnswers: decisions of one claim (citation, test, baseline, shape)
// are one answer row on the best-of decision where there is one, else on
// the best median for the test; rows go by experiment, then shape as the
// experiment orders its shapes, then claim.
func TestAnswers(t *testing.T) {
	v := func(c float64) *Value { return &Value{Center: c, Lo: c, Hi: c} }
	const s1, s2 = "d=768", "d=2048"
	dec := func(claim, cand, shape, op string, thr float64, m *Value, verdict string) Decision {
		return Decision{Experiment: "e", Claim: claim, Seed: "000", Line: 401, Metric: MetricSpeedup, Candidate: cand, Baseline: "eager",
			Op: op, Threshold: thr, Shape: shape, Measured: m, Verdict: verdict}
	}
	ds := []Decision{
		dec("sp-a", "a", s2, ">", 1.1, v(1.05), VerdictNoGo),
		dec("sp-a", "a", s1, ">", 1.1, v(1.2), VerdictGo),
		dec("sp-b", "b", s1, ">", 1.1, v(1.3), VerdictGo),
		dec("sp-best", "a", s1, ">", 1.1, v(1.2), VerdictGo), // the best of fusion f is a: b is in no fusion
		dec("sp-b", "b", s2, ">", 1.1, v(0.9), VerdictNoGo),
		dec("sp-c", "c", s2, ">", 1.1, nil, VerdictNotMeasured),
		{Experiment: "e", Claim: "time", Seed: "000", Line: 9, Metric: MetricTimeUs, Candidate: "a", Op: "<=", Threshold: 15, Shape: s1, Measured: v(20), Verdict: VerdictNoGo},
		{Experiment: "e", Claim: "time-b", Seed: "000", Line: 9, Metric: MetricTimeUs, Candidate: "b", Op: "<=", Threshold: 15, Shape: s1, Measured: v(18), Verdict: VerdictNoGo},
		{Experiment: "d", Claim: "count", Seed: "001", Line: 3, Metric: MetricKernelCount, Candidate: "x", Op: "<=", Threshold: 1, Shape: "M=1", Measured: v(1), Verdict: VerdictGo},
	}
	ds[3].BestOf = &BestOf{Fusion: "f", Picked: "a", Members: []FusionMember{{Variant: "a", Value: ptr(1.2)}, {Variant: "c", Why: "not measured"}}}
	exps := []Experiment{{Name: "d", Shapes: []ShapeTable{{Shape: "M=1"}}}, {Name: "e", Shapes: []ShapeTable{{Shape: s1}, {Shape: s2}}}}
	got := answers(ds, exps)
	want := []struct {
		shape, best string
		decision    int
		compared    string
	}{
		{"M=1", "x", 8, ""},
		{s1, "a", 3, ""},    // the best-of decision, though b's median is higher
		{s1, "b", 7, "b,a"}, // the lower time
		{s2, "a", 0, "a,b"}, // the higher speedup; c has none
	}
	if len(got) != len(want) {
		t.Fatalf("%d answers, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		a := got[i]
		if a.Shape != w.shape || a.Best != w.best || a.Decision != w.decision || strings.Join(a.Compared, ",") != w.compared {
			t.Errorf("answer %d: shape %s best %s decision %d compared %v; want %s %s %d %s", i, a.Shape, a.Best, a.Decision, a.Compared, w.shape, w.best, w.decision, w.compared)
		}
		if a.Verdict != ds[a.Decision].Verdict || a.Measured != ds[a.Decision].Measured {
			t.Errorf("answer %d: verdict %s, measured %v: not its decision's", i, a.Verdict, a.Measured)
		}
	}
	if got[1].Fusion != "f" {
		t.Errorf("the best-of answer's fusion %q, want f", got[1].Fusion)
	}
}

// TestWhyOf: a clean GO or NO-GO has no why; each thing that keeps a
// verdict from being clean is said in a few words, all of them joined.
func TestWhyOf(t *testing.T) {
	m := &Value{Center: 1.08, Lo: 1.0, Hi: 1.2}
	bv := 95.66
	cases := []struct {
		name string
		d    Decision
		want string
	}{
		{"clean", Decision{Verdict: VerdictNoGo, Measured: m}, ""},
		{"straddles", Decision{Verdict: VerdictInconclusive, Measured: m, Op: ">", Threshold: 1.1}, "straddles: median 1.8% below"},
		{"voided", Decision{Verdict: VerdictInconclusive, Measured: m, VoidedBy: []string{"host-bound", "bimodal"}}, "voided by host-bound, bimodal"},
		{"pass not run", Decision{Verdict: VerdictInconclusive, Measured: m, PassNotRun: "the nsys pass never ran for fused"}, "the nsys pass never ran for fused"},
		{"not measured", Decision{Verdict: VerdictNotMeasured, Reason: "fused: check pass failed (mismatch); more"}, "not measured: fused: check pass failed"},
		{"best-of none", Decision{Verdict: VerdictNotMeasured, BestOf: &BestOf{Fusion: "f"}}, "not measured: no member of fusion f"},
		{"limited both", Decision{Verdict: VerdictNoGo, Measured: m, Metric: MetricTimeUs, LimitedBy: LimitedByImplementation,
			Limit: &ImplementationLimit{BelowBest: true, Best: "dual-acc", BestValue: &bv, BelowLibrary: true}, Counterfactual: &Counterfactual{AtBest: 90.19}},
			"limited: below dual-acc (95.66 µs); by its GEMMs: at best 90.19 µs"},
		{"limited by GEMMs", Decision{Verdict: VerdictNoGo, Measured: m, Metric: MetricSpeedup, LimitedBy: LimitedByImplementation,
			Limit: &ImplementationLimit{BelowLibrary: true}, Counterfactual: &Counterfactual{AtBest: 1.074}}, "limited by its GEMMs: at best 1.074x"},
		{"replays cut", Decision{Verdict: VerdictGo, Measured: m, Warnings: []analysis.Warning{{Code: WarnReplaysCut}}}, "range replays cut"},
		{"voided and limited", Decision{Verdict: VerdictInconclusive, Measured: m, VoidedBy: []string{"host-bound"}, LimitedBy: LimitedByImplementation},
			"voided by host-bound; limited by implementation"},
	}
	for _, c := range cases {
		if got := whyOf(c.d); got != c.want {
			t.Errorf("%s: why %q, want %q", c.name, got, c.want)
		}
	}
}
