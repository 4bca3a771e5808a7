package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/verdict"
)

// writeSyntheticRunDir writes a run directory by hand (invented numbers,
// labelled so): swiglu at M=512 with unfused (3 kernels) and dual-acc
// (1 kernel), through every pass rooftool profile makes.
func writeSyntheticRunDir(t *testing.T, dir string, mem memory.Allocator) {
	t.Helper()
	const exp = "swiglu"
	b := ingest.NewBuilder(mem)
	defer b.Release()
	for _, sc := range []struct {
		shape string
		f     float64 // scale of times and bytes against M=512
	}{{"M=512,N=4096,K=7168", 1}, {"M=1024,N=4096,K=7168", 2}} {
		shape, f := sc.shape, sc.f
		ncu := func(variant, name string, durNs float64, pass string, m map[string]float64) {
			id := b.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, File: "k.csv", Pass: pass, Experiment: exp, Variant: variant,
				Shape: shape, Name: name, ShortName: name, DurationNs: int64(durNs * f)})
			for _, n := range []string{"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum"} {
				if v, ok := m[n]; ok {
					b.AddMetric(ingest.Metric{KernelID: id, Name: n, Unit: "", Value: v * f, Valid: true})
				}
			}
		}
		gemm := map[string]float64{"gpu__time_duration.sum": 40000, "dram__bytes_read.sum": 66e6, "dram__bytes_write.sum": 4.2e6, "lts__t_bytes.sum": 300e6}
		silu := map[string]float64{"gpu__time_duration.sum": 6000, "dram__bytes_read.sum": 8.4e6, "dram__bytes_write.sum": 4.2e6, "lts__t_bytes.sum": 17e6}
		dual := map[string]float64{"gpu__time_duration.sum": 70000, "dram__bytes_read.sum": 126e6, "dram__bytes_write.sum": 4.2e6, "lts__t_bytes.sum": 600e6}
		ncu("unfused", "gemm1", 40000, ingest.PassKernel, gemm)
		ncu("unfused", "gemm2", 40000, ingest.PassKernel, gemm)
		ncu("unfused", "silu_mul", 6000, ingest.PassKernel, silu)
		ncu("dual-acc", "dual_acc", 70000, ingest.PassKernel, dual)
		ncu("unfused", "range", 86000, ingest.PassRange, map[string]float64{"dram__bytes_read.sum": 138e6, "dram__bytes_write.sum": 12e6})
		ncu("dual-acc", "range", 70000, ingest.PassRange, map[string]float64{"dram__bytes_read.sum": 126e6, "dram__bytes_write.sum": 4.2e6})
		for i, n := range []string{"gemm1", "gemm2", "silu_mul"} {
			b.AddKernel(ingest.Kernel{Source: ingest.SourceNsys, File: "t.sqlite", Pass: ingest.PassTimeline, Experiment: exp, Variant: "unfused",
				Shape: shape, Name: n, ShortName: n, StartNs: int64(i) * 50000, DurationNs: int64(40000 * f)})
		}
		b.AddKernel(ingest.Kernel{Source: ingest.SourceNsys, File: "t.sqlite", Pass: ingest.PassTimeline, Experiment: exp, Variant: "dual-acc",
			Shape: shape, Name: "dual_acc", ShortName: "dual_acc", DurationNs: int64(70000 * f)})
		b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: shape + ".json", Key: "clock.sm_mhz", Value: fmt.Sprint(1900 + 80*f)})
		for i := 0; i < 30; i++ {
			jitter := float64(i%7-3) * 0.0005
			b.AddTiming(ingest.Timing{Experiment: exp, Variant: "unfused", Shape: shape, File: shape + ".json", Device: "synthetic", Method: "cuda-events", Rep: int32(i), Ms: 0.100*f + jitter})
			b.AddTiming(ingest.Timing{Experiment: exp, Variant: "dual-acc", Shape: shape, File: shape + ".json", Device: "synthetic", Method: "cuda-events", Rep: int32(i), Ms: 0.075*f + jitter})
		}
	}
	const shape = "M=512,N=4096,K=7168"
	tb := b.Finish()
	defer tb.Release()
	if err := tb.Write(filepath.Join(dir, "tables"), ingest.FormatParquet); err != nil {
		t.Fatal(err)
	}
	ok := rundir.PassStatus{Status: rundir.StatusOK}
	all := map[string]rundir.PassStatus{}
	for _, p := range rundir.AllPasses {
		all[p] = ok
	}
	m := &rundir.Manifest{Tool: "rooftool", Version: "test", Created: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		GPU:    rundir.GPUInfo{Name: "synthetic fixture (not a measurement)", L2Bytes: 50 << 20},
		Passes: rundir.AllPasses,
		Cells: []rundir.Cell{{Experiment: exp, Variant: "unfused", Shape: shape, Passes: all}, {Experiment: exp, Variant: "dual-acc", Shape: shape, Passes: all},
			{Experiment: exp, Variant: "dual-acc-persistent", Shape: shape, Passes: map[string]rundir.PassStatus{rundir.PassCheck: {Status: rundir.StatusFailed, Reason: "max_rel_err 0.5 > tolerance 0.02"}}}},
	}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	ck, _ := json.Marshal(map[string]any{"experiment": exp, "variant": "dual-acc", "shape": shape, "ok": true, "max_abs_err": 0.01, "max_rel_err": 0.004, "tolerance": 0.02})
	p := filepath.Join(dir, "raw", "check", exp, "dual-acc", shape+".check.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, ck, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWriteRun(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "2026-11-22-synthetic-1")
	writeSyntheticRunDir(t, dir, mem)
	out := filepath.Join(t.TempDir(), "out")
	if err := writeRunMem(context.Background(), openRun(t, dir), out, []string{"md", "json", "html"}, mem); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# rooftool report: 2026-11-22-synthetic-1",
		"| swiglu     | single-kernel ", // the decision table
		"kernel_count(dual-acc) <= 1",
		"speedup",
		"dual-acc-persistent: check pass failed: max_rel_err 0.5 > tolerance 0.02",
		"### swiglu `M=512,N=4096,K=7168`",
		"Not in this run, so not evaluated here: gated_ssm (55), gla_proj (9), scan_gate (6), swiglu_fp8 (4) (NOT MEASURED in report.json).",
		"Clocks read after each cell's timing (NVML): SM 1980-2060 MHz",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	f, err := os.Open(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "| gla_proj ") || strings.Contains(string(md), "## gla_proj") {
		t.Error("report.md shows claims or a section of gla_proj, which the run does not have")
	}
	got := map[string]string{}
	glaAbsent := 0
	for _, d := range r.Decisions {
		if d.Experiment == "swiglu" {
			got[d.Claim] = d.Verdict
		}
		if d.Experiment == "gla_proj" && d.Verdict == verdict.VerdictNotMeasured && strings.Contains(d.Reason, "experiment gla_proj is not in this run") {
			glaAbsent++
		}
	}
	if glaAbsent == 0 {
		t.Error("report.json lacks gla_proj's claims as NOT MEASURED (experiment not in this run)")
	}
	// 1 kernel; 130.2 MB <= 135 MB; 75 us misses <= 15 us; gemm2-epilogue
	// absent; dual-acc-persistent failed its check.
	want := map[string]string{"single-kernel": verdict.VerdictGo, "no-intermediate": verdict.VerdictGo, "latency": verdict.VerdictNoGo,
		"two-kernels": verdict.VerdictNotMeasured, "persistent-latency": verdict.VerdictNotMeasured}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("swiglu/%s: %s, want %s", k, got[k], v)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
	// The plots the report links to exist.
	var plots []string
	for _, e := range r.Experiments {
		for _, p := range e.Plots {
			plots = append(plots, p.Path)
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(p.Path))); err != nil {
				t.Error(err)
			}
		}
	}
	if len(plots) < 2 {
		t.Errorf("plots %v: want the roofline at M=512 and the M sweep", plots)
	}
	// Deterministic: a second render is byte-identical.
	out2 := filepath.Join(t.TempDir(), "out2")
	if err := writeRunMem(context.Background(), openRun(t, dir), out2, nil, mem); err != nil {
		t.Fatal(err)
	}
	md2, _ := os.ReadFile(filepath.Join(out2, "report.md"))
	if string(md) != string(md2) {
		t.Error("two renders of the same run differ")
	}
	for _, p := range plots {
		a, _ := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		b, _ := os.ReadFile(filepath.Join(out2, filepath.FromSlash(p)))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s: empty or differs between two renders", p)
		}
	}
}

