package ncu

// Tests on real ncu exports: the files under testdata/realdata and the
// captures of the runs committed under testdata/runs.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// The expected figures below were read off the files by hand with Python's
// csv module (float(v.replace(",", "")) per cell, summed per metric name),
// independently of this parser; the commands are quoted per file.

func TestNCURealESMMLongMetrics(t *testing.T) {
	// ESMM-Research/metrics.csv: ncu --metrics long export, 9 kernels x 5
	// metrics, values with thousands separators, units byte/nsecond/inst.
	// python: rows=list(csv.reader(open(f))); len(set(r[0] for r in rows[1:])) -> 9;
	// sum(dram__bytes.sum) -> 184823296; sum(gpu__time_duration.sum) -> 14690304;
	// kernel 3: Block Size (512, 1, 1), Grid Size (16, 16, 1), 430,592 ns.
	tb := ingesttest.Ingest(t, parseExport, realdata+"ESMM-Research/metrics.csv", ingest.Options{})
	ks := tb.Kernels()
	if len(ks) != 9 {
		t.Fatalf("kernels = %d, want 9", len(ks))
	}
	wantShort := []string{"basic", "gmem_coalesce", "smem_blocking", "one_blocktiling", "two_blocktiling",
		"vectorized_blocktiling", "warptiling", "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn"}
	for i, k := range ks {
		if k.ShortName != wantShort[i] {
			t.Errorf("kernel %d short name %q, want %q", i, k.ShortName, wantShort[i])
		}
		if k.CorrelationID != int64(i) || k.Source != ingest.SourceNCU || k.Pass != ingest.PassKernel || k.File != "metrics.csv" {
			t.Errorf("kernel %d: corr %d source %q pass %q file %q", i, k.CorrelationID, k.Source, k.Pass, k.File)
		}
		if k.PID != 17333 || k.Context != 1 || k.Stream != 7 || k.Device != 0 {
			t.Errorf("kernel %d: pid %d ctx %d stream %d dev %d", i, k.PID, k.Context, k.Stream, k.Device)
		}
	}
	k3 := ks[3]
	if k3.Name != "void one_blocktiling<(int)64, (int)64, (int)8, (int)8>(int, int, int, const float *, const float *, float *)" {
		t.Errorf("kernel 3 name %q", k3.Name)
	}
	if k3.BlockX != 512 || k3.BlockY != 1 || k3.BlockZ != 1 || k3.GridX != 16 || k3.GridY != 16 || k3.GridZ != 1 {
		t.Errorf("kernel 3 block (%d,%d,%d) grid (%d,%d,%d)", k3.BlockX, k3.BlockY, k3.BlockZ, k3.GridX, k3.GridY, k3.GridZ)
	}
	if k3.DurationNs != 430592 {
		t.Errorf("kernel 3 duration %d ns, want 430592", k3.DurationNs)
	}
	ms := tb.Metrics()
	if len(ms) != 45 {
		t.Errorf("metrics = %d, want 45", len(ms))
	}
	if s, n := sumMetric(ms, "dram__bytes.sum"); n != 9 || s != 184823296 {
		t.Errorf("sum dram__bytes.sum = %v over %d, want 184823296 over 9", s, n)
	}
	if s, _ := sumMetric(ms, "gpu__time_duration.sum"); s != 14690304 {
		t.Errorf("sum gpu__time_duration.sum = %v ns, want 14690304", s)
	}
	var durs int64
	for _, k := range ks {
		durs += k.DurationNs
	}
	if durs != 14690304 {
		t.Errorf("sum of kernel durations %d, want 14690304", durs)
	}
	m := metricOf(t, ms, 7, "Command line profiler metrics", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum")
	if m.Unit != "inst" || m.Value != 1094713344 {
		t.Errorf("kernel 7 ffma = %v %s, want 1094713344 inst", m.Value, m.Unit)
	}
	gs := tb.GPUs()
	if len(gs) != 1 || gs[0].CCMajor != 8 || gs[0].CCMinor != 6 || gs[0].Device != 0 {
		t.Errorf("gpus = %+v, want one device 0 with CC 8.6", gs)
	}
}

func TestNCURealB200Raw(t *testing.T) {
	// Roofline-Analysis/torch_sdpa_flash_*.csv: --page raw --print-units base
	// on a B200; 2 ==PROF== lines, header (475 columns) on line 3, units row,
	// 16 kernels. python: h=rows[2]; data=rows[4:]; 475-11 identity columns =
	// 464 metric columns, 7408 non-empty cells (launch__kernel_name is empty
	// for all 16); sum(gpu__time_duration.sum) = 3262944 ns; registers 36/222;
	// sum(launch__shared_mem_per_block_dynamic) = 655360;
	// sum(profiler__replayer_bytes_mem_accessible.sum) = 190862513248.
	tb := ingesttest.Ingest(t, parseExport, realdata+"Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", ingest.Options{})
	ks := tb.Kernels()
	if len(ks) != 16 {
		t.Fatalf("kernels = %d, want 16", len(ks))
	}
	var durs int64
	for i, k := range ks {
		durs += k.DurationNs
		want := "flash_fwd_splitkv_combine_kernel"
		if i%2 == 1 {
			want = "flash_fwd_splitkv_kernel"
		}
		if k.ShortName != want {
			t.Errorf("kernel %d short %q, want %q", i, k.ShortName, want)
		}
	}
	if durs != 3262944 {
		t.Errorf("sum duration %d ns, want 3262944", durs)
	}
	k0, k1 := ks[0], ks[1]
	if k0.DurationNs != 11904 || k1.DurationNs != 395680 {
		t.Errorf("durations %d, %d; want 11904, 395680", k0.DurationNs, k1.DurationNs)
	}
	if k0.Registers != 36 || k1.Registers != 222 || k0.StaticSharedBytes != 80 || k1.DynSharedBytes != 81920 {
		t.Errorf("regs %d/%d static %d dyn %d", k0.Registers, k1.Registers, k0.StaticSharedBytes, k1.DynSharedBytes)
	}
	if k1.GridX != 1 || k1.GridY != 4 || k1.GridZ != 64 || k1.BlockX != 128 {
		t.Errorf("kernel 1 grid (%d,%d,%d) block %d", k1.GridX, k1.GridY, k1.GridZ, k1.BlockX)
	}
	ms := tb.Metrics()
	if len(ms) != 7408 {
		t.Errorf("metrics = %d, want 7408", len(ms))
	}
	if s, n := sumMetric(ms, "launch__shared_mem_per_block_dynamic"); n != 16 || s != 655360 {
		t.Errorf("sum dynamic smem = %v over %d", s, n)
	}
	if s, _ := sumMetric(ms, "profiler__replayer_bytes_mem_accessible.sum"); s != 190862513248 {
		t.Errorf("sum replayer bytes = %v", s)
	}
	m := metricOf(t, ms, 1, "", "sm__inst_executed_pipe_tensor_subpipe_hmma.avg.pct_of_peak_sustained_active")
	if m.Unit != "%" || m.Value != 65.93 {
		t.Errorf("hmma pct = %v %q", m.Value, m.Unit)
	}
	m = metricOf(t, ms, 0, "", "launch__execution_model")
	if m.Valid || m.Text != "SIMT" {
		t.Errorf("launch__execution_model = %+v, want text SIMT", m)
	}
	m = metricOf(t, ms, 0, "", "launch__shared_mem_per_block_static")
	if m.Unit != "byte/block" || m.Value != 80 {
		t.Errorf("static smem metric = %+v", m)
	}
	want := []ingest.GPU{{Source: ingest.SourceNCU, File: "torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", Device: 0,
		Name: "NVIDIA B200", CCMajor: 10, CCMinor: 0, SMCount: 148, MemoryBytes: 191503138816,
		L2Bytes: 132644864, SMClockHz: 1.965e9, MemClockHz: 3.996e9, Bus: "0000:18:00"}}
	if d := cmp.Diff(want, tb.GPUs()); d != "" {
		t.Errorf("gpus (-want +got):\n%s", d)
	}
	var prof []string
	for _, m := range tb.Metas() {
		if m.Key == "PROF" {
			prof = append(prof, m.Value)
		}
	}
	if d := cmp.Diff([]string{"Connected to process 234883 (/usr/bin/python3.12)", "Disconnected from process 234883"}, prof); d != "" {
		t.Errorf("PROF meta rows (-want +got):\n%s", d)
	}
}

func TestNCURealDetailsPage(t *testing.T) {
	// llm-perf-opt/kernel_0001.ncu.details.csv: --page details, one kernel,
	// 48 rows: 44 metric rows of 16 fields (ragged: header has 20) and 4 rule
	// rows of 20. python: sum(1 for r in rows[1:] if r[12]) -> 44; rules with
	// r[15] set -> 4. Values: dram__bytes_read.sum 2.33 Mbyte = 2330000 byte,
	// Duration 6.75 us = 6750 ns, Memory Throughput 345.14 Gbyte/s, SM
	// Frequency 1.99 Ghz, IssueSlotUtilization estimated speedup 80.34 (local).
	tb := ingesttest.Ingest(t, parseExport, realdata+"llm-perf-opt/kernel_0001.ncu.details.csv", ingest.Options{})
	ks := tb.Kernels()
	if len(ks) != 1 {
		t.Fatalf("kernels = %d, want 1", len(ks))
	}
	k := ks[0]
	if k.ShortName != "kernel" || !strings.HasPrefix(k.Name, "enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16") {
		t.Errorf("name %q short %q", k.Name, k.ShortName)
	}
	if k.DurationNs != 6750 || k.BlockX != 32 || k.BlockY != 4 || k.GridX != 224 || k.PID != 1740670 {
		t.Errorf("kernel = %+v", k)
	}
	ms := tb.Metrics()
	if len(ms) != 48 {
		t.Errorf("metrics = %d, want 48 (44 metrics + 4 rules)", len(ms))
	}
	check := func(section, name, unit string, v float64) {
		t.Helper()
		m := metricOf(t, ms, 0, section, name)
		if !m.Valid || m.Unit != unit || !near(m.Value, v) {
			t.Errorf("%s/%s = %v %q (valid %v), want %v %q", section, name, m.Value, m.Unit, m.Valid, v, unit)
		}
	}
	check("Command line profiler metrics", "dram__bytes_read.sum", "byte", 2.33e6)
	check("Command line profiler metrics", "gpu__time_duration.sum", "ns", 6750)
	check("GPU Speed Of Light Throughput", "Duration", "ns", 6750)
	check("GPU Speed Of Light Throughput", "SM Frequency", "Hz", 1.99e9)
	check("GPU Speed Of Light Throughput", "Elapsed Cycles", "cycle", 13485)
	check("Memory Workload Analysis", "Memory Throughput", "byte/s", 345.14e9)
	check("GPU Speed Of Light Throughput", "Memory Throughput", "%", 19.66)
	na := metricOf(t, ms, 0, "*", "flop_count_hp.sum")
	if na.Valid || na.Text != "n/a" {
		t.Errorf("flop_count_hp.sum = %+v, want null n/a", na)
	}
	r := metricOf(t, ms, 0, "SchedulerStats", "rule:IssueSlotUtilization")
	if !r.Valid || r.Value != 80.34 || r.Unit != "%" || !strings.HasPrefix(r.Text, "OPT (local): Every scheduler") {
		t.Errorf("rule row = %+v", r)
	}
	r = metricOf(t, ms, 0, "SpeedOfLight", "rule:SOLBottleneck")
	if r.Valid || !strings.HasPrefix(r.Text, "OPT: This kernel grid is too small") {
		t.Errorf("rule without speedup = %+v", r)
	}
	if gs := tb.GPUs(); len(gs) != 1 || gs[0].CCMajor != 12 || gs[0].CCMinor != 0 {
		t.Errorf("gpus = %+v", gs)
	}
}

func TestNCUReal2020Layout(t *testing.T) {
	// gene-paper-artifacts-pop2020: ncu 2020 long layout with "Kernel Time"
	// (a launch timestamp such as "2020-Aug-27 18:57:25", not a duration)
	// and no Block/Grid/Device/CC columns. 24 rows, 8 kernels, 3 metrics
	// each; python: sum(dram__bytes.sum) -> 6331344288; units byte, cycle,
	// cycle/second. No duration metric: the time is sm__cycles_elapsed.avg /
	// sm__cycles_elapsed.avg.per_second, kernel 0 (lines 3 and 4):
	// 1,209,826.20 cycles / 1,309,471,763.30 Hz = 923,904.0 ns; kernel 1
	// (lines 6 and 7): 1,385,067.65 / 1,310,148,138.83 Hz = 1,057,184.0 ns.
	tb := ingesttest.Ingest(t, parseExport, realdata+"gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv", ingest.Options{})
	ks := tb.Kernels()
	if len(ks) != 8 {
		t.Fatalf("kernels = %d, want 8", len(ks))
	}
	for i, k := range ks {
		want := "ij_deriv_kernel"
		if i%2 == 1 {
			want = "add_i_col_times_ij_block_kernel"
		}
		if k.ShortName != want || k.GridX != 0 || k.Stream != 7 || k.Null&ingest.NullDuration != 0 {
			t.Errorf("kernel %d = %q dur %d grid %d stream %d", i, k.ShortName, k.DurationNs, k.GridX, k.Stream)
		}
	}
	if d0 := ks[0].DurationNs; d0 != 923904 {
		t.Errorf("kernel 0 duration %d ns, want 923904 (cycles / rate)", d0)
	}
	if d1 := ks[1].DurationNs; d1 != 1057184 {
		t.Errorf("kernel 1 duration %d ns, want 1057184 (cycles / rate)", d1)
	}
	var warned bool
	for _, m := range tb.Metas() {
		warned = warned || m.Key == "warning" && strings.Contains(m.Value, "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second")
	}
	if !warned {
		t.Errorf("no warning meta row naming the cycles / rate time: %+v", tb.Metas())
	}
	ms := tb.Metrics()
	if len(ms) != 32 {
		t.Errorf("metrics = %d, want 24 + 8 Kernel Time rows", len(ms))
	}
	if s, n := sumMetric(ms, "dram__bytes.sum"); n != 8 || s != 6331344288 {
		t.Errorf("sum dram__bytes.sum = %v over %d", s, n)
	}
	m := metricOf(t, ms, 0, "*", "sm__cycles_elapsed.avg.per_second")
	if m.Unit != "Hz" || !near(m.Value, 1309471763.30) {
		t.Errorf("clock = %+v", m)
	}
	m = metricOf(t, ms, 0, "*", "sm__cycles_elapsed.avg")
	if m.Unit != "cycle" || !near(m.Value, 1209826.20) {
		t.Errorf("cycles = %+v", m)
	}
	m = metricOf(t, ms, 7, "*", "Kernel Time")
	if m.Valid || m.Text != "2020-Aug-27 18:57:28" {
		t.Errorf("Kernel Time = %+v", m)
	}
	if gs := tb.GPUs(); len(gs) != 0 {
		t.Errorf("gpus = %+v, want none (no CC, no device attributes)", gs)
	}
}

func TestNCURealErrorLog(t *testing.T) {
	// Roofline-Analysis/flashinfer_*: ncu's log of a failed run, no table.
	path := realdata + "Roofline-Analysis/flashinfer_paged_decode__gqa_bf16_b128_ctx8k_p64.ncu.csv"
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, err := ingesttest.File(parseExport, path, ingest.Options{}, mem)
	var ie *ingest.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want *InputError", err)
	}
	if ie.Line != 3 || !strings.Contains(err.Error(), "==ERROR== The application returned an error code (1).") {
		t.Errorf("err = %v (line %d), want line 3 quoting the ==ERROR== line", err, ie.Line)
	}
}

