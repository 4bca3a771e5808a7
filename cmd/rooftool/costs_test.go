package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultCostsFrom: without --costs-from the newest committed run on the
// GPU kind predicts. testdata/runs holds H100 runs up to
// 2026-11-27-h100-222424 and one H200 run, 2026-11-26-h200x4-085514 (the
// folder names give the dates); a kind with no run takes the
// newest of any kind, 222424, and says so (a B200).
func TestDefaultCostsFrom(t *testing.T) {
	for _, c := range []struct{ gpu, want, note string }{
		{"h100", "2026-11-27-h100-222424", "the newest committed run on"},
		{"h200", "2026-11-26-h200x4-085514", "the newest committed run on"},
		{"b200", "2026-11-27-h100-222424", "the newest of another kind"},
		{"", "2026-11-27-h100-222424", "no --gpu given"},
	} {
		d, note := defaultCostsFrom(c.gpu)
		if filepath.Base(d) != c.want || !strings.Contains(note, c.note) {
			t.Errorf("--gpu %q: %s (%s), want %s (%s...)", c.gpu, d, note, c.want, c.note)
		}
	}
	if d, note := costsFrom([]string{"none"}, true, "h100"); d != nil || note != "--costs-from none" {
		t.Errorf("--costs-from none: %v %q", d, note)
	}
}

// TestPlanSecondsByDefault: `plan --default-only --shard-count 4 --gpu h100`
// predicts from 2026-11-27-h100-222424 without --costs-from: its passes
// took 1577 s together (check 413, timing 143, ncu 260, range 652, nsys
// 109, as its report's Time section gives them), so one GPU is 1577 s plus
// the warm stage's default 70 s (cutlass-evt is planned): 1647 s; four
// GPUs the slowest part plus 70 s, and the parts split by seconds, not by
// shape size (which gave 212 s and 1717 s), within 5% of their mean.
func TestPlanSecondsByDefault(t *testing.T) {
	o, _ := mustRun(t, exitOK, "plan", "--default-only", "--shard-count", "4", "--gpu", "h100", "--format", "json")
	var out planJSON
	if err := json.Unmarshal([]byte(o), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.PredictedFrom) != 1 || filepath.Base(out.PredictedFrom[0]) != "2026-11-27-h100-222424" {
		t.Fatalf("predicted from %v, want 2026-11-27-h100-222424", out.PredictedFrom)
	}
	var passes float64
	for _, s := range out.PassSeconds {
		passes += s
	}
	if math.Abs(passes-1577) > 1 || out.WarmSeconds != 70 || math.Abs(out.OneGPUSeconds-1647) > 1 {
		t.Errorf("passes %.1f s, warm %.1f s, one GPU %.1f s; want 1577, 70, 1647", passes, out.WarmSeconds, out.OneGPUSeconds)
	}
	slowest := 0.0
	for _, s := range out.ShardSeconds {
		slowest = math.Max(slowest, s)
	}
	if out.CostUnit != "s" || out.Balance > 1.05 || math.Abs(out.Seconds-(slowest+70)) > 0.01 {
		t.Errorf("split by %q, balance %.2f, 4 GPUs %.1f s (slowest part %.1f); want seconds, <= 1.05, slowest + 70", out.CostUnit, out.Balance, out.Seconds, slowest)
	}
}
