package analysis

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// The limits of one kernel of the committed H100 run 2026-11-23-h100-161238,
// against the figures read from its raw ncu CSV with Python's csv module
// (raw/ncu/gated_ssm/triton-epilogue/B=16,T=2048,d=2048,H=16,dk=128,n=16.csv,
// the _mm_tma_store_kernel row): lts__t_sector_hit_rate.pct 76.22,
// sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active 87.55,
// smsp__average_warps_active_per_issue_active.ratio 8.66, and of the
// smsp__average_warps_issue_stalled_*_per_issue_active.ratio columns
// (selected left out) the three largest: barrier 2.45, long_scoreboard 2.26,
// wait 1.49.
func TestLimitsFromRealRun(t *testing.T) {
	dir := filepath.Join("..", "testdata", "runs", "2026-11-23-h100-161238", "tables")
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb, err := ingest.ReadDir(dir, mem)
	if err != nil {
		t.Skipf("run not committed: %v", err)
	}
	defer tb.Release()
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	run, err := Analyze(tb, exps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got *KernelFact
	for i := range run.Kernels {
		f := &run.Kernels[i]
		if f.Experiment == "gated_ssm" && f.Variant == "triton-epilogue" && f.Shape == "B=16,T=2048,d=2048,H=16,dk=128,n=16" && f.ShortName == "_mm_tma_store_kernel" {
			got = f
		}
	}
	if got == nil || got.Limits == nil {
		t.Fatalf("no limits for _mm_tma_store_kernel of triton-epilogue at d=2048 (fact %+v)", got)
	}
	l := got.Limits
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(l.L2HitPct, 76.22) || !near(l.TensorActivePct, 87.55) || !near(l.WarpsPerIssue, 8.66) {
		t.Errorf("L2 hit %v, tensor pipe %v, warps per issue %v; the CSV says 76.22, 87.55, 8.66", l.L2HitPct, l.TensorActivePct, l.WarpsPerIssue)
	}
	want := []Stall{{"barrier", 2.45}, {"long_scoreboard", 2.26}, {"wait", 1.49}}
	top := l.TopStalls(3)
	if len(top) != 3 {
		t.Fatalf("top stalls %v", top)
	}
	for i, w := range want {
		if top[i].Reason != w.Reason || !near(top[i].Warps, w.Warps) {
			t.Errorf("stall %d = %+v, the CSV says %+v", i, top[i], w)
		}
	}
	if _, ok := l.Stalls["selected"]; ok {
		t.Error(`"selected" (the warp that issued) is listed as a stall`)
	}
}

// TopStalls orders by warps, then by name, and leaves out zero reasons.
func TestTopStallsOrder(t *testing.T) {
	l := Limits{Stalls: map[string]float64{"wait": 1, "barrier": 2, "branch_resolving": 1, "sleeping": 0}}
	got := l.TopStalls(5)
	want := []Stall{{"barrier", 2}, {"branch_resolving", 1}, {"wait", 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
}
