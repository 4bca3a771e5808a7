package shard

import (
	"testing"

	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

// TestPredictSeconds: an earlier run measured e/a/n=2's check at 4 s and
// nothing else. By hand: e/a/n=2 check 4 s (measured); e/b/n=4 check at
// 4 s / size 2 = 2 s per unit times size 4 = 8 s (rate); their timing,
// never measured, 2.2 s each (the default).
func TestPredictSeconds(t *testing.T) {
	e := &spec.Experiment{Name: "e"}
	cells := []plan.Cell{
		{Exp: e, Variant: "a", Shape: "n=2", Passes: []string{"check", "timing"}},
		{Exp: e, Variant: "b", Shape: "n=4", Passes: []string{"check", "timing"}},
	}
	prior := map[string]map[string]float64{"e/a/n=2": {"check": 4}}
	got := PredictSeconds(cells, prior)
	want := []map[string]PassPrediction{
		{"check": {4, BasisMeasured}, "timing": {2.2, BasisDefault}},
		{"check": {8, BasisRate}, "timing": {2.2, BasisDefault}},
	}
	for i := range want {
		for p, w := range want[i] {
			if got[i][p] != w {
				t.Errorf("cell %d %s = %+v, want %+v", i, p, got[i][p], w)
			}
		}
	}
	// The shard cost is the cell's predicted seconds: 6.2 and 10.2.
	if c := CellCosts(cells, prior); c[0] != 4+2.2 || c[1] != 8+2.2 {
		t.Errorf("costs = %v, want [6.2 10.2]", c)
	}
}

// TestCellCostsWithoutOverlap: an earlier run that measured none of the
// planned cells (a committed run of other experiments, picked by default)
// leaves the split by shape size: n=2 with 2 passes costs 2 x 2 = 4, n=4
// with 2 passes 8, not the default seconds that would make them equal.
func TestCellCostsWithoutOverlap(t *testing.T) {
	e := &spec.Experiment{Name: "e"}
	cells := []plan.Cell{
		{Exp: e, Variant: "a", Shape: "n=2", Passes: []string{"check", "timing"}},
		{Exp: e, Variant: "b", Shape: "n=4", Passes: []string{"check", "timing"}},
	}
	prior := map[string]map[string]float64{"other/x/m=1": {"check": 30}}
	if c := CellCosts(cells, prior); c[0] != 4 || c[1] != 8 {
		t.Errorf("costs = %v, want [4 8]", c)
	}
}
