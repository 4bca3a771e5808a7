package roofline

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/pipeline"
)

// Counters that are there and read zero: no ncu command to collect them.
func TestCollectHintNothingMissing(t *testing.T) {
	if h := points.hint(nil); h != "" {
		t.Errorf("nothing missing: hint %q", h)
	}
}

// TestCCMismatchCatalogCC: a device named without a CC column has its
// catalog entry's compute capability; one the catalog lacks has none, and
// no warning.
func TestCCMismatchCatalogCC(t *testing.T) {
	resolve := func(name string) pipeline.GPU {
		t.Helper()
		spec, err := gpu.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		return pipeline.GPU{Name: name, Spec: spec}
	}
	h100 := []ingest.GPU{{Name: "NVIDIA H100 80GB HBM3"}}
	if w := ccMismatch(resolve("h100-pcie"), h100); w != nil {
		t.Errorf("H100 export, --gpu h100-pcie (both 9.0): %q", w)
	}
	if w := ccMismatch(resolve("a100-sxm-80"), h100); len(w) != 1 || !strings.Contains(w[0], "NVIDIA H100 80GB HBM3 (compute capability 9.0)") || !strings.Contains(w[0], "(compute capability 8.0)") {
		t.Errorf("H100 export, --gpu a100-sxm-80: %q", w)
	}
	if w := ccMismatch(resolve("h100"), []ingest.GPU{{Name: "some GPU the catalog lacks"}}); w != nil {
		t.Errorf("unknown device without CC: %q", w)
	}
	if w := ccMismatch(pipeline.GPU{}, h100); w != nil {
		t.Errorf("no --gpu: %q", w)
	}
}
