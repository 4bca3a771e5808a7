package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/project"
	"github.com/rooftool/rooftool/reports"
	"github.com/rooftool/rooftool/suggest"
	"github.com/rooftool/rooftool/verdict"
)

const maskedShape = "M=512,N=4096,K=7168"

// writeMaskedRun writes a run directory by hand (invented numbers): swiglu
// at M=512, unfused (two GEMMs and silu_mul) and dual-acc (one kernel),
// through the timing, ncu kernel, ncu range and nsys passes. The tables
// hold rows of every pass of both cells; the manifest marks dual-acc's
// failed pass (rundir.PassNsys or rundir.PassNCU) failed. dual-acc's ncu
// kernel pass times dual_acc at 70 us, its nsys timeline at 50 us, so that
// a figure tells which pass it came from.
func writeMaskedRun(t *testing.T, dir, failed string) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	defer b.Release()
	kernel := func(source, pass, variant, name string, start, dur int64, m map[string]float64) {
		id := b.AddKernel(ingest.Kernel{Source: source, File: source + ".export", Pass: pass, Experiment: "swiglu", Variant: variant,
			Shape: maskedShape, Name: name, ShortName: name, StartNs: start, DurationNs: dur})
		for _, n := range []string{"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"} {
			if v, ok := m[n]; ok {
				b.AddMetric(ingest.Metric{KernelID: id, Name: n, Value: v, Valid: true})
			}
		}
	}
	ncu := func(variant, name string, dur int64, tensor, read, write float64) {
		kernel(ingest.SourceNCU, ingest.PassKernel, variant, name, 0, dur, map[string]float64{"gpu__time_duration.sum": float64(dur),
			"dram__bytes_read.sum": read, "dram__bytes_write.sum": write, "lts__t_bytes.sum": 2 * (read + write), "sm__ops_path_tensor_src_bf16_dst_fp32.sum": tensor})
	}
	gemm := 2 * 512.0 * 4096 * 7168
	ncu("unfused", "gemm1", 40000, gemm, 66e6, 4.2e6)
	ncu("unfused", "gemm2", 40000, gemm, 66e6, 4.2e6)
	ncu("unfused", "silu_mul", 6000, 0, 8.4e6, 4.2e6)
	ncu("dual-acc", "dual_acc", 70000, 2*gemm, 126e6, 4.2e6)
	kernel(ingest.SourceNCU, ingest.PassRange, "unfused", "range", 0, 86000, map[string]float64{"dram__bytes_read.sum": 138e6, "dram__bytes_write.sum": 12e6})
	kernel(ingest.SourceNCU, ingest.PassRange, "dual-acc", "range", 0, 70000, map[string]float64{"dram__bytes_read.sum": 126e6, "dram__bytes_write.sum": 4.2e6})
	for i, n := range []string{"gemm1", "gemm2", "silu_mul"} {
		kernel(ingest.SourceNsys, ingest.PassTimeline, "unfused", n, int64(i)*50000, []int64{39000, 39500, 5800}[i], nil)
	}
	kernel(ingest.SourceNsys, ingest.PassTimeline, "dual-acc", "dual_acc", 0, 50000, nil)
	for i := 0; i < 30; i++ {
		jitter := float64(i%7-3) * 0.0005
		b.AddTiming(ingest.Timing{Experiment: "swiglu", Variant: "unfused", Shape: maskedShape, File: "unfused.json", Method: "cuda-events", Rep: int32(i), Ms: 0.100 + jitter})
		b.AddTiming(ingest.Timing{Experiment: "swiglu", Variant: "dual-acc", Shape: maskedShape, File: "dual-acc.json", Method: "cuda-events", Rep: int32(i), Ms: 0.085 + jitter})
	}
	tb := b.Finish()
	defer tb.Release()
	if err := tb.Write(filepath.Join(dir, rundir.TablesDir), ingest.FormatParquet); err != nil {
		t.Fatal(err)
	}
	passes := func(failed string) map[string]rundir.PassStatus {
		m := map[string]rundir.PassStatus{}
		for _, p := range rundir.AllPasses {
			m[p] = rundir.PassStatus{Status: rundir.StatusOK}
		}
		if failed != "" {
			m[failed] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: "superseded attempt"}
		}
		return m
	}
	m := &rundir.Manifest{Tool: "rooftool", Version: "test", Created: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		GPU: rundir.GPUInfo{Name: "NVIDIA H100 80GB HBM3"}, Passes: rundir.AllPasses,
		Cells: []rundir.Cell{
			{Experiment: "swiglu", Variant: "unfused", Shape: maskedShape, Passes: passes("")},
			{Experiment: "swiglu", Variant: "dual-acc", Shape: maskedShape, Passes: passes(failed)},
		}}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
}

