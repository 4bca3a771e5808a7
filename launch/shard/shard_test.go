package shard

import (
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

func TestShardSplit(t *testing.T) {
	e := &spec.Experiment{Name: "e"}
	var cells []plan.Cell
	for _, v := range []string{"a", "b", "c"} {
		for _, s := range []string{"n=1", "n=2", "n=4", "n=8"} {
			cells = append(cells, plan.Cell{Exp: e, Variant: v, Shape: s, Passes: []string{"check", "timing"}})
		}
	}
	if got := ShapeSize("M=512,N=4096,K=2"); got != 512*4096*2 {
		t.Errorf("ShapeSize = %v", got)
	}
	parts, costs, hash, err := Split(cells, nil, 3, true)
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
	parts2, _, hash2, _ := Split(rev, nil, 3, true)
	for i := range cells {
		if parts[i] != parts2[len(cells)-1-i] {
			t.Fatalf("cell %s: part %d, then %d", cells[i].Key(), parts[i], parts2[len(cells)-1-i])
		}
	}
	if hash != hash2 {
		t.Errorf("plan hash depends on cell order: %s, %s", hash, hash2)
	}
	if _, _, h4, _ := Split(cells, nil, 4, true); h4 == hash {
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
	if _, _, _, err := Split(cells, nil, 13, true); err == nil {
		t.Errorf("13 parts of 12 cells: no error")
	}
	for _, s := range []string{"0/2", "3/2", "1/0", "a/b", "1"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q): no error", s)
		}
	}
}

// TestShardKeepsRangeClaims: the two cells a range-decided claim compares
// at a shape run in one part, so each shard's replay rule sees both; cells
// without the range pass are not linked.
func TestShardKeepsRangeClaims(t *testing.T) {
	e := &spec.Experiment{Name: "e", Claims: []spec.Claim{
		{ID: "d", Metric: "dram_ratio", Candidate: "fused", Baseline: "eager", Op: "<", Threshold: 0.5},
		{ID: "s", Metric: "speedup", Candidate: "other", Baseline: "eager", Op: ">", Threshold: 1.1},
	}}
	var cells []plan.Cell
	for _, v := range []string{"eager", "fused", "other"} {
		for _, s := range []string{"n=1", "n=2", "n=4"} {
			cells = append(cells, plan.Cell{Exp: e, Variant: v, Shape: s, Passes: []string{"check", "range"}})
		}
	}
	parts, _, _, err := Split(cells, nil, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	part := map[string]int{}
	for i, c := range cells {
		part[c.Variant+"/"+c.Shape] = parts[i]
	}
	for _, s := range []string{"n=1", "n=2", "n=4"} {
		if part["eager/"+s] != part["fused/"+s] {
			t.Errorf("%s: eager in part %d, fused in part %d", s, part["eager/"+s], part["fused/"+s])
		}
	}
	// 3 linked pairs and 3 lone cells make 6 groups: 7 parts cannot keep them.
	if _, _, _, err := Split(cells, nil, 7, true); err == nil || !strings.Contains(err.Error(), "only 6 groups") {
		t.Errorf("7 parts of 6 groups: %v", err)
	}
	if _, _, _, err := Split(cells, nil, 7, false); err != nil {
		t.Errorf("7 parts without the range rule: %v", err)
	}
	// Without the range pass nothing is linked.
	for i := range cells {
		cells[i].Passes = []string{"check"}
	}
	if g := RangeGroups(cells); len(distinct(g)) != len(cells) {
		t.Errorf("cells without the range pass linked: %v", g)
	}
}
