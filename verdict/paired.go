package verdict

import (
	"fmt"

	"github.com/rooftool/rooftool/analysis"
)

// judged is how the speedup of the decision being made was timed: the
// launch method ("eager" or "graph") and the paired record it came from
// (nil: the cells' separate timing loops).
type judged struct {
	launch string
	paired *analysis.Paired
}

// launchFor is the launch method a speedup between cells bc and cc is
// judged on: "graph" where either is host-bound and judged on its
// CUDA-graph launch (analysis.CellFact.LaunchMethod) and both have that
// launch timed, so both sides run as a model would launch them; else
// "eager".
func launchFor(bc, cc *analysis.CellFact) string {
	if !okCell(bc) || !okCell(cc) {
		return analysis.LaunchEager
	}
	if (bc.LaunchMethod == analysis.LaunchGraph || cc.LaunchMethod == analysis.LaunchGraph) && bc.Device.N > 0 && cc.Device.N > 0 {
		return analysis.LaunchGraph
	}
	return analysis.LaunchEager
}

// pairedFor is the paired record of (exp, shape, base, cand) timed with
// launch that has pairs, else nil; a record whose every pair was left out
// for clocks adds a clocks-differ warning on metric.
func (x *index) pairedFor(metric, exp, shape, base, cand, launch string) *analysis.Paired {
	p := x.paired[analysis.PairKey{Experiment: exp, Shape: shape, Baseline: base, Candidate: cand, Launch: launch}]
	if p == nil {
		return nil
	}
	if p.Speedup.N == 0 {
		if p.ClockVoided > 0 {
			x.extra = append(x.extra, analysis.Warning{Code: analysis.WarnClocks, Metric: metric,
				Msg: fmt.Sprintf("paired timing (%s launch): %s", launch, p.Error)})
		}
		return nil
	}
	for _, w := range p.Warnings {
		w.Metric = metric
		x.extra = append(x.extra, w)
	}
	x.judged = judged{launch: launch, paired: p}
	return p
}

// pairedNote describes a paired speedup: its pairs, those left out for
// clocks, and the clocks the pairs kept ran at.
func pairedNote(p *analysis.Paired) string {
	s := fmt.Sprintf("paired timing, %s launch: median of %d per-pair ratios (baseline and candidate alternating in one process)", p.Key.Launch, p.Speedup.N)
	if p.ClockVoided > 0 {
		s += fmt.Sprintf(", %d of %d pairs left out: their halves ran at SM clocks more than %.0f%% apart", p.ClockVoided, p.Pairs, 100*analysis.ClockTolPairs)
	}
	if p.MinMHz > 0 {
		s += fmt.Sprintf("; SM clocks %.0f-%.0f MHz, halves of a pair within %.1f%%", p.MinMHz, p.MaxMHz, 100*p.MaxClockGap)
	}
	return s
}
