package analysis

import (
	"fmt"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Stats carries the thresholds of every statistical comparison rooftool
// makes — the verdicts' speedups, the sweeps' crossovers and `rooftool
// diff` — as benchmath's Thresholds do for benchstat. The zero value means
// the defaults (alpha 0.05, 95% intervals, 6 samples).
type Stats struct {
	Alpha      float64 // significance level of the Mann-Whitney U test
	Confidence float64 // of the median intervals
	MinSamples int     // fewer samples in either sample warn (few-samples)
}

func (s Stats) withDefaults() Stats {
	if s.Alpha <= 0 {
		s.Alpha = 0.05
	}
	if s.Confidence <= 0 || s.Confidence >= 1 {
		s.Confidence = 0.95
	}
	if s.MinSamples <= 0 {
		s.MinSamples = 6
	}
	return s
}

// Stats returns the statistical thresholds of opts.
func (o Options) Stats() Stats {
	return Stats{Alpha: o.Alpha, Confidence: o.Confidence, MinSamples: o.MinSamples}.withDefaults()
}

// SampleComparison is two timing samples compared: their medians with
// intervals, base/cand with its interval (RatioInterval: of the same
// confidence as the medians'), and the U test.
type SampleComparison struct {
	Base, Cand  Interval
	Speedup     Interval // base / cand
	P           float64  // Mann-Whitney U p-value
	Significant bool     // P < Alpha
	Warnings    []Warning
}

// Compare compares two samples of times (base, e.g. the baseline or the
// old run, and cand): medians with order-statistic intervals, the ratio
// base/cand, and the Mann-Whitney U test, as benchstat does.
func (s Stats) Compare(base, cand []float64) SampleComparison {
	s = s.withDefaults()
	var out SampleComparison
	var ws []Warning
	out.Base, ws = SummarizeMs(base, s.Confidence)
	out.Warnings = append(out.Warnings, ws...)
	out.Cand, ws = SummarizeMs(cand, s.Confidence)
	out.Warnings = append(out.Warnings, ws...)
	out.P = 1
	if len(base) == 0 || len(cand) == 0 {
		return out
	}
	out.Speedup, ws = RatioInterval(base, cand, s.Confidence)
	for _, w := range ws {
		if !slices.ContainsFunc(out.Warnings, func(o Warning) bool { return o.Msg == w.Msg }) {
			w.Metric = "speedup"
			out.Warnings = append(out.Warnings, w)
		}
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = s.Alpha
	sa := benchmath.NewSample(append([]float64(nil), base...), &th)
	sb := benchmath.NewSample(append([]float64(nil), cand...), &th)
	c := benchmath.AssumeNothing.Compare(sa, sb)
	out.P, out.Significant = c.P, c.P < s.Alpha
	for _, w := range c.Warnings {
		out.Warnings = append(out.Warnings, Warning{Code: WarnFewSamples, Metric: "speedup", Msg: w.Error()})
	}
	if n := min(len(base), len(cand)); n < s.MinSamples {
		out.Warnings = append(out.Warnings, Warning{Code: WarnFewSamples, Metric: "speedup",
			Msg: fmt.Sprintf("%d timing samples in the smaller sample, fewer than %d", n, s.MinSamples)})
	}
	return out
}

// DefaultStats is Stats with every threshold at its default.
func DefaultStats() Stats { return Stats{}.withDefaults() }
