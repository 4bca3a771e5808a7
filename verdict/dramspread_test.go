package verdict

import (
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// A range-decided DRAM decision says the replays each cell rests on and the
// manifest's reason for them; a time claim says nothing of replays.
func TestReplayBasis(t *testing.T) {
	e := &spec.Experiment{Name: "x"}
	const near = "near threshold after 3, the --range-replays most: claim d dram_ratio 0.71 vs <= 0.7, 1.4% off, within 5%"
	cell := func(n int) *analysis.CellFact {
		return &analysis.CellFact{DRAMBytesRangeReplays: make([]float64, n)}
	}
	for _, tc := range []struct {
		name, metric string
		cand, base   int
		reasons      [2]string
		want         string
	}{
		{"same replays and reason", MetricDRAMRatio, 3, 3, [2]string{near, near}, "; rests on 3 range replays (" + near + ")"},
		{"cells differ", MetricDRAMRatio, 1, 3, [2]string{"clear of threshold after 1: c", near}, "; rests on range replays: fused 1 (clear of threshold after 1: c), unfused 3 (" + near + ")"},
		{"a run before replay reasons", MetricDRAMReduction, 1, 1, [2]string{}, "; rests on 1 range replay"},
		{"a time claim", MetricSpeedup, 3, 3, [2]string{near, near}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &rundir.Manifest{}
			m.SetPass("x", "fused", "s", rundir.PassRange, rundir.PassStatus{Status: rundir.StatusOK, ReplayReason: tc.reasons[0]})
			m.SetPass("x", "unfused", "s", rundir.PassRange, rundir.PassStatus{Status: rundir.StatusOK, ReplayReason: tc.reasons[1]})
			x := &index{man: m, cells: map[cellkey.Key]*analysis.CellFact{
				cellkey.New("x", "fused", "s"): cell(tc.cand), cellkey.New("x", "unfused", "s"): cell(tc.base)}}
			d := Decision{Metric: tc.metric, Candidate: "fused", Baseline: "unfused", Shape: "s", Measured: &Value{}}
			x.replayBasis(e, &d)
			if d.Reason != tc.want {
				t.Errorf("reason %q, want %q", d.Reason, tc.want)
			}
			if tc.want != "" && (len(d.RangeReplays) != 2 || d.RangeReplays[0].N != tc.cand || d.RangeReplays[1].Reason != tc.reasons[1]) {
				t.Errorf("range_replays %+v", d.RangeReplays)
			}
		})
	}
}
