package analysis

import (
	"sort"
	"strings"

	"github.com/rooftool/rooftool/metric"
)

// What ncu lists beside the warp stall reasons that is no reason.
const (
	stallNotAReason = "selected" // the warp that issued: ncu lists it beside the stalls
)

// Limits is what ncu's counters say holds a kernel back, as ncu's own
// WarpStateStats and memory sections read them. Zero values and an empty
// map: not collected.
type Limits struct {
	L2HitPct        float64 `json:"l2_hit_pct,omitempty"`
	TensorActivePct float64 `json:"tensor_pipe_active_pct,omitempty"` // % of peak while the SM is active
	IssueActivePct  float64 `json:"issue_active_pct,omitempty"`       // issue slots used, % of peak while active
	// WarpsPerIssue is the warps resident per issued instruction: the
	// cycles between two issues of one warp. Each stall reason's share of it
	// is in Stalls.
	WarpsPerIssue float64            `json:"warps_per_issue,omitempty"`
	Stalls        map[string]float64 `json:"stalls,omitempty"` // reason -> warps stalled for it per issued instruction
}

// Stall is one stall reason with its warps per issued instruction.
type Stall struct {
	Reason string
	Warps  float64
}

// limitsOf reads a kernel's Limits from its metrics.
func limitsOf(m kernelMetrics) Limits {
	var l Limits
	l.L2HitPct, _ = m.get(metric.L2HitRate)
	l.TensorActivePct, _ = m.get(metric.TensorActive)
	l.IssueActivePct, _ = m.get(metric.IssueActive)
	l.WarpsPerIssue, _ = m.get(metric.WarpsPerIssue)
	for name, v := range m {
		r, ok := strings.CutPrefix(name, metric.StallPrefix)
		if !ok {
			continue
		}
		if r, ok = strings.CutSuffix(r, metric.StallSuffix); ok && r != stallNotAReason {
			if l.Stalls == nil {
				l.Stalls = map[string]float64{}
			}
			l.Stalls[r] = v
		}
	}
	return l
}

// Known reports whether any of the counters was collected.
func (l Limits) Known() bool {
	return l.L2HitPct > 0 || l.TensorActivePct > 0 || l.IssueActivePct > 0 || len(l.Stalls) > 0
}

// TopStalls returns the n largest stall reasons, largest first (ties by
// name), leaving out reasons with no stalled warps.
func (l Limits) TopStalls(n int) []Stall {
	var s []Stall
	for r, v := range l.Stalls {
		if v > 0 {
			s = append(s, Stall{r, v})
		}
	}
	sort.Slice(s, func(i, j int) bool {
		if s[i].Warps != s[j].Warps {
			return s[i].Warps > s[j].Warps
		}
		return s[i].Reason < s[j].Reason
	})
	if len(s) > n {
		s = s[:n]
	}
	return s
}
