package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// TestRooflineStreamMatchesInMemory builds roofline's facts both ways, from
// the tables read whole (detect.Files or the run's tables, CeilingsFor,
// Analyze) and from the metrics table scanned in small batches
// (openRooflineInput), and wants the same roofs, the same Run and the same
// charts, byte for byte. The inputs are the real exports the roofline
// tests draw and the committed runs. metricRows and ncuKernels, where
// given, are the metrics table's rows and its ncu kernel-pass rows (not
// range, not timeline) as pyarrow counts them in the run's tables.
func TestRooflineStreamMatchesInMemory(t *testing.T) {
	const runs = "../../testdata/runs/"
	cases := []struct {
		input, gpu             string
		batch                  int
		metricRows, ncuKernels int
	}{
		{input: realdata + "ESMM-Research/metrics.csv", gpu: "rtx-a4500", batch: 8},
		{input: realdata + "gpu4/report.sqlite", batch: 64},
		{input: realdata + "gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv", batch: 8},
		{input: realdata + "llm-perf-opt/kernel_0001.ncu.details.csv", gpu: "rtx-5090", batch: 16},
		{input: realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", batch: 64},
		{input: runs + "2026-11-22-h100-003504", batch: 4096, metricRows: 68646, ncuKernels: 170},
		{input: runs + "2026-11-22-h100-034455", batch: 4096, metricRows: 51809, ncuKernels: 129},
		{input: runs + "2026-11-22-h200-004838", batch: 4096, metricRows: 0, ncuKernels: 0},
		{input: runs + "2026-11-23-h100-140505", batch: 4096, metricRows: 30466, ncuKernels: 66},
		{input: runs + "2026-11-23-h100-161238", batch: 4096, metricRows: 99986, ncuKernels: 221},
	}
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.input), func(t *testing.T) {
			// In memory, as roofline read its input before it streamed.
			var whole *ingest.Tables
			runDir := ""
			if st, err := os.Stat(c.input); err == nil && st.IsDir() {
				r, err := rundir.Open(c.input)
				if err != nil {
					t.Fatal(err)
				}
				if whole, err = r.Tables(nil); err != nil {
					t.Fatal(err)
				}
				runDir = c.input
			} else if whole, err = detect.Files([]ingest.Input{{Path: c.input}}, nil); err != nil {
				t.Fatal(err)
			}
			defer whole.Release()
			var measured *gpu.Measured
			if p := filepath.Join(runDir, rundir.CeilingsFile); runDir != "" {
				if _, err := os.Stat(p); err == nil {
					if measured, err = gpu.ReadMeasured(p); err != nil {
						t.Fatal(err)
					}
				}
			}
			ceilMem := gpu.CeilingsFor(analysis.DeviceCeilings(whole), c.gpu, measured)
			runMem, err := analysis.Analyze(whole, exps, analysis.Options{Ceilings: ceilMem})
			if err != nil {
				t.Fatal(err)
			}

			in, err := openRooflineInput([]string{c.input}, c.batch)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.runDir != runDir {
				t.Errorf("run dir %q, want %q", in.runDir, runDir)
			}
			if n := in.t.NumRows(ingest.TableMetrics); n != 0 {
				t.Errorf("streamed tables hold %d metric rows, want none", n)
			}
			ceil := gpu.CeilingsFor(analysis.DeviceCeilingsIndexed(in.t, in.metrics), c.gpu, measured)
			run, err := analysis.AnalyzeIndexed(in.t, in.metrics, exps, analysis.Options{Ceilings: ceil})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(ceilMem, ceil); d != "" {
				t.Errorf("ceilings differ (-in memory +streamed):\n%s", d)
			}
			if d := cmp.Diff(runMem, run, cmpopts.EquateNaNs()); d != "" {
				t.Errorf("runs differ (-in memory +streamed):\n%s", d)
			}

			// The scan went through several batches where the table has rows.
			batches, rows := 0, 0
			if err := ingest.ScanMetrics(in.dir, []string{"kernel_id"}, c.batch, func(b *ingest.MetricBatch) error {
				batches++
				rows += b.Rows
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if int64(rows) != whole.NumRows(ingest.TableMetrics) {
				t.Errorf("scanned %d metric rows, the table has %d", rows, whole.NumRows(ingest.TableMetrics))
			}
			if rows > c.batch && batches < 2 {
				t.Errorf("%d metric rows in %d batch(es) of %d", rows, batches, c.batch)
			}
			if runDir != "" {
				if rows != c.metricRows {
					t.Errorf("metric rows %d, want %d", rows, c.metricRows)
				}
				if len(run.Kernels) != c.ncuKernels {
					t.Errorf("%d kernel facts, want %d", len(run.Kernels), c.ncuKernels)
				}
			}

			// The charts, file lists, roofs and warnings, byte for byte.
			type drawn struct {
				out, err, failed string
				files            map[string][]byte
			}
			draw := func(tb *ingest.Tables, ceil gpu.Ceilings, run *analysis.Run) drawn {
				var o, e bytes.Buffer
				dir := t.TempDir()
				err := drawRoofline(&RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: dir, GPU: c.gpu, Inputs: []string{c.input}}, in.dir, tb.GPUs(), exps, ceil, run)
				d := drawn{out: strings.ReplaceAll(o.String(), dir, "OUT"), err: e.String(), files: map[string][]byte{}}
				if err != nil {
					d.failed = err.Error()
				}
				ents, _ := os.ReadDir(dir)
				for _, f := range ents {
					b, err := os.ReadFile(filepath.Join(dir, f.Name()))
					if err != nil {
						t.Fatal(err)
					}
					d.files[f.Name()] = b
				}
				return d
			}
			mem, str := draw(whole, ceilMem, runMem), draw(in.t, ceil, run)
			if mem.out != str.out || mem.err != str.err || mem.failed != str.failed {
				t.Errorf("in memory: out %q err %q failed %q\nstreamed: out %q err %q failed %q", mem.out, mem.err, mem.failed, str.out, str.err, str.failed)
			}
			if len(mem.files) != len(str.files) {
				t.Errorf("%d files in memory, %d streamed", len(mem.files), len(str.files))
			}
			for name, b := range mem.files {
				if !bytes.Equal(b, str.files[name]) {
					t.Errorf("%s differs", name)
				}
			}
			t.Logf("%d metric rows in %d batches, %d kernel facts, %d files", rows, batches, len(run.Kernels), len(str.files))
		})
	}
}
