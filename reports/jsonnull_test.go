package reports

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A failed cell measured nothing: the synthetic run's swiglu/gemm2-epilogue
// failed its timing pass and skipped the profiling passes, so report.json
// gives its kernels, gpu_time_ns, dram_bytes, l2_bytes and flops as null,
// not 0; an ok cell (dual-acc: 1 kernel) keeps its figures.
func TestFailedCellFiguresNull(t *testing.T) {
	var js bytes.Buffer
	if err := WriteJSON(&js, syntheticReport(t)); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Experiments []struct {
			Name   string `json:"name"`
			Shapes []struct {
				Rows []map[string]any `json:"rows"`
			} `json:"shapes"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range rep.Experiments {
		if e.Name != "swiglu" {
			continue
		}
		for _, s := range e.Shapes {
			for _, r := range s.Rows {
				switch r["variant"] {
				case "gemm2-epilogue":
					seen++
					for _, k := range []string{"kernels", "elementwise_kernels", "gpu_time_ns", "dram_bytes", "dram_bytes_kernels", "l2_bytes", "flops"} {
						if v, ok := r[k]; !ok || v != nil {
							t.Errorf("failed cell: %s = %v (present %v), want null", k, v, ok)
						}
					}
				case "dual-acc":
					seen++
					if r["kernels"] != 1.0 {
						t.Errorf("ok cell: kernels = %v, want 1", r["kernels"])
					}
				}
			}
		}
	}
	if seen < 2 {
		t.Fatalf("found %d of the two swiglu rows", seen)
	}
}
