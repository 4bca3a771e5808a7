package rangerule

import (
	"maps"
	"slices"
	"testing"

	"github.com/rooftool/rooftool/spec"
)

// simulate runs the replay rule as rangePass does: every cell of seq once,
// then the cells ReplayRound picks, each replay taking the cell's next DRAM
// bytes from seq. It returns each cell's replays and last reason.
func simulate(t *testing.T, decs []spec.RangeDecision, seq map[string][]float64, n int) (map[string]int, map[string]string) {
	t.Helper()
	todo := slices.Sorted(maps.Keys(seq))
	bytes, replays, reasons := map[string][]float64{}, map[string]int{}, map[string]string{}
	for need := todo; len(need) > 0; {
		for _, c := range need {
			if replays[c] >= len(seq[c]) {
				t.Fatalf("%s replayed %d times, seq has %d", c, replays[c]+1, len(seq[c]))
			}
			bytes[c] = append(bytes[c], seq[c][replays[c]])
			replays[c]++
		}
		again, rs := ReplayRound(decs, bytes, replays, need, n)
		maps.Copy(reasons, rs)
		need = again
	}
	return replays, reasons
}

func ratioDec(id, cand, base string, op string, th float64) spec.RangeDecision {
	return spec.RangeDecision{Claim: spec.Claim{ID: id, Metric: "dram_ratio", Candidate: cand, Baseline: base, Op: op, Threshold: th},
		Shape: "s", Candidate: cand, Baseline: base}
}

