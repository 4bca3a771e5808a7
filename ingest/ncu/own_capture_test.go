package ncu

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// rooftool's own ncu capture with nested NVTX ranges (the committed H100 run),
// pinned. Checked by hand with Python's csv module on the file: one row,
// Kernel Name "_dual_acc_kernel", gpu__time_duration.sum "88,256" ns,
// sm__ops_path_tensor_src_bf16_dst_fp32.sum "60,129,542,144" (= 2 GEMMs x
// 2*M*N*K at M=512, N=4096, K=7168), dram__bytes_read.sum "124,819,200",
// dram__bytes_write.sum "2,429,696", and the NVTX column holding the stack
// swiglu > dual-acc > M=512,N=4096,K=7168 in the default domain. The run
// keeps it gzipped (M=512,N=4096,K=7168.csv.gz), read as it is.
func TestOwnNCUCapture(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := filepath.Join("..", "..", "testdata", "runs", "2026-11-22-h100-003504", "raw", "ncu", "swiglu", "dual-acc", "M=512,N=4096,K=7168.csv.gz")
	tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	ks := tb.Kernels()
	if len(ks) != 1 {
		t.Fatalf("%d kernels, want 1", len(ks))
	}
	k := ks[0]
	if k.ShortName != "_dual_acc_kernel" || k.DurationNs != 88256 || k.Pass != ingest.PassKernel || k.Source != ingest.SourceNCU {
		t.Errorf("kernel = %+v", k)
	}
	if k.RangePath != "swiglu/dual-acc/M=512,N=4096,K=7168" || k.Range != "M=512,N=4096,K=7168" ||
		k.Experiment != "swiglu" || k.Variant != "dual-acc" || k.Shape != "M=512,N=4096,K=7168" {
		t.Errorf("NVTX attribution: range %q path %q cell %s/%s/%s", k.Range, k.RangePath, k.Experiment, k.Variant, k.Shape)
	}
	want := map[string]float64{
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum": 60129542144,
		"dram__bytes_read.sum":                      124819200,
		"dram__bytes_write.sum":                     2429696,
		"gpu__time_duration.sum":                    88256,
	}
	got := map[string]float64{}
	for _, m := range tb.Metrics() {
		if _, ok := want[m.Name]; ok && m.Valid && m.KernelID == k.ID {
			got[m.Name] = m.Value
		}
	}
	for n, v := range want {
		if got[n] != v {
			t.Errorf("%s = %v, want %v", n, got[n], v)
		}
	}
}
