package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/metric"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// TestRangeBelowFloor replays the figures of an eager cell measured on an
// H100: six kernels whose kernel pass sums 12.75 GB of DRAM, and two
// device-to-device copies of 536,870,912 bytes inside its NVTX range
// (nsys). Its range read 6.980 + 5.911 = 12.891 GB in a shared
// (per-experiment) range process and 8.054 + 6.979 = 15.033 GB alone
// (per-cell; variant "alone" below, the same kernels and copies).
//
// By hand, L2 50 MiB = 52,428,800 bytes: copies 2 x 2 x 536,870,912 =
// 2,147,483,648 bytes (read and written); L2 reuse (6 kernels + 2 copies +
// 1) x 52,428,800 = 471,859,200; floor 12,750,000,000 + 2,147,483,648 -
// 471,859,200 = 14,425,624,448. 12.891 GB is 1,534,624,448 short (one
// replay: spread 0): warned, its DRAM claims void; 15.033 GB clears it.
// The range still covers the kernel pass (time 5,000 ns against 6 x 800,
// L2 bytes 4e6 against 6 x 0.6e6), so range-partial does not fire: only
// the floor sees the lost copies.
func TestRangeBelowFloor(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	f := fixture{b}
	for _, v := range []string{"eager", "alone"} {
		for i := 0; i < 6; i++ {
			name := "k" + string(rune('a'+i))
			f.ncuKernel(v, name, 800, ingest.PassKernel, map[string]float64{metric.Duration: 800, metric.L2Bytes: 0.6e6, metric.DRAMRead: 1.5e9, metric.DRAMWrite: 0.625e9})
			f.nsysKernel(v, name, int64(100+20*i), 10)
		}
		// The cell's NVTX ranges and its two copies under them.
		p := b.AddRange(ingest.Range{Source: ingest.SourceNsys, File: "t.sqlite", Kind: ingest.RangePushPop, Text: expName, Path: expName, StartNs: 1, EndNs: 1000})
		p2 := b.AddRange(ingest.Range{Source: ingest.SourceNsys, File: "t.sqlite", Kind: ingest.RangePushPop, Text: v, Path: expName + "/" + v, Depth: 1, ParentID: &p, StartNs: 2, EndNs: 999})
		p3 := b.AddRange(ingest.Range{Source: ingest.SourceNsys, File: "t.sqlite", Kind: ingest.RangePushPop, Text: shapeA, Path: expName + "/" + v + "/" + shapeA, Depth: 2, ParentID: &p2, StartNs: 3, EndNs: 998})
		for i := 0; i < 2; i++ {
			b.AddRange(ingest.Range{Source: ingest.SourceNsys, File: "t.sqlite", Kind: ingest.RangeMemcpy, Text: "memcpy DtoD 536870912 B",
				Path: expName + "/" + v + "/" + shapeA + "/memcpy DtoD 536870912 B", Depth: 3, ParentID: &p3, StartNs: 500, EndNs: 600})
		}
	}
	rangeRow(b, "eager", "s.range.csv", 1, 6.980e9, 5.911e9)
	rangeRow(b, "alone", "s.range.csv", 1, 8.054e9, 6.979e9)
	tb := b.Finish()
	b.Release()
	defer tb.Release()
	man := &rundir.Manifest{}
	man.SetPass(expName, "eager", shapeA, rundir.PassRange, rundir.PassStatus{Status: rundir.StatusOK, Method: rundir.MethodRange, Process: rundir.ProcessShared})
	man.SetPass(expName, "alone", shapeA, rundir.PassRange, rundir.PassStatus{Status: rundir.StatusOK, Method: rundir.MethodRange, Process: rundir.ProcessAlone})
	opts := Options{Manifest: man, L2Bytes: 52428800}
	got := map[string]CellFact{}
	for _, c := range CellFacts(tb, KernelFacts(tb, gpu.Ceilings{}, opts), nil, gpu.Ceilings{}, opts) {
		got[c.Variant] = c
	}
	e, a := got["eager"], got["alone"]
	var w *Warning
	for i := range e.Warnings {
		if e.Warnings[i].Code == WarnRangeBelowFloor {
			w = &e.Warnings[i]
		}
	}
	for _, w := range e.Warnings {
		if w.Code == WarnRangePartial {
			t.Errorf("eager: %s: the fixture's range covers its kernel pass (1.04 of its time, 1.11 of its L2 bytes), as the H100 range did", w.Msg)
		}
	}
	if w == nil || e.RangeBelowFloor == nil {
		t.Fatalf("eager: warnings %+v, below floor %+v; want %s", e.Warnings, e.RangeBelowFloor, WarnRangeBelowFloor)
	}
	fl := e.RangeBelowFloor
	if fl.CopyDRAMBytes != 2147483648 || fl.ReuseBytes != 471859200 || math.Abs(fl.FloorBytes-14425624448) > 1 || math.Abs(fl.RangeDRAMBytes-12.891e9) > 1 {
		t.Errorf("eager floor %+v: want copies 2,147,483,648, reuse 471,859,200, floor 14,425,624,448, range 12.891e9", *fl)
	}
	if w.Metric != "dram_bytes" || !strings.Contains(w.Msg, "1.53 GB below") || !strings.Contains(w.Msg, "measured per-experiment") {
		t.Errorf("eager warning %+v: want dram_bytes, 1.53 GB below, measured per-experiment", *w)
	}
	if e.RangeProcess != rundir.ProcessShared || a.RangeProcess != rundir.ProcessAlone {
		t.Errorf("range processes %q, %q; want shared, alone", e.RangeProcess, a.RangeProcess)
	}
	for _, w := range a.Warnings {
		if w.Code == WarnRangeBelowFloor {
			t.Errorf("alone: %s", w.Msg)
		}
	}
}
