package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/internal/figure"
)

// Answer is one row of the answer table that report.md and report.html open
// with: one claim of a seed (its citation, test and baseline at one shape)
// judged on its best implementation in the run. It is derived from the
// decisions (answers) and repeats none of their rules: Decision points at
// the decision it shows.
type Answer struct {
	Experiment string  `json:"experiment"`
	Seed       string  `json:"seed,omitempty"`
	Source     string  `json:"source,omitempty"` // the claim's own document instead of a seed
	Line       int     `json:"line"`
	Quote      string  `json:"quote"`
	Shape      string  `json:"shape"`
	Metric     string  `json:"metric"`
	Baseline   string  `json:"baseline,omitempty"`
	Op         string  `json:"op"`
	Threshold  float64 `json:"threshold"`
	// Best is the implementation judged: the decision's candidate ("" for
	// a best-of claim none of whose members was measured). Fusion
	// is the claims.yaml fusion it was picked from where the claim is a
	// best-of claim; Compared lists the implementations with a value it
	// was picked among (best first; absent where there was one).
	Best     string   `json:"best"`
	Fusion   string   `json:"fusion,omitempty"`
	Compared []string `json:"compared,omitempty"`
	Measured *Value   `json:"measured,omitempty"`
	Verdict  string   `json:"verdict"`
	// Why is one line on what keeps the verdict from being a clean GO or
	// NO-GO (whyRules); absent for a clean one.
	Why string `json:"why,omitempty"`
	// Decision is the index of the decision shown in report.json's
	// decisions (from 0).
	Decision int `json:"decision"`
}

// Cite is where the answer's claim comes from, as Decision.Cite.
func (a Answer) Cite() string {
	return Decision{Seed: a.Seed, Source: a.Source, Line: a.Line}.Cite()
}

// claimKey is what makes decisions one claim of the answer table: the
// same citation, test and baseline at the same shape; they differ only in
// the implementation judged.
type claimKey struct {
	exp, seed, source string
	line              int
	metric, base, op  string
	threshold         float64
	shape             string
}

func keyOf(d Decision) claimKey {
	return claimKey{d.Experiment, d.Seed, d.Source, d.Line, d.Metric, d.Baseline, d.Op, d.Threshold, d.Shape}
}