// TestReplayRule pins the rule's replays and reasons with figures worked by
// hand (DRAM bytes in MB: only their ratios matter).
func TestReplayRule(t *testing.T) {
	a := ratioDec("A", "fused", "unfused", "<=", 0.7)
	b := ratioDec("B", "other", "unfused", "<=", 0.7)
	red := spec.RangeDecision{Claim: spec.Claim{ID: "R", Metric: "dram_reduction", Candidate: "fused", Baseline: "unfused", Op: ">=", Threshold: 0.3},
		Shape: "s", Candidate: "fused", Baseline: "unfused"}
	byt := spec.RangeDecision{Claim: spec.Claim{ID: "Y", Metric: "dram_bytes", Candidate: "fused", Op: "<=", Threshold: 100e6}, Shape: "s", Candidate: "fused"}
	for _, tc := range []struct {
		name    string
		decs    []spec.RangeDecision
		seq     map[string][]float64 // each cell's DRAM bytes, replay by replay
		n       int
		replays map[string]int
		reasons map[string]string
	}{
		// 50/100 = 0.5; |0.5/0.7 - 1| = 0.2/0.7 = 28.6% > 5%: clear after one.
		{name: "far from the threshold: one replay", decs: []spec.RangeDecision{a}, n: 3,
			seq:     map[string][]float64{"fused/s": {50}, "unfused/s": {100}},
			replays: map[string]int{"fused/s": 1, "unfused/s": 1},
			reasons: map[string]string{"fused/s": "clear of threshold after 1: claim A dram_ratio 0.5 vs <= 0.7, 28.6% off, beyond 5%"}},
		// 71/100 = 0.71; 0.01/0.7 = 1.4% <= 5% in every round (no spread): N replays.
		{name: "within 5%: N replays", decs: []spec.RangeDecision{a}, n: 3,
			seq:     map[string][]float64{"fused/s": {71, 71, 71}, "unfused/s": {100, 100, 100}},
			replays: map[string]int{"fused/s": 3, "unfused/s": 3},
			reasons: map[string]string{"unfused/s": "near threshold after 3, the --range-replays most: claim A dram_ratio 0.71 vs <= 0.7, 1.4% off, within 5%"}},
		// Round 1: 0.67, 0.03/0.7 = 4.3% <= 5%. Round 2: median 65.5 -> 0.655,
		// 0.045/0.7 = 6.4% > 5%, but the spread 0.64..0.67 is 0.03/0.655 = 4.58%,
		// 3 x 4.58% = 13.7%: again. Round 3: median 65 -> 0.65, 7.1% off,
		// spread 0.03/0.65 = 4.6%, margin 13.8%: near, and at N.
		{name: "beyond 5% but within 3 x spread: more replays", decs: []spec.RangeDecision{a}, n: 3,
			seq:     map[string][]float64{"fused/s": {67, 64, 65}, "unfused/s": {100, 100, 100}},
			replays: map[string]int{"fused/s": 3, "unfused/s": 3},
			reasons: map[string]string{"fused/s": "near threshold after 3, the --range-replays most: claim A dram_ratio 0.65 vs <= 0.7, 7.1% off, within 3 x spread 4.6% = 13.8%"}},
		// Round 1: 0.666, 0.034/0.7 = 4.9%: again. Round 2: median 66.2 -> 0.662,
		// 0.038/0.7 = 5.4%; spread (0.666-0.658)/0.662 = 1.2%, 3 x 1.2% = 3.6% <
		// 5%: margin 5%, clear after 2 of at most 5.
		{name: "a second replay that agrees: stops at 2 of 5", decs: []spec.RangeDecision{a}, n: 5,
			seq:     map[string][]float64{"fused/s": {66.6, 65.8, 0, 0, 0}, "unfused/s": {100, 100, 0, 0, 0}},
			replays: map[string]int{"fused/s": 2, "unfused/s": 2},
			reasons: map[string]string{"fused/s": "clear of threshold after 2: claim A dram_ratio 0.662 vs <= 0.7, 5.4% off, beyond 5%"}},
		// dram_bytes <= 100 MB. Round 1: 104 MB, 4% off: again. Round 2: median
		// 104.75, 4.75% off, spread 1.5/104.75 = 1.43% (margin 5%): again.
		// Round 3: median 105.5, 5.5% off, spread 1.5/105.5 = 1.42%, 3 x = 4.3%
		// < 5%: the median moved clear, stop at 3 of 5.
		{name: "the median moves clear: stops at 3 of 5", decs: []spec.RangeDecision{byt}, n: 5,
			seq:     map[string][]float64{"fused/s": {104e6, 105.5e6, 105.5e6, 0, 0}},
			replays: map[string]int{"fused/s": 3},
			reasons: map[string]string{"fused/s": "clear of threshold after 3: claim Y dram_bytes 1.055e+08 vs <= 1e+08, 5.5% off, beyond 5%"}},
		// 1 - 71/100 = 0.29 against >= 0.3: |0.29/0.3 - 1| = 3.3%: near until N = 2.
		{name: "dram_reduction within 5%", decs: []spec.RangeDecision{red}, n: 2,
			seq:     map[string][]float64{"fused/s": {71, 71}, "unfused/s": {100, 100}},
			replays: map[string]int{"fused/s": 2, "unfused/s": 2},
			reasons: map[string]string{"fused/s": "near threshold after 2, the --range-replays most: claim R dram_reduction 0.29 vs >= 0.3, 3.3% off, within 5%"}},
		// A: 50/100 = 0.5, clear; B: 69/100 = 0.69, 1.4% off, near. unfused
		// carries both: the nearer (B) replays it to N; fused stops at one.
		{name: "decisions sharing a cell", decs: []spec.RangeDecision{a, b}, n: 3,
			seq:     map[string][]float64{"fused/s": {50}, "other/s": {69, 69, 69}, "unfused/s": {100, 100, 100}},
			replays: map[string]int{"fused/s": 1, "other/s": 3, "unfused/s": 3},
			reasons: map[string]string{
				"fused/s":   "clear of threshold after 1: claim A dram_ratio 0.5 vs <= 0.7, 28.6% off, beyond 5%",
				"unfused/s": "near threshold after 3, the --range-replays most: claim B dram_ratio 0.69 vs <= 0.7, 1.4% off, within 5%"}},
		{name: "the baseline has no bytes: no value, one replay", decs: []spec.RangeDecision{a}, n: 3,
			seq:     map[string][]float64{"fused/s": {71}},
			replays: map[string]int{"fused/s": 1},
			reasons: map[string]string{"fused/s": "stopped after 1: claim A dram_ratio has no value: unfused/s has no range-pass DRAM bytes"}},
		{name: "no claim rests on the cell", decs: []spec.RangeDecision{a}, n: 3,
			seq:     map[string][]float64{"x/s": {10}},
			replays: map[string]int{"x/s": 1},
			reasons: map[string]string{"x/s": "one replay: no range-decided claim rests on the cell"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replays, reasons := simulate(t, tc.decs, tc.seq, tc.n)
			if !maps.Equal(replays, tc.replays) {
				t.Errorf("replays %v, want %v", replays, tc.replays)
			}
			for c, want := range tc.reasons {
				if reasons[c] != want {
					t.Errorf("%s: reason\n%q, want\n%q", c, reasons[c], want)
				}
			}
		})
	}
}

// A cell a best-of claim rests on is judged by the rule: quack/s, the only
// member of fusion f, at 69/100 = 0.69 against < 0.7 lies 1.4% off, within
// 5%, so it is replayed again after its first replay; it is not a cell "no
// range-decided claim rests on".
func TestReplayRuleBestOf(t *testing.T) {
	e := &spec.Experiment{Name: "x", Fusions: map[string][]string{"f": {"quack"}},
		Claims: []spec.Claim{{ID: "best", Metric: "dram_ratio", Candidate: spec.BestOfPrefix + "f", Baseline: "eager", Op: "<", Threshold: 0.7}}}
	decs := e.RangeDecisions([]string{"s"})
	again, reasons := ReplayRound(decs, map[string][]float64{"quack/s": {69}, "eager/s": {100}},
		map[string]int{"quack/s": 1, "eager/s": 1}, []string{"quack/s", "eager/s"}, 3)
	if !slices.Equal(again, []string{"quack/s", "eager/s"}) {
		t.Errorf("replayed again %v, want both cells (%v)", again, reasons)
	}
	want := "near threshold after 1: claim best dram_ratio 0.69 vs < 0.7, 1.4% off, within 5%"
	if reasons["quack/s"] != want {
		t.Errorf("reason %q, want %q", reasons["quack/s"], want)
	}
}
