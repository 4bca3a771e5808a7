package verdict

import (
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// The newest committed run (the default one) was made with one ncu process
// per range: every cell's range covers at least 90% of its kernel pass's
// GPU time and L2 bytes, or carries range-partial; every pass of every cell
// records the knobs it ran with; no two passes of a cell saw different code.
func TestNewestRunIsWhole(t *testing.T) {
	run := openCommitted(t, "")
	name := run.Name
	if run.Manifest == nil {
		t.Fatalf("%s: no manifest", name)
	}
	for _, c := range run.Manifest.Cells {
		for _, p := range rundir.AllPasses {
			ps, ok := c.Passes[p]
			if !ok || ps.Code == nil || len(ps.Code.Knobs) == 0 {
				t.Errorf("%s %s: pass %s records no knobs", name, c.Key(), p)
			}
		}
		if cov := c.Passes[rundir.PassRange].Coverage; cov == nil {
			t.Errorf("%s %s: range pass records no coverage", name, c.Key())
		}
	}
	in := loadCommitted(t, "")
	for _, c := range in.Run.Cells {
		if c.Status != "ok" {
			continue
		}
		cov := c.RangeCoverage
		if cov == nil {
			t.Errorf("%s/%s/%s: no range coverage", c.Experiment, c.Variant, c.Shape)
			continue
		}
		if (cov.Time < 0.9 || cov.L2Bytes < 0.9) && !c.RangePartial {
			t.Errorf("%s/%s/%s: range covers %.2f of the time, %.2f of the L2 bytes, not flagged", c.Experiment, c.Variant, c.Shape, cov.Time, cov.L2Bytes)
		}
		for _, w := range c.Warnings {
			if w.Code == analysis.WarnPassesDiffer || w.Code == analysis.WarnRangePartial {
				t.Errorf("%s/%s/%s: %s: %s", c.Experiment, c.Variant, c.Shape, w.Code, w.Msg)
			}
		}
	}
	x := newIndex(in.Run, run.Manifest, nil)
	for k, c := range x.cells {
		for _, w := range c.Warnings {
			if w.Code == analysis.WarnPassesDiffer {
				t.Errorf("%s: %s", k, w.Msg)
			}
		}
	}
}