func TestWriteRunErrors(t *testing.T) {
	ctx := context.Background()
	if err := Write(ctx, &pipeline.Result{Name: "r"}, t.TempDir(), []string{"pdf"}); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
		t.Errorf("format pdf: %v", err)
	}
	if _, err := rundir.Open(filepath.Join(t.TempDir(), "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing run: %v", err)
	}
	if err := writeRunMem(ctx, openRun(t, t.TempDir()), "", nil, nil); err == nil || !strings.Contains(err.Error(), "kernels") {
		t.Errorf("run without tables: %v", err)
	}
	if err := Write(ctx, &pipeline.Result{Name: "embedded"}, "", nil); err == nil || !strings.Contains(err.Error(), "output directory") {
		t.Errorf("embedded run without an output directory: %v", err)
	}
}

// openRun opens a run directory or fails the test.
func openRun(t *testing.T, dir string) *rundir.Run {
	t.Helper()
	run, err := rundir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestRunLineDirtyCommit(t *testing.T) {
	got := runLine(RunInfo{GitCommit: "57f5d52608b96f13b1c08652e9a5c7db256a1e41-dirty"})
	if !strings.Contains(got, "commit 57f5d52608b9 (tree differed from it)") {
		t.Errorf("dirty: %q", got)
	}
	got = runLine(RunInfo{GitCommit: "57f5d52608b96f13b1c08652e9a5c7db256a1e41"})
	if !strings.Contains(got, "commit 57f5d52608b9") || strings.Contains(got, "differed") {
		t.Errorf("clean: %q", got)
	}
}
