package main

import (
	"slices"
	"testing"

	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/shard"
)

// The shard table gives each shard's cost SI-scaled under its unit:
// 5.629e15 shape size x passes reads 5.63 P (5.629e15 / 1e15 = 5.629,
// three digits); 3.8e11 reads 380 G. A split by seconds has no cost column.
func TestShardTableUnits(t *testing.T) {
	out := launch.PlanReport{CostUnit: shard.CostShapeUnits, ShardCosts: []float64{5.629e15, 3.8e11}, ShardSeconds: []float64{212.4, 9},
		Cells: []launch.PlanRow{{Shard: 1}, {Shard: 1}, {Shard: 2}}}
	tb := out.ShardTable()
	if want := []string{"SHARD", "CELLS", "PREDICTED (s)", "SPLIT BY COST (shape size x passes)"}; !slices.Equal(tb.Header, want) {
		t.Errorf("header %q, want %q", tb.Header, want)
	}
	for i, want := range [][]string{{"1/2", "2", "212", "5.63 P"}, {"2/2", "1", "9", "380 G"}} {
		if !slices.Equal(tb.Rows[i], want) {
			t.Errorf("row %d: %q, want %q", i, tb.Rows[i], want)
		}
	}
	out.CostUnit = shard.CostSeconds
	if tb := out.ShardTable(); len(tb.Header) != 3 {
		t.Errorf("split by seconds: header %q, want no cost column", tb.Header)
	}
}
