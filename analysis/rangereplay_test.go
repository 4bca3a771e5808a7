package analysis

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
)

// rangeRow adds one ncu range row of variant from export file, with its
// DRAM read/write bytes, and the meta row naming its replay (0: none).
func rangeRow(b *ingest.Builder, variant, file string, replay int, read, write float64) {
	id := b.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, File: file, Pass: ingest.PassRange,
		Experiment: expName, Variant: variant, Shape: shapeA, Name: "range"})
	for n, v := range map[string]float64{MDRAMRead: read, MDRAMWrite: write, MDuration: 5000, ML2Bytes: 4e6} {
		b.AddMetric(ingest.Metric{KernelID: id, Name: n, Value: v, Valid: true})
	}
	if replay > 0 {
		b.AddMeta(ingest.Meta{Source: ingest.SourceNCU, File: expName + "/" + variant + "/" + file, Key: ingest.MetaRangeReplay, Value: string(rune('0' + replay))})
	}
}

// TestRangeReplaysKeptApart: a cell's range rows from three exports are
// three replays (never one sum), in replay order; two variants that run
// the same two kernels but whose replays' ranges do not overlap are each
// warned (dram-disagree); a cell of one replay is compared with nothing.
// Figures by hand: unfused replays 60e6+10e6, 62e6+10e6, 61e6+10e6 ->
// [70e6 72e6 71e6], median 71e6; dual-acc 40e6+5e6 (replay 1, file
// sorting after replay 2's) and 41e6+5e6 -> [45e6 46e6]: 45-46 MB against
// 70-72 MB do not overlap -- but dual-acc runs other kernels, so only the
// graph variant (same kernels as unfused, 75e6 and 76e6 bytes) is warned.
func TestRangeReplaysKeptApart(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	f := fixture{b}
	for _, v := range []string{"unfused", "unfused-graph"} {
		f.ncuKernel(v, "gemm_a", 1000, ingest.PassKernel, map[string]float64{MDuration: 1000, ML2Bytes: 2e6})
		f.ncuKernel(v, "silu_mul", 1000, ingest.PassKernel, map[string]float64{MDuration: 1000, ML2Bytes: 2e6})
	}
	f.ncuKernel("dual-acc", "dual_gemm", 1000, ingest.PassKernel, map[string]float64{MDuration: 1000, ML2Bytes: 2e6})
	rangeRow(b, "unfused", "s.range.csv", 1, 60e6, 10e6)
	rangeRow(b, "unfused", "s.range.r2.csv", 2, 62e6, 10e6)
	rangeRow(b, "unfused", "s.range.r3.csv", 3, 61e6, 10e6)
	rangeRow(b, "dual-acc", "z.range.csv", 1, 40e6, 5e6)
	rangeRow(b, "dual-acc", "a.range.r2.csv", 2, 41e6, 5e6)
	rangeRow(b, "unfused-graph", "s.app-range.csv", 1, 70e6, 5e6)
	rangeRow(b, "unfused-graph", "s.app-range.r2.csv", 2, 71e6, 5e6)
	rangeRow(b, "eager", "s.range.csv", 0, 30e6, 0) // one replay, no meta (an older run)
	tb := b.Finish()
	b.Release()
	defer tb.Release()
	kf := KernelFacts(tb, gpu.Ceilings{}, Options{})
	got := map[string]CellFact{}
	for _, c := range CellFacts(tb, kf, nil, gpu.Ceilings{}, Options{}) {
		got[c.Variant] = c
	}
	for v, want := range map[string][]float64{"unfused": {70e6, 72e6, 71e6}, "dual-acc": {45e6, 46e6}, "unfused-graph": {75e6, 76e6}, "eager": {30e6}} {
		c := got[v]
		if !slices.Equal(c.DRAMBytesRangeReplays, want) {
			t.Errorf("%s: replays %v, want %v", v, c.DRAMBytesRangeReplays, want)
		}
	}
	if c := got["unfused"]; c.DRAMBytesRange != 71e6 || c.Kernels != 2 {
		t.Errorf("unfused: DRAM %v, kernels %d; want the median 71e6 and the kernel pass's 2", c.DRAMBytesRange, c.Kernels)
	}
	for v, n := range map[string]int{"unfused": 1, "unfused-graph": 1, "dual-acc": 0, "eager": 0} {
		var ws []string
		for _, w := range got[v].Warnings {
			if w.Code == WarnDRAMDisagree {
				ws = append(ws, w.Msg)
			}
		}
		if len(ws) != n {
			t.Errorf("%s: dram-disagree warnings %q, want %d", v, ws, n)
		}
		if n == 1 && !strings.Contains(ws[0], "70.00-72.00 MB (n=3) against 75.00-76.00 MB (n=2)") {
			t.Errorf("%s: %q lacks the figures", v, ws[0])
		}
	}
}
