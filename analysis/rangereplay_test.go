package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/metric"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// rangeRow adds one ncu range row of variant from export file, with its
// DRAM read/write bytes, and the meta row naming its replay (0: none).
func rangeRow(b *ingest.Builder, variant, file string, replay int, read, write float64) {
	id := b.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, File: file, Pass: ingest.PassRange,
		Experiment: expName, Variant: variant, Shape: shapeA, Name: "range"})
	for n, v := range map[string]float64{metric.DRAMRead: read, metric.DRAMWrite: write, metric.Duration: 5000, metric.L2Bytes: 4e6} {
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
		f.ncuKernel(v, "gemm_a", 1000, ingest.PassKernel, map[string]float64{metric.Duration: 1000, metric.L2Bytes: 2e6})
		f.ncuKernel(v, "silu_mul", 1000, ingest.PassKernel, map[string]float64{metric.Duration: 1000, metric.L2Bytes: 2e6})
	}
	f.ncuKernel("dual-acc", "dual_gemm", 1000, ingest.PassKernel, map[string]float64{metric.Duration: 1000, metric.L2Bytes: 2e6})
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

// TestRangeCoverageJudgedAsRunner: each cell's range pass replayed three
// times against a kernel pass of 1000 ns and 2e6 L2 bytes, and the manifest
// the runner wrote for it (each replay's method and rundir.Coverage). The
// cell is range-partial exactly where the runner's judgement,
// rundir.Coverage.Complete with the replay's method, finds a replay short:
//
//   - app: app-range, every replay 0.5 of the time (replay overhead aside,
//     app-range's duration is not judged) and 0.95-1.05 of the L2 bytes:
//     complete;
//   - slow2: range, replay 2 at 0.8 of the time: partial, though its L2
//     bytes are no fewer than the other replays';
//   - retry: range, app-range (0.4 of the time, 0.95 of the bytes), range
//     at 0.85 of the bytes: partial, on replay 3;
//   - ok: range, every replay above 0.9 of both: complete;
//   - unlisted: app's figures, in no manifest: judged as range replay,
//     partial.
func TestRangeCoverageJudgedAsRunner(t *testing.T) {
	type replay struct {
		method     string
		timeNs, l2 float64
	}
	cells := map[string][]replay{
		"app":      {{rundir.MethodAppRange, 500, 2.0e6}, {rundir.MethodAppRange, 500, 1.9e6}, {rundir.MethodAppRange, 500, 2.1e6}},
		"slow2":    {{rundir.MethodRange, 1100, 2e6}, {rundir.MethodRange, 800, 2e6}, {rundir.MethodRange, 1200, 2e6}},
		"retry":    {{rundir.MethodRange, 1200, 2e6}, {rundir.MethodAppRange, 400, 1.9e6}, {rundir.MethodRange, 1100, 1.7e6}},
		"ok":       {{rundir.MethodRange, 1100, 2e6}, {rundir.MethodRange, 950, 1.85e6}, {rundir.MethodRange, 1000, 2.2e6}},
		"unlisted": {{rundir.MethodAppRange, 500, 2.0e6}, {rundir.MethodAppRange, 500, 1.9e6}, {rundir.MethodAppRange, 500, 2.1e6}},
	}
	want := map[string]bool{"app": false, "slow2": true, "retry": true, "ok": false, "unlisted": true}
	const kernelNs, kernelL2 = 1000, 2e6

	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	f := fixture{b}
	m := &rundir.Manifest{}
	runnerPartial := map[string]bool{}
	for v, rs := range cells {
		f.ncuKernel(v, "gemm", kernelNs, ingest.PassKernel, map[string]float64{metric.Duration: kernelNs, metric.L2Bytes: kernelL2})
		st := rundir.PassStatus{Status: rundir.StatusOK}
		for i, r := range rs {
			k := i + 1
			file := "s." + r.method + ".csv"
			if k > 1 {
				file = fmt.Sprintf("s.%s.r%d.csv", r.method, k)
			}
			id := b.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, File: file, Pass: ingest.PassRange,
				Experiment: expName, Variant: v, Shape: shapeA, Name: "range"})
			for n, x := range map[string]float64{metric.Duration: r.timeNs, metric.L2Bytes: r.l2, metric.DRAMRead: 3e6, metric.DRAMWrite: 1e6} {
				b.AddMetric(ingest.Metric{KernelID: id, Name: n, Value: x, Valid: true})
			}
			b.AddMeta(ingest.Meta{Source: ingest.SourceNCU, File: expName + "/" + v + "/" + file, Key: ingest.MetaRangeReplay, Value: strconv.Itoa(k)})
			cov := &rundir.Coverage{Time: rundir.CoverageRatio(r.timeNs, kernelNs), L2Bytes: rundir.CoverageRatio(r.l2, kernelL2),
				KernelTimeNs: kernelNs, RangeTimeNs: r.timeNs, KernelL2Bytes: kernelL2, RangeL2Bytes: r.l2}
			st.Replays = append(st.Replays, rundir.RangeReplay{Replay: k, Status: rundir.StatusOK, Method: r.method, Files: []string{file}, Coverage: cov})
			if k == 1 {
				st.Method, st.Files, st.Coverage = r.method, []string{file}, cov
			}
			if !cov.Complete(r.method) {
				runnerPartial[v] = true
			}
		}
		if v != "unlisted" {
			m.SetPass(expName, v, shapeA, rundir.PassRange, st)
		}
	}
	tb := b.Finish()
	b.Release()
	defer tb.Release()
	kf := KernelFacts(tb, gpu.Ceilings{}, Options{})
	got := map[string]CellFact{}
	for _, c := range CellFacts(tb, kf, nil, gpu.Ceilings{}, Options{Manifest: m}) {
		got[c.Variant] = c
	}
	for v, w := range want {
		c := got[v]
		if c.RangePartial != w || hasWarning(c.Warnings, WarnRangePartial, "dram_bytes") != w {
			t.Errorf("%s: range-partial %v (warned %v), want %v", v, c.RangePartial, hasWarning(c.Warnings, WarnRangePartial, "dram_bytes"), w)
		}
		if v != "unlisted" && c.RangePartial != runnerPartial[v] {
			t.Errorf("%s: analysis judges range-partial %v, the runner's manifest %v", v, c.RangePartial, runnerPartial[v])
		}
		if c.RangeCoverage == nil {
			t.Errorf("%s: no range coverage", v)
		}
	}
	// The coverage shown is the replay that fell short.
	if c := got["slow2"].RangeCoverage; c == nil || c.Time != 0.8 {
		t.Errorf("slow2: coverage %+v, want replay 2's time 0.8", c)
	}
	if c := got["retry"].RangeCoverage; c == nil || c.L2Bytes != 0.85 {
		t.Errorf("retry: coverage %+v, want replay 3's L2 bytes 0.85", c)
	}
}
