package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/shard"
)

// TestCostsFromNone: --costs-from none asks for no earlier run.
func TestCostsFromNone(t *testing.T) {
	if d, note := costsFrom([]string{"none"}, true, "h100"); d != nil || note != "--costs-from none" {
		t.Errorf("--costs-from none: %v %q", d, note)
	}
}

// TestPlanSecondsByDefault: `plan --default-only --shard-count 4 --gpu h100`
// predicts from 2026-11-27-h100-222424 without --costs-from: its passes
// took 1577 s together (check 413, timing 143, ncu 260, range 652, nsys
// 109, as its report's Time section gives them), which the cells it
// measured are predicted at; the one planned cell it did not run
// (gla_proj/quack-epilogue-fwdbwd) is predicted at a rate. One GPU is the
// passes plus the warm stage's default 70 s (cutlass-evt is planned); four
// GPUs the slowest part plus 70 s, and the parts split by seconds, not by
// shape size (which gave 212 s and 1717 s), within 5% of their mean.
func TestPlanSecondsByDefault(t *testing.T) {
	o, _ := mustRun(t, exitOK, "plan", "--default-only", "--shard-count", "4", "--gpu", "h100", "--format", "json")
	var out launch.PlanReport
	if err := json.Unmarshal([]byte(o), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.PredictedFrom) != 1 || filepath.Base(out.PredictedFrom[0]) != "2026-11-27-h100-222424" {
		t.Fatalf("predicted from %v, want 2026-11-27-h100-222424", out.PredictedFrom)
	}
	var passes, measured float64
	for _, s := range out.PassSeconds {
		passes += s
	}
	for _, c := range out.Cells {
		if slices.Contains(c.Basis, shard.BasisMeasured) {
			measured += c.Seconds
		} else if !strings.Contains(c.Cell, "quack-epilogue-fwdbwd") {
			t.Errorf("%s: predicted %v, want measured (222424 ran it)", c.Cell, c.Basis)
		}
	}
	if math.Abs(measured-1577) > 1 || out.WarmSeconds != 70 || math.Abs(out.OneGPUSeconds-(passes+70)) > 1 {
		t.Errorf("measured cells %.1f s, warm %.1f s, one GPU %.1f s; want 1577, 70, passes %.1f + 70", measured, out.WarmSeconds, out.OneGPUSeconds, passes)
	}
	slowest := 0.0
	for _, s := range out.ShardSeconds {
		slowest = math.Max(slowest, s)
	}
	if out.CostUnit != "s" || out.Balance > 1.05 || math.Abs(out.Seconds-(slowest+70)) > 0.01 {
		t.Errorf("split by %q, balance %.2f, 4 GPUs %.1f s (slowest part %.1f); want seconds, <= 1.05, slowest + 70", out.CostUnit, out.Balance, out.Seconds, slowest)
	}
}
