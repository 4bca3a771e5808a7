package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// TestTimeOf: a check launch of 10 s over two cells (5 s each, the runner
// clocked 4 s and 3 s inside it, 2 s before its first cell) and a range
// launch per cell of 3 s and 7 s. By hand: check 10 s, range 10 s, 20 s in
// all, each pass half; the experiment 10 + 10; the run's wall time 12:00:00
// to 12:00:30 is 30 s; the ingest 1.5 s as recorded.
func TestTimeOf(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	m := &rundir.Manifest{Created: t0, Finished: t0.Add(30 * time.Second), IngestSeconds: 1.5,
		Launches: []rundir.Launch{
			{Pass: "check", Experiment: "e", Cells: 2, Seconds: 10, StartupSeconds: 2},
			{Pass: "range", Experiment: "e", Cells: 1, Seconds: 3},
			{Pass: "range", Experiment: "e", Cells: 1, Seconds: 7},
		},
		Cells: []rundir.Cell{
			{Experiment: "e", Variant: "a", Shape: "n=1", Passes: map[string]rundir.PassStatus{
				"check": {Status: "ok", Seconds: 5, SharedBy: 2, CellSeconds: 4},
				"range": {Status: "ok", Seconds: 3, SharedBy: 1}}},
			{Experiment: "e", Variant: "b", Shape: "n=1", Passes: map[string]rundir.PassStatus{
				"check": {Status: "ok", Seconds: 5, SharedBy: 2, CellSeconds: 3},
				"range": {Status: "ok", Seconds: 7, SharedBy: 1}}},
		}}
	tr := timeOf(m)
	if tr.WallSeconds != 30 || tr.PassSeconds != 20 || tr.IngestSeconds != 1.5 {
		t.Errorf("wall %v, passes %v, ingest %v; want 30, 20, 1.5", tr.WallSeconds, tr.PassSeconds, tr.IngestSeconds)
	}
	want := []PassTime{
		{Pass: "check", Seconds: 10, Share: 0.5, Cells: 2, Launches: 1, StartupSeconds: 2, Divided: true},
		{Pass: "range", Seconds: 10, Share: 0.5, Cells: 2, Launches: 2},
	}
	if len(tr.Passes) != 2 || tr.Passes[0] != want[0] || tr.Passes[1] != want[1] {
		t.Errorf("passes = %+v, want %+v", tr.Passes, want)
	}
	if e := tr.Experiments; len(e) != 1 || e[0].Total != 20 || e[0].Seconds["check"] != 10 || e[0].Seconds["range"] != 10 {
		t.Errorf("experiments = %+v", e)
	}
	if c := tr.Cells[1].Passes["check"]; c.Share != 5 || c.Measured != 3 || c.SharedBy != 2 {
		t.Errorf("cell b check = %+v, want share 5 of 2 cells, measured 3", c)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, &Report{Time: tr}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Time", "The passes took 20.0 s together", "30.0 s", "| check  |    10.0 |   50% |     2 | launch ÷ its cells |        1 |                   2.0 |", "| e/b/n=1 | 5.0 (3.0) |   7.0 |"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("report.md lacks %q:\n%s", s, md.String())
		}
	}
}

// TestTimeShardsWarmCompiles: a merged run of two shards, a warm stage and
// cache counts. By hand: shard 1/2 on GPU-a ran cell a (check 5 s, range
// 3 s), predicted 10 s, measured 8 s: 0.80; shard 2/2 on GPU-b ran cell b
// (check 5 s, range 7 s), predicted 10 s, measured 12 s: 1.20; the slowest
// 12 s over the mean (8 + 12) / 2 = 10 s is 1.20x. The warm stage 61.5 s
// in 4 processes; check's launches added 2 Triton entries and 1 cutlass
// kernel, range's none.
func TestTimeShardsWarmCompiles(t *testing.T) {
	m := &rundir.Manifest{
		Options: map[string]string{OptionCacheCounts: "per launch"},
		Warm:    &rundir.Warm{Seconds: 61.5, Kernels: 4, Compiled: 4, Processes: 4},
		MergedFrom: []rundir.MergedPart{
			{Run: "x.gpu-0", Shard: "1/2", GPUUUID: "GPU-a", PredictedSeconds: 10, Seconds: 8},
			{Run: "x.gpu-1", Shard: "2/2", GPUUUID: "GPU-b", PredictedSeconds: 10, Seconds: 12},
		},
		Launches: []rundir.Launch{
			{Pass: "check", Experiment: "e", Cells: 1, Seconds: 5, CacheAdded: map[string]int{"triton": 2}},
			{Pass: "check", Experiment: "e", Cells: 1, Seconds: 5, CacheAdded: map[string]int{"cutlass": 1}},
			{Pass: "range", Experiment: "e", Cells: 1, Seconds: 3},
			{Pass: "range", Experiment: "e", Cells: 1, Seconds: 7},
		},
		Cells: []rundir.Cell{
			{Experiment: "e", Variant: "a", Shape: "n=1", GPU: &rundir.CellGPU{UUID: "GPU-a"}, Passes: map[string]rundir.PassStatus{
				"check": {Status: "ok", Seconds: 5, SharedBy: 1}, "range": {Status: "ok", Seconds: 3, SharedBy: 1}}},
			{Experiment: "e", Variant: "b", Shape: "n=1", GPU: &rundir.CellGPU{UUID: "GPU-b"}, Passes: map[string]rundir.PassStatus{
				"check": {Status: "ok", Seconds: 5, SharedBy: 1}, "range": {Status: "ok", Seconds: 7, SharedBy: 1}}},
		}}
	tr := timeOf(m)
	if len(tr.Shards) != 2 || tr.Shards[1].Cells != 1 || tr.Shards[1].Passes["range"] != 7 || tr.Shards[0].Passes["check"] != 5 {
		t.Fatalf("shards = %+v", tr.Shards)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, &Report{Time: tr}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| compile (warm stage) |    61.5 |",
		"warm stage compiled, without measuring, 4 kernels (4 new in the cache, the rest found there) in 4 processes side by side: 61.5 s",
		"| 1/2   | GPU-a |     1 |          10.0 |          8.0 |                 0.80 |   5.0 |   3.0 |",
		"| 2/2   | GPU-b |     1 |          10.0 |         12.0 |                 1.20 |   5.0 |   7.0 |",
		"the slowest shard measured 12.0 s, 1.20x the shards' mean",
		"| check | cutlass 1, triton 2 |", "| range | none                |",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("report.md lacks %q:\n%s", s, md.String())
		}
	}
}