// answers derives the answer table from the decisions: one row per claim
// (claimKey), on the decision of its best implementation (bestDecision),
// ordered by experiment (as exps), then shape (the experiment's shape
// order), then the claim's first decision.
func answers(ds []Decision, exps []Experiment) []Answer {
	var keys []claimKey
	groups := map[claimKey][]int{}
	for i, d := range ds {
		k := keyOf(d)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	expAt, shapeAt := map[string]int{}, map[string]int{}
	for i, e := range exps {
		expAt[e.Name] = i
		for j, s := range e.Shapes {
			shapeAt[e.Name+"\x00"+s.Shape] = j
		}
	}
	rank := func(k claimKey) (int, int) {
		e, ok := expAt[k.exp]
		if !ok {
			e = len(exps)
		}
		s, ok := shapeAt[k.exp+"\x00"+k.shape]
		if !ok {
			s = math.MaxInt
		}
		return e, s
	}
	slices.SortStableFunc(keys, func(a, b claimKey) int {
		ea, sa := rank(a)
		eb, sb := rank(b)
		if ea != eb {
			return ea - eb
		}
		if sa != sb {
			if sa < sb {
				return -1
			}
			return 1
		}
		return 0
	})
	out := make([]Answer, 0, len(keys))
	for _, k := range keys {
		out = append(out, answerOf(ds, groups[k]))
	}
	return out
}

// answerOf is the answer of one claim whose decisions are ds[group...].
func answerOf(ds []Decision, group []int) Answer {
	i, compared := bestDecision(ds, group)
	d := ds[i]
	a := Answer{Experiment: d.Experiment, Seed: d.Seed, Source: d.Source, Line: d.Line, Quote: d.Quote, Shape: d.Shape,
		Metric: d.Metric, Baseline: d.Baseline, Op: d.Op, Threshold: d.Threshold, Best: d.Candidate,
		Measured: d.Measured, Verdict: d.Verdict, Why: whyOf(d), Decision: i}
	if d.BestOf != nil {
		a.Fusion = d.BestOf.Fusion
		a.Best = d.BestOf.Picked // "" where no member has a value
	}
	if len(compared) > 1 {
		a.Compared = compared
	}
	return a
}

// bestDecision picks a claim's decision on its best implementation: its
// best-of decision where it has one (the fusion's best member, picked by
// the same rule), else the decision whose measured median is best for the
// test (bestMember's rule: the highest for > and >=, the lowest for < and
// <=; ties to the first); the first where none is measured. It also
// returns the implementations with a value the pick was made among, best
// first.
func bestDecision(ds []Decision, group []int) (int, []string) {
	from := group
	var bestOf []int
	for _, i := range group {
		if ds[i].BestOf != nil {
			bestOf = append(bestOf, i)
		}
	}
	if len(bestOf) > 0 {
		from = bestOf
	}
	pick := from[0]
	center := func(i int) *float64 {
		if m := ds[from[i]].Measured; m != nil {
			return &m.Center
		}
		return nil
	}
	if b := bestIndex(len(from), center, ds[from[0]].Op); b >= 0 {
		pick = from[b]
	}
	var compared []string
	add := func(v string) {
		if !slices.Contains(compared, v) {
			compared = append(compared, v)
		}
	}
	add(ds[pick].Candidate)
	if b := ds[pick].BestOf; b != nil {
		for _, m := range b.Members {
			if m.Value != nil {
				add(m.Variant)
			}
		}
		return pick, compared
	}
	for _, i := range from {
		if ds[i].Measured != nil {
			add(ds[i].Candidate)
		}
	}
	return pick, compared
}

// whyRule is one thing that keeps a verdict from being a clean GO or
// NO-GO: whether it applies to a decision, and how the answer table says
// it in a few words.
type whyRule struct {
	applies func(d Decision) bool
	says    func(d Decision) string
}

// whyRules are what an answer's Why says, in this order, joined by "; ":
// every rule that applies. A clean GO or NO-GO meets none.
var whyRules = []whyRule{
	{func(d Decision) bool { return d.Verdict == VerdictNotMeasured }, notMeasuredWhy},
	{func(d Decision) bool { return len(d.VoidedBy) > 0 },
		func(d Decision) string { return "voided by " + strings.Join(d.VoidedBy, ", ") }},
	{func(d Decision) bool { return d.PassNotRun != "" },
		func(d Decision) string { return firstClause(d.PassNotRun, 70) }},
	{func(d Decision) bool { return straddles(d) }, straddleWhy},
	{func(d Decision) bool { return d.LimitedBy != "" }, limitedWhy},
	{func(d Decision) bool {
		return hasWarning(d.Warnings, WarnReplaysCut) && !slices.Contains(d.VoidedBy, WarnReplaysCut)
	}, func(d Decision) string { return "range replays cut" }},
}

// whyOf is a decision's one-line reason for the answer table: what every
// rule of whyRules that applies says; "" for a clean GO or NO-GO.
func whyOf(d Decision) string {
	var parts []string
	for _, r := range whyRules {
		if r.applies(d) {
			parts = append(parts, r.says(d))
		}
	}
	return strings.Join(parts, "; ")
}

// straddles reports an INCONCLUSIVE that the interval alone makes: measured,
// neither voided nor missing a pass.
func straddles(d Decision) bool {
	return d.Verdict == VerdictInconclusive && d.Measured != nil && len(d.VoidedBy) == 0 && d.PassNotRun == ""
}

// straddleWhy says how near the threshold the median of an interval that
// straddles it lies: "straddles: median 2.9% below".
func straddleWhy(d Decision) string {
	m := d.Measured.Center
	if d.Threshold == 0 {
		return "straddles the threshold"
	}
	off := (m - d.Threshold) / math.Abs(d.Threshold)
	side := "above"
	if off < 0 {
		side = "below"
	}
	return fmt.Sprintf("straddles: median %.1f%% %s", 100*math.Abs(off), side)
}

// limitedWhy says what limits the implementation: below its fusion's best
// member ("below dual-acc (95.66 µs)"), its GEMMs below the library's with
// the metric at best had they matched (the counterfactual, where there is
// one).
func limitedWhy(d Decision) string {
	var what []string
	if l := d.Limit; l != nil && l.BelowBest && l.Best != "" {
		s := "below " + l.Best
		if l.BestValue != nil {
			s += " (" + FormatMetric(d.Metric, *l.BestValue) + ")"
		}
		what = append(what, s)
	}
	if l := d.Limit; l != nil && l.BelowLibrary {
		s := "by its GEMMs"
		if cf := d.Counterfactual; cf != nil {
			s += ": at best " + FormatMetric(d.Metric, cf.AtBest)
		}
		what = append(what, s)
	}
	switch len(what) {
	case 0:
		return "limited by implementation"
	case 1:
		if strings.HasPrefix(what[0], "by ") {
			return "limited " + what[0]
		}
	}
	return "limited: " + strings.Join(what, "; ")
}

// notMeasuredWhy is a NOT MEASURED reason cut to its first clause; for a
// best-of claim, that no member of its fusion was measured.
func notMeasuredWhy(d Decision) string {
	if b := d.BestOf; b != nil && b.Picked == "" {
		return "not measured: no member of fusion " + b.Fusion
	}
	return "not measured: " + firstClause(d.Reason, 60)
}

// firstClause is s up to its first "; " or " (", at most n runes.
func firstClause(s string, n int) string {
	s = figure.OneLine(s)
	for _, sep := range []string{"; ", " ("} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	return figure.Shorten(s, n)
}
