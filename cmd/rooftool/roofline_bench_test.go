package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
)

// benchFactsKernels and the metric names below make the synthetic long-form
// ncu metrics table of BenchmarkRooflineFacts: 50 metrics a kernel, 34 of
// them read by the analysis, 16 not.
const benchFactsKernels = 100000

var benchFactsMetrics = func() []string {
	ms := []string{
		metric.Duration, metric.DRAMRead, metric.DRAMWrite, metric.L2Bytes, metric.L1Bytes,
		metric.SMCycles, metric.SMClock, metric.DRAMClock, metric.L2Clock, metric.L1Clock,
		metric.DRAMPeak, metric.L2Peak, metric.L1Peak, metric.L2HitRate, metric.TensorActive,
		metric.IssueActive, metric.WarpsPerIssue,
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
		"dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	}
	for _, op := range []string{"fadd", "fmul", "ffma", "hadd", "hmul", "hfma"} {
		ms = append(ms, "sm__sass_thread_inst_executed_op_"+op+"_pred_on.sum")
	}
	for _, r := range []string{"barrier", "long_scoreboard", "math_pipe_throttle", "wait", "selected", "mio_throttle", "short_scoreboard"} {
		ms = append(ms, "smsp__average_warps_issue_stalled_"+r+"_per_issue_active.ratio")
	}
	for i := 0; len(ms) < 50; i++ {
		ms = append(ms, fmt.Sprintf("launch__attribute_%02d", i))
	}
	return ms
}()

// BenchmarkRooflineFacts builds roofline's facts (roofs and Run) from a
// synthetic tables directory of 100000 ncu kernels x 50 metrics (5M
// metric rows), in a child process per path so that each peak RSS is its own:
// the tables read whole (CeilingsFor, Analyze) and the metrics table
// scanned batch by batch (openRooflineInput, AnalyzeIndexed). It reports
// each path's wall time and peak RSS and their ratios.
func BenchmarkRooflineFacts(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "tables")
	bl := ingest.NewBuilder(nil)
	for k := 0; k < benchFactsKernels; k++ {
		id := bl.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, File: "synthetic.ncu.csv", Pass: ingest.PassKernel,
			Name: fmt.Sprintf("gemm_kernel_%d", k%97), DurationNs: int64(10000 + k%5000)})
		for j, m := range benchFactsMetrics {
			bl.AddMetric(ingest.Metric{KernelID: id, Name: m, Unit: "", Value: float64(1e6 + 31*k + 7*j), Valid: true})
		}
	}
	t := bl.Finish()
	bl.Release()
	if err := t.Write(dir, ingest.FormatParquet); err != nil {
		b.Fatal(err)
	}
	rows := t.NumRows(ingest.TableMetrics)
	t.Release()
	b.ResetTimer()
	for b.Loop() {
		var secs, mb [2]float64
		for i, path := range []string{"memory", "stream"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRooflineFactsChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "ROOFTOOL_FACTS_PATH="+path, "ROOFTOOL_FACTS_DIR="+dir)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", path, err, out)
			}
			secs[i] = time.Since(start).Seconds()
			mb[i] = float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024 // KiB on Linux
		}
		b.ReportMetric(secs[0], "memory-s")
		b.ReportMetric(secs[1], "stream-s")
		b.ReportMetric(mb[0], "memory-peak-MiB")
		b.ReportMetric(mb[1], "stream-peak-MiB")
		b.ReportMetric(mb[1]/mb[0], "stream/memory-RSS")
		b.ReportMetric(secs[1]/secs[0], "stream/memory-time")
		b.ReportMetric(float64(rows), "metric-rows")
	}
}

// TestRooflineFactsChild is BenchmarkRooflineFacts' child process: it
// builds the facts of ROOFTOOL_FACTS_DIR by the path ROOFTOOL_FACTS_PATH
// names, and is skipped without it.
func TestRooflineFactsChild(t *testing.T) {
	path, dir := os.Getenv("ROOFTOOL_FACTS_PATH"), os.Getenv("ROOFTOOL_FACTS_DIR")
	if path == "" {
		t.Skip("run by BenchmarkRooflineFacts")
	}
	var run *analysis.Run
	var err error
	if path == "memory" {
		tb, rerr := ingest.ReadDir(dir, nil)
		if rerr != nil {
			t.Fatal(rerr)
		}
		ceil := gpu.CeilingsFor(analysis.DeviceCeilings(tb), "h100-sxm", nil)
		run, err = analysis.Analyze(tb, []*spec.Experiment{}, analysis.Options{Ceilings: ceil})
	} else {
		in, oerr := pipeline.OpenInput([]string{dir}, pipeline.InputOptions{})
		if oerr != nil {
			t.Fatal(oerr)
		}
		x, oerr := in.ReadIndexed(0)
		if oerr != nil {
			t.Fatal(oerr)
		}
		defer x.Close()
		ceil := gpu.CeilingsFor(analysis.DeviceCeilingsIndexed(x.Tables, x.Metrics), "h100-sxm", nil)
		run, err = analysis.AnalyzeIndexed(x.Tables, x.Metrics, []*spec.Experiment{}, analysis.Options{Ceilings: ceil})
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Kernels) != benchFactsKernels {
		t.Fatalf("%d kernel facts, want %d", len(run.Kernels), benchFactsKernels)
	}
}