// TestMaskedPassSameFacts: with a failed nsys pass (and, apart, a failed
// ncu pass) of dual-acc, report, project and suggest state the same facts
// of the cell, none of them from the failed pass: each loads the run
// through pipeline.Load, whose analysis leaves the failed pass's rows out.
func TestMaskedPassSameFacts(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		failed    string
		timesNs   []float64 // dual-acc's kernel times: from the pass that did not fail
		ncuFacts  bool      // dual-acc has ncu kernel facts
		projected bool      // project projects dual-acc (it needs ncu kernels)
	}{
		{rundir.PassNsys, []float64{70000}, true, true},
		{rundir.PassNCU, []float64{50000}, false, false},
	} {
		t.Run(tc.failed, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "2026-11-22-masked-"+tc.failed)
			writeMaskedRun(t, dir, tc.failed)

			// project and suggest: the facts each command loads.
			_, proj, err := loadRun(ctx, dir, pipeline.Options{})
			if err != nil {
				t.Fatal(err)
			}
			in, err := pipeline.OpenInput([]string{dir}, pipeline.InputOptions{Committed: true})
			if err != nil || in.Kind != pipeline.KindRun {
				t.Fatalf("pipeline.OpenInput: %+v, %v", in, err)
			}
			sugRes, err := in.Load(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			sug := sugRes.Run
			if d := cmp.Diff(proj.Run, sug, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("project and suggest see different facts (-project +suggest):\n%s", d)
			}
			var cell analysis.CellFact
			for _, c := range sug.Cells {
				if c.Variant == "dual-acc" && c.Shape == maskedShape {
					cell = c
				}
			}
			if !slices.Equal(cell.KernelNames, []string{"dual_acc"}) || !slices.Equal(cell.KernelTimesNs, tc.timesNs) || cell.GPUTimeNs != tc.timesNs[0] {
				t.Errorf("dual-acc kernels %v times %v GPU time %v, want dual_acc at %v", cell.KernelNames, cell.KernelTimesNs, cell.GPUTimeNs, tc.timesNs)
			}
			var facts int
			for _, k := range sug.Kernels {
				if k.Variant == "dual-acc" {
					facts++
				}
			}
			if (facts > 0) != tc.ncuFacts || (!tc.ncuFacts && (cell.FLOPs != 0 || cell.DRAMBytesKernels != 0 || cell.L2Bytes != 0)) {
				t.Errorf("dual-acc: %d ncu kernel facts, FLOPs %v, kernel-pass DRAM %v, L2 %v; want ncu facts: %v", facts, cell.FLOPs, cell.DRAMBytesKernels, cell.L2Bytes, tc.ncuFacts)
			}

			// report: the row of the cell in report.json.
			out := filepath.Join(t.TempDir(), "report")
			var o, e bytes.Buffer
			if code := run(ctx, []string{"report", dir, "-o", out, "--files", "json"}, &IO{Out: &o, Err: &e}); code != 0 {
				t.Fatalf("report: exit %d: %s", code, e.String())
			}
			f, err := os.Open(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := reports.ReadJSON(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var row *verdict.CellRow
			for _, er := range rep.Experiments {
				for _, sr := range er.Shapes {
					for i := range sr.Rows {
						if er.Name == "swiglu" && sr.Shape == maskedShape && sr.Rows[i].Variant == "dual-acc" {
							row = &sr.Rows[i]
						}
					}
				}
			}
			if row == nil {
				t.Fatal("report.json has no swiglu dual-acc row")
			}
			if row.Kernels != cell.Kernels || !slices.Equal(row.KernelNames, cell.KernelNames) || row.GPUTimeNs != cell.GPUTimeNs ||
				row.DRAMBytes != cell.DRAMBytesRange || row.DRAMBytesKernels != cell.DRAMBytesKernels || row.FLOPs != cell.FLOPs || row.L2Bytes != cell.L2Bytes {
				t.Errorf("report row %+v differs from the facts project and suggest load %+v", *row, cell)
			}

			// project: the projection's source kernel sum and GPU time are
			// the cell's (its nsys GPU time only where it has a timeline).
			o.Reset()
			e.Reset()
			if code := run(ctx, []string{"project", dir, "--gpu", "h200", "--format", "json"}, &IO{Out: &o, Err: &e}); code != 0 {
				t.Fatalf("project: exit %d: %s", code, e.String())
			}
			var p struct{ project.Projection }
			if err := json.Unmarshal(o.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			projected := false
			for _, c := range p.Cells {
				if c.Variant != "dual-acc" {
					continue
				}
				projected = true
				wantGPU := 0.0
				if analysis.HasTimeline(cell) {
					wantGPU = cell.GPUTimeNs / 1e6
				}
				if c.SourceGPUMs != wantGPU || c.SourceKernelMs != cell.KernelPassTimeNs/1e6 || len(c.Kernels) != 1 || c.Kernels[0].MeasuredNs != 70000 {
					t.Errorf("project: dual-acc source GPU time %v ms, kernel sum %v ms, kernels %+v; want %v ms, %v ms and the ncu kernel pass's dual_acc",
						c.SourceGPUMs, c.SourceKernelMs, c.Kernels, wantGPU, cell.KernelPassTimeNs/1e6)
				}
			}
			if projected != tc.projected {
				t.Errorf("project: dual-acc projected %v, want %v", projected, tc.projected)
			}

			// suggest --against-run: the measured GPU time saved is the
			// cells' difference.
			o.Reset()
			e.Reset()
			if code := run(ctx, []string{"suggest", "--against-run", "--format", "json", dir}, &IO{Out: &o, Err: &e}); code != 0 {
				t.Fatalf("suggest: exit %d: %s", code, e.String())
			}
			var s struct {
				Checks []suggest.Check `json:"checks"`
			}
			if err := json.Unmarshal(o.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
			if len(s.Checks) != 1 || s.Checks[0].MeasTimeNs != 39000+39500+5800-cell.GPUTimeNs {
				t.Errorf("suggest --against-run: %+v; want one check, measured GPU time saved %v ns", s.Checks, 39000+39500+5800-cell.GPUTimeNs)
			}
		})
	}
}
