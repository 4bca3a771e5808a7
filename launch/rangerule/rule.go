package rangerule

import (
	"fmt"
	"math"
	"slices"

	"github.com/rooftool/rooftool/spec"
)

// The replay rule of --range-replays-for decisions (METHOD.md, "Replays
// where a verdict can turn"): every cell gets one range replay; after each
// round, each range-decided claim at each shape takes its value from the
// replays so far (spec.DRAMClaimValue, as the report judges it), and
// where that value lies within the margin of the threshold its cells are
// replayed again, up to --range-replays in all. The margin is
// max(NearFloor, NearSpreads x spread), the spread the relative width
// (Hi-Lo)/|Center| of the value over every pairing of the cells' replays
// (0 after one replay); the distance is |v/threshold - 1|.

// The rule's margin (spec.Nearness).
const (
	NearFloor   = spec.NearFloor
	NearSpreads = spec.NearSpreads
)

// nearness is one decision's standing after a round.
type nearness struct {
	dec    spec.RangeDecision
	value  spec.DRAMSpread
	dist   float64 // |v/threshold - 1| (|v-T|/|v| for threshold 0)
	spread float64 // (Hi-Lo)/|Center|
	margin float64 // max(NearFloor, NearSpreads*spread)
	why    string  // why there is no value ("" when there is one)
}

func (n nearness) near() bool { return n.why == "" && n.dist <= n.margin }

// score orders decisions by how near they lie: distance over margin (near
// at 1 or less); a decision with no value sorts last.
func (n nearness) score() float64 {
	if n.why != "" {
		return math.Inf(1)
	}
	return n.dist / n.margin
}

// judgeNear computes a decision's value from its cells' replays' DRAM bytes
// (bytes by "variant/shape"; ok replays only) and its distance from the
// threshold.
func judgeNear(d spec.RangeDecision, bytes map[string][]float64) nearness {
	n := nearness{dec: d}
	cells := d.Cells()
	var sp [2]spec.DRAMSpread
	for i, c := range cells {
		if len(bytes[c]) == 0 {
			n.why = c + " has no range-pass DRAM bytes"
			return n
		}
		sp[i] = spec.SpreadOf(bytes[c])
		if sp[i].Lo <= 0 {
			n.why = c + " read no DRAM bytes in a replay"
			return n
		}
	}
	v, err := spec.DRAMClaimValue(d.Claim.Metric, sp[0], sp[1])
	if err != nil {
		n.why = err.Error()
		return n
	}
	n.value = v
	n.dist, n.spread, n.margin = spec.Nearness(v, d.Claim.Threshold)
	return n
}

// describe says where a decision stands: "claim c1 dram_ratio 0.712 vs <=
// 0.7, 1.7% off, within 5%" (or "beyond 5%"; a spread-wide margin as "3 x
// spread 4.2% = 12.6%").
func (n nearness) describe() string {
	c := n.dec.Claim
	if n.why != "" {
		return fmt.Sprintf("claim %s %s has no value: %s", c.ID, c.Metric, n.why)
	}
	m := fmt.Sprintf("%.3g%%", NearFloor*100)
	if NearSpreads*n.spread > NearFloor {
		m = fmt.Sprintf("%g x spread %.1f%% = %.1f%%", NearSpreads, n.spread*100, n.margin*100)
	}
	where := "beyond"
	if n.near() {
		where = "within"
	}
	return fmt.Sprintf("claim %s %s %.4g vs %s %.4g, %.1f%% off, %s %s", c.ID, c.Metric, n.value.Center, c.Op, c.Threshold, n.dist*100, where, m)
}

// ReplayRound applies the rule after a round: which of todo
// ("variant/shape") get another replay, and why each has the replays it
// has (replays: how many each has had, at most n). A cell no decision rests
// on, or whose decisions have no value, stops; otherwise the nearest of its
// decisions (least distance over margin) decides: near and fewer than n
// replays, again; else stop.
func ReplayRound(decs []spec.RangeDecision, bytes map[string][]float64, replays map[string]int, todo []string, n int) (again []string, reasons map[string]string) {
	reasons = map[string]string{}
	for _, c := range todo {
		var best *nearness
		for _, d := range decs {
			if !slices.Contains(d.Cells(), c) {
				continue
			}
			nr := judgeNear(d, bytes)
			if best == nil || nr.score() < best.score() {
				best = &nr
			}
		}
		k := replays[c]
		switch {
		case best == nil:
			reasons[c] = fmt.Sprintf("%s: no range-decided claim rests on the cell", times(k))
		case best.why != "":
			reasons[c] = fmt.Sprintf("stopped after %d: %s", k, best.describe())
		case best.near() && k < n:
			reasons[c] = fmt.Sprintf("near threshold after %d: %s", k, best.describe())
			again = append(again, c)
		case best.near():
			reasons[c] = fmt.Sprintf("near threshold after %d, the --range-replays most: %s", k, best.describe())
		default:
			reasons[c] = fmt.Sprintf("clear of threshold after %d: %s", k, best.describe())
		}
	}
	return again, reasons
}

// times says "one replay", "2 replays".
func times(k int) string {
	if k == 1 {
		return "one replay"
	}
	return fmt.Sprintf("%d replays", k)
}

// Which cells the range pass replays again after the first round
// (launch.Config.RangeReplaysFor, --range-replays-for).
const (
	ReplaysForAll       = "all"       // every cell, up to --range-replays times
	ReplaysForDecisions = "decisions" // the cells of a range-decided claim near its threshold (ReplayRound)
)
