package spec

import (
	"fmt"
	"math"
	"slices"
)

// The value a range-decided DRAM claim takes, from the range pass's replays
// of its cells. The runner (launch, deciding whether to replay a
// cell again) and the report (judging the claim) both compute it here, so
// the two agree on it.

// DRAMSpread is a DRAM figure over range replays: Center the median (for a
// claim value, the value of the medians), Lo..Hi the least and greatest
// any replays give, N how many replays it rests on.
type DRAMSpread struct {
	Center, Lo, Hi float64
	N              int
}

// SpreadOf is the median, min and max of one cell's replays' DRAM bytes
// (the zero DRAMSpread for none).
func SpreadOf(replays []float64) DRAMSpread {
	if len(replays) == 0 {
		return DRAMSpread{}
	}
	s := slices.Sorted(slices.Values(replays))
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return DRAMSpread{Center: med, Lo: s[0], Hi: s[n-1], N: n}
}

// DRAMRatio is cand / base: the medians' ratio, and the least and greatest
// ratio any pairing of a candidate and a baseline replay gives; N the fewer
// replays of the two.
func DRAMRatio(cand, base DRAMSpread) DRAMSpread {
	return DRAMSpread{Center: cand.Center / base.Center, Lo: cand.Lo / base.Hi, Hi: cand.Hi / base.Lo, N: min(cand.N, base.N)}
}

// DRAMReduction is 1 - ratio, its ends swapped.
func DRAMReduction(ratio DRAMSpread) DRAMSpread {
	return DRAMSpread{Center: 1 - ratio.Center, Lo: 1 - ratio.Hi, Hi: 1 - ratio.Lo, N: ratio.N}
}

// dramClaims computes each of RangeMetrics from the candidate's and the
// baseline's bytes.
var dramClaims = map[string]func(cand, base DRAMSpread) DRAMSpread{
	"dram_ratio":     DRAMRatio,
	"dram_reduction": func(c, b DRAMSpread) DRAMSpread { return DRAMReduction(DRAMRatio(c, b)) },
	"dram_bytes":     func(c, _ DRAMSpread) DRAMSpread { return c },
}

// DRAMClaimValue is the value of a range-decided DRAM metric (one of
// RangeMetrics) from the candidate's and the baseline's bytes (the
// baseline unused for dram_bytes).
func DRAMClaimValue(metric string, cand, base DRAMSpread) (DRAMSpread, error) {
	f, ok := dramClaims[metric]
	if !ok {
		return DRAMSpread{}, fmt.Errorf("metric %q is not range-decided (want one of %v)", metric, RangeMetrics)
	}
	return f(cand, base), nil
}

// RangeDecision is one range-decided claim at one shape: the cells its
// value rests on (Baseline "" for dram_bytes).
type RangeDecision struct {
	Claim               Claim
	Shape               string
	Candidate, Baseline string
}

// Cells are the decision's cells as "variant/shape".
func (d RangeDecision) Cells() []string {
	out := []string{d.Candidate + "/" + d.Shape}
	if d.Baseline != "" {
		out = append(out, d.Baseline+"/"+d.Shape)
	}
	return out
}

// RangeDecisions lists the experiment's range-decided claims at each of
// shapes the claim applies to (every shape where it names none), in claim
// order, with the baseline each is compared with (RangeDecided's). A
// best-of claim gives one decision per member of its fusion, in the
// fusion's order: any member may be the one the claim is judged on.
func (e *Experiment) RangeDecisions(shapes []string) []RangeDecision {
	var out []RangeDecision
	for _, c := range e.Claims {
		if !slices.Contains(RangeMetrics, c.Metric) {
			continue
		}
		for _, cand := range e.candidates(c) {
			base := c.Baseline
			if base == "" && c.Metric != "dram_bytes" {
				base = e.BaselineFor(cand)
			}
			if c.Metric == "dram_bytes" {
				base = ""
			}
			for _, s := range shapes {
				if len(c.Shapes) == 0 || slices.Contains(c.Shapes, s) {
					out = append(out, RangeDecision{Claim: c, Shape: s, Candidate: cand, Baseline: base})
				}
			}
		}
	}
	return out
}

// The margin of the replay rule (METHOD.md, "Replays where a verdict can
// turn"): a claim value v is near its threshold when |v/threshold - 1| is
// at most max(NearFloor, NearSpreads x spread).
const (
	// NearFloor is the least margin: a value within 5% of its threshold
	// is replayed again even before a second replay shows a spread.
	NearFloor = 0.05
	// NearSpreads is K: a value within K spreads of its threshold is
	// replayed again.
	NearSpreads = 3.0
)

// Nearness is where a claim value v stands against threshold t: its
// distance |v/t - 1| (|v - t|/|v| for t = 0), its spread (Hi-Lo)/|Center|
// (infinite for a zero centre with a width), and the rule's margin
// max(NearFloor, NearSpreads x spread).
func Nearness(v DRAMSpread, t float64) (dist, spread, margin float64) {
	switch {
	case t != 0:
		dist = math.Abs(v.Center/t - 1)
	case v.Center != 0:
		dist = math.Abs(v.Center-t) / math.Abs(v.Center)
	}
	if v.Center != 0 {
		spread = (v.Hi - v.Lo) / math.Abs(v.Center)
	} else if v.Hi > v.Lo {
		spread = math.Inf(1)
	}
	return dist, spread, max(NearFloor, NearSpreads*spread)
}
