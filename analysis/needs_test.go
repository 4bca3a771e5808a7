package analysis

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rooftool/rooftool/ingest"
)

// TestNeedsCoversAnalysis analyses each committed run twice, from an index
// of every valid metric row and from the index Needs filters, and wants the
// same Run: no step reads a metric that Needs leaves out.
func TestNeedsCoversAnalysis(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/runs/*/tables")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no runs: %v", err)
	}
	for _, dir := range dirs {
		tb, err := ingest.ReadDir(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		all := newMetricIndex(func(string) bool { return true })
		for _, m := range tb.Metrics() {
			if m.Valid {
				all.Add(m.KernelID, m.Name, m.Unit, m.Value)
			}
		}
		opts := Options{Ceilings: deviceCeilings(tb, all.byKernel)}
		want, err := analyzeIndexed(tb, all.byKernel, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Analyze(tb, nil, Options{Ceilings: DeviceCeilings(tb)})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, cmpopts.EquateNaNs()); d != "" {
			t.Errorf("%s: every metric vs the ones Needs keeps:\n%s", dir, d)
		}
		tb.Release()
	}
}

// TestNeeds pins names analysis reads and names it does not.
func TestNeeds(t *testing.T) {
	for name, want := range map[string]bool{
		"dram__bytes_read.sum":                                             true,
		"sm__sass_thread_inst_executed_op_ffma_pred_on.sum":                true,
		"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum":              true,
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained":         true,
		"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": true,
		"Memory Throughput":                                                true,
		"launch__grid_size":                                                false,
		"device__attribute_display_name":                                   false,
		"rule:SOLBottleneck":                                               false,
		"":                                                                 false,
	} {
		if got := Needs(name); got != want {
			t.Errorf("Needs(%q) = %v, want %v", name, got, want)
		}
	}
}
