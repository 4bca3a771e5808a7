//go:build cgo

package nsys

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// rooftool's own nsys capture, the same cell: the kernels launched inside the
// cell's NVTX range (runtime call on the same thread) are exactly the one
// dual-accumulator kernel. Checked with the sqlite3 CLI on the gunzipped
// export: of the five push/pop ranges "M=512,N=4096,K=7168", the one under
// "dual-acc" (start 6607531170) encloses runtime calls whose correlationIds match one
// CUPTI_ACTIVITY_KIND_KERNEL row, _dual_acc_kernel.
func TestOwnNsysCapture(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := filepath.Join("..", "..", "testdata", "runs", "2026-11-22-h100-003504", "raw", "nsys", "swiglu", "part-1.sqlite.gz")
	tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	var in []ingest.Kernel
	for _, k := range tb.Kernels() {
		if k.Experiment == "swiglu" && k.Variant == "dual-acc" && k.Shape == "M=512,N=4096,K=7168" {
			in = append(in, k)
		}
	}
	if len(in) != 1 || in[0].ShortName != "_dual_acc_kernel" || in[0].RangePath != "swiglu/dual-acc/M=512,N=4096,K=7168" {
		t.Fatalf("cell kernels = %+v, want the one _dual_acc_kernel", in)
	}
	gpus := tb.GPUs()
	if len(gpus) == 0 || gpus[0].Name != "NVIDIA H100 80GB HBM3" {
		t.Errorf("gpus = %+v", gpus)
	}
}