// TestNCURunCaptures ingests every ncu CSV of the runs committed under
// testdata/runs (raw/ncu/<exp>/... kernel pass, raw/ncu-range/<exp>/...
// range pass; see ingest/rundir) and checks what must hold
// for any capture: it parses, it has rows, kernel rows inside an
// experiment > variant > shape NVTX path name that experiment, and every
// row with gpu__time_duration.sum has a positive duration.
func TestNCURunCaptures(t *testing.T) {
	files := ncuRunCaptures()
	if len(files) == 0 {
		t.Skip("no committed run holds an ncu CSV yet (testdata/runs/*/raw/ncu*/)")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			parts := strings.Split(filepath.ToSlash(f), "/")
			var exp string
			for i, p := range parts {
				if (p == "ncu" || p == "ncu-range") && i > 0 && parts[i-1] == "raw" && i+1 < len(parts) {
					exp = parts[i+1]
				}
			}
			isRange := strings.Contains(filepath.ToSlash(f), "/raw/ncu-range/")
			tb := ingesttest.Ingest(t, parseExport, f, ingest.Options{})
			ks := tb.Kernels()
			if len(ks) == 0 {
				t.Fatal("no rows")
			}
			durs := map[int64]bool{}
			for _, m := range tb.Metrics() {
				if m.Name == "gpu__time_duration.sum" && m.Valid {
					durs[m.KernelID] = true
				}
			}
			for _, k := range ks {
				if k.Experiment != "" && exp != "" && k.Experiment != exp {
					t.Errorf("kernel %d (%s) in NVTX path %q names experiment %q, file is under %q", k.CorrelationID, k.ShortName, k.RangePath, k.Experiment, exp)
				}
				if durs[k.ID] && k.DurationNs <= 0 {
					t.Errorf("kernel %d (%s) has gpu__time_duration.sum but duration %d", k.CorrelationID, k.ShortName, k.DurationNs)
				}
				if isRange && k.Pass != ingest.PassRange && k.Name == "range" {
					t.Errorf("range-pass row %d has pass %q", k.CorrelationID, k.Pass)
				}
			}
		})
	}
}

// ncuRunCaptures lists the ncu CSVs of the runs under testdata/runs
// (gzipped there, <name>.csv.gz; ingest reads them as they are).
func ncuRunCaptures() []string {
	var files []string
	root := filepath.Join("..", "..", "testdata", "runs")
	runs, _ := os.ReadDir(root)
	for _, r := range runs {
		for _, pass := range []string{"ncu", "ncu-range"} {
			filepath.WalkDir(filepath.Join(root, r.Name(), "raw", pass), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".csv") || strings.HasSuffix(p, ".csv.gz")) {
					files = append(files, p)
				}
				return nil
			})
		}
	}
	return files
}
