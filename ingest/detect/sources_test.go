package detect

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// htaTrace is a Kineto trace of HolisticTraceAnalysis.
const htaTrace = ingesttest.Realdata + "HolisticTraceAnalysis/critical_path__benchmark_result_2869224_1695835535_trace.json.gz"

// What each parser leaves unknown in real exports: ncu never has a start
// or a thread; the 2020-era ncu layout lacks launch geometry (its duration
// comes from sm__cycles_elapsed.avg / .per_second);
// nsys states everything; Kineto states shared memory as one figure.
func TestSourceNulls(t *testing.T) {
	ncu := ingest.NullStart | ingest.NullTID
	for _, c := range []struct {
		file string
		want ingest.Nulls
	}{
		{ingesttest.Realdata + "ESMM-Research/metrics.csv", ncu | ingest.NullRegisters | ingest.NullStaticShared | ingest.NullDynShared},
		{ingesttest.Realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", ncu},
		{ingesttest.Realdata + "gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv", ncu | ingest.NullDevice | ingest.NullLaunch},
		{ingesttest.Realdata + "DLProf/nsys_profile.sqlite", 0},
		{htaTrace, ingest.NullDynShared},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		tb, err := File(c.file, ingest.Options{}, mem)
		if err != nil && strings.Contains(err.Error(), "CGO_ENABLED=0") {
			continue // go-sqlite3 is a stub without cgo
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tb.Kernels() {
			if k.Null != c.want {
				t.Errorf("%s: kernel %d Null %#x, want %#x", filepath.Base(c.file), k.ID, k.Null, c.want)
				break
			}
		}
		for _, r := range tb.Ranges() {
			if r.Null != 0 {
				t.Errorf("%s: range %d Null %#x, want 0", filepath.Base(c.file), r.ID, r.Null)
				break
			}
		}
		tb.Release()
		mem.AssertSize(t, 0)
	}
}
