package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/spec"
)

// BestOf says how a best-of claim's candidate was picked (METHOD.md, "Best
// implementation of a fusion"): the member of the fusion with the best
// median of the claim's metric among those the run measured.
type BestOf struct {
	Fusion  string         `json:"fusion"`
	Picked  string         `json:"picked"`
	Members []FusionMember `json:"members"`
}

// FusionMember is one member of a fusion at a shape: its value of a claim's
// metric, or why it has none.
type FusionMember struct {
	Variant string   `json:"variant"`
	Value   *float64 `json:"value,omitempty"`
	Why     string   `json:"why,omitempty"`
}

// fusionValues measures the claim metric of every member of fusion g at a
// shape, each against base ("": its own baseline). The warnings measuring
// raises are not this decision's: they are dropped.
func (x *index) fusionValues(e *spec.Experiment, g, metric, base, shape string) []FusionMember {
	keep := len(x.extra)
	defer func() { x.extra = x.extra[:keep] }()
	var out []FusionMember
	for _, v := range e.Fusions[g] {
		m := FusionMember{Variant: v}
		b := base
		if b == "" && needsBaseline(metric) {
			b = e.BaselineFor(v)
		}
		switch {
		case e.Variant(v) == nil:
			m.Why = notInSpec(v)
		default:
			if val, missing, _ := x.measure(e, metric, v, b, shape); missing != "" {
				m.Why = missing
			} else {
				m.Value = ptr(val.Center)
			}
		}
		out = append(out, m)
	}
	return out
}

// notInSpec says why a variant the run's spec does not have is not measured.
func notInSpec(v string) string {
	return v + " is not a variant of this run's spec (claims.yaml's fusions name it): the run has no cells of it"
}

// bestMember is the member with the best value for a test with op
// (bestIndex); nil when none has one.
func bestMember(ms []FusionMember, op string) *FusionMember {
	if i := bestIndex(len(ms), func(i int) *float64 { return ms[i].Value }, op); i >= 0 {
		return &ms[i]
	}
	return nil
}

// bestIndex is the index of the best of n values for a test with op (the
// highest for > and >=, the lowest for < and <=), value(i) nil where the
// i-th has none; -1 when none has one. Ties go to the first listed.
func bestIndex(n int, value func(i int) *float64, op string) int {
	best := -1
	lower := op == "<" || op == "<="
	for i := range n {
		v := value(i)
		if v == nil {
			continue
		}
		if best < 0 || (lower && *v < *value(best)) || (!lower && *v > *value(best)) {
			best = i
		}
	}
	return best
}

// decideBestOf judges a best-of claim at a shape on the member of its
// fusion with the best median of the claim's metric, saying which was
// picked, from what, and that the pick favours GO.
func (x *index) decideBestOf(e *spec.Experiment, c spec.Claim, g, shape string) Decision {
	members := x.fusionValues(e, g, c.Metric, c.Baseline, shape)
	best := bestMember(members, c.Op)
	if best == nil {
		d := Decision{Experiment: e.Name, Claim: c.ID, Seed: c.Seed, Source: c.Source, Line: c.Line, Quote: c.Quote, Metric: c.Metric,
			Candidate: c.Candidate, Baseline: c.Baseline, Op: c.Op, Threshold: c.Threshold, Shape: shape, Note: c.Note, Verdict: VerdictNotMeasured}
		if r, ok := metricOf(c.Metric); ok {
			d.Quantity = r.quantity
		}
		var why []string
		for _, m := range members {
			w := m.Why
			if !strings.HasPrefix(w, m.Variant) {
				w = m.Variant + ": " + w
			}
			if !slices.Contains(why, w) {
				why = append(why, w)
			}
		}
		d.Reason = fmt.Sprintf("no member of fusion %s has %s at this shape: %s", g, c.Metric, strings.Join(why, "; "))
		d.BestOf = &BestOf{Fusion: g, Members: members}
		return d
	}
	pc := c
	pc.Candidate = best.Variant
	d := x.decideOne(e, pc, shape)
	d.BestOf = &BestOf{Fusion: g, Picked: best.Variant, Members: members}
	d.Reason = bestOfText(g, c.Metric, best.Variant, members) + "; " + d.Reason
	return d
}

// bestOfText states the pick: the members' values and those without one.
func bestOfText(g, metric, picked string, ms []FusionMember) string {
	var vals, none []string
	n := 0
	for _, m := range ms {
		if m.Value == nil {
			none = append(none, m.Variant)
			continue
		}
		n++
		vals = append(vals, m.Variant+" "+FormatMetric(metric, *m.Value))
	}
	s := fmt.Sprintf("%s picked as the best of fusion %s by the median of %s (%s)", picked, g, metric, strings.Join(vals, ", "))
	if len(none) > 0 {
		slices.Sort(none)
		s += "; not measured: " + strings.Join(none, ", ")
	}
	if n > 1 {
		s += fmt.Sprintf("; the best of %d medians favours GO: judged on its own interval, not widened for the pick", n)
	}
	return s
}
