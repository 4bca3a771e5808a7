package launch

import (
	"slices"
	"testing"

	"github.com/rooftool/rooftool/kernels"
)

func TestShardSplit(t *testing.T) {
	e := &kernels.Experiment{Name: "e"}
	var cells []PlannedCell
	for _, v := range []string{"a", "b", "c"} {
		for _, s := range []string{"n=1", "n=2", "n=4", "n=8"} {
			cells = append(cells, PlannedCell{Exp: e, Variant: v, Shape: s, Passes: []string{"check", "timing"}})
		}
	}
	if got := ShapeSize("M=512,N=4096,K=2"); got != 512*4096*2 {
		t.Errorf("ShapeSize = %v", got)
	}
	parts, costs, hash, err := ShardPlan(cells, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	load := make([]float64, 3)
	for i, p := range parts {
		load[p-1] += costs[i]
	}
	if slices.Max(load)-slices.Min(load) > 2 { // the smallest cell costs 2
		t.Errorf("unbalanced parts: %v", load)
	}
	// The same cells in another order split the same way.
	rev := slices.Clone(cells)
	slices.Reverse(rev)
	parts2, _, hash2, _ := ShardPlan(rev, nil, 3)
	for i := range cells {
		if parts[i] != parts2[len(cells)-1-i] {
			t.Fatalf("cell %s: part %d, then %d", cells[i].Key(), parts[i], parts2[len(cells)-1-i])
		}
	}
	if hash != hash2 {
		t.Errorf("plan hash depends on cell order: %s, %s", hash, hash2)
	}
	if _, _, h4, _ := ShardPlan(cells, nil, 4); h4 == hash {
		t.Errorf("plan hash is the same for 3 and 4 parts")
	}
	// Prior seconds replace the size; unmeasured passes are estimated.
	prior := map[string]map[string]float64{"e/a/n=1": {"check": 10, "timing": 30}, "e/b/n=1": {"check": 2}}
	c := CellCosts(cells, prior)
	if c[0] != 40 {
		t.Errorf("measured cell costs %v, want 40", c[0])
	}
	// b/n=1: check measured (2), timing at 30 s per unit of size.
	if c[4] != 32 {
		t.Errorf("half-measured cell costs %v, want 32", c[4])
	}
	if _, _, _, err := ShardPlan(cells, nil, 13); err == nil {
		t.Errorf("13 parts of 12 cells: no error")
	}
	for _, s := range []string{"0/2", "3/2", "1/0", "a/b", "1"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q): no error", s)
		}
	}
}
