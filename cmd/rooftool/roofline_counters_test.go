package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// ncuCommandMetrics returns the --metrics list of the ncu command line in
// s (the line that starts with "ncu "), nil where there is none.
func ncuCommandMetrics(s string) []string {
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != "ncu" {
			continue
		}
		for i := range f[:len(f)-1] {
			if f[i] == "--metrics" {
				return strings.Split(f[i+1], ",")
			}
		}
	}
	return nil
}

var sassFLOPCounters = []string{
	"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
}

var tensorFLOPCounters = []string{
	"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_fp8.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
}

var pointByteCounters = []string{"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"}

// TestRooflineCollectCommand: where an export's kernels get no roofline
// point, the error gives the ncu command line that collects the counters
// the export lacks: those first in its --metrics, then the time and bytes
// a point also needs. The real exports of testdata/realdata that cannot be
// drawn each lack their own set.
func TestRooflineCollectCommand(t *testing.T) {
	cat := func(lists ...[]string) []string { return slices.Concat(lists...) }
	cases := []struct {
		name, gpu, input string
		missing          []string
	}{
		// dram__bytes.sum, cycles and time: every FLOP counter is missing.
		{"gene-paper", "", realdata + "gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv", cat(sassFLOPCounters, tensorFLOPCounters)},
		// Tensor counters that read 0 on a GEMV: the SASS counts are missing.
		{"llm-perf-opt", "rtx-5090", realdata + "llm-perf-opt/kernel_0001.ncu.details.csv", sassFLOPCounters},
		// Time and launch facts only: bytes and FLOPs are missing.
		{"B200", "", realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", cat(pointByteCounters, sassFLOPCounters, tensorFLOPCounters)},
	}
	for _, c := range cases {
		var o, e bytes.Buffer
		err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: t.TempDir(), GPU: c.gpu, Inputs: []string{c.input}})
		if err == nil || exitCode(err) != exitBadArgs {
			t.Errorf("%s: err %v (exit %d), want exit %d", c.name, err, exitCode(err), exitBadArgs)
			continue
		}
		got := ncuCommandMetrics(err.Error())
		if got == nil {
			t.Errorf("%s: no ncu command line in %q", c.name, err)
			continue
		}
		if len(got) < len(c.missing) || !slices.Equal(got[:len(c.missing)], c.missing) {
			t.Errorf("%s: --metrics %q, want the missing %q first", c.name, got, c.missing)
		}
		for _, n := range cat([]string{"gpu__time_duration.sum"}, pointByteCounters) {
			if !slices.Contains(got, n) {
				t.Errorf("%s: --metrics %q lacks %s, which a point also needs", c.name, got, n)
			}
		}
		if len(got) != len(c.missing)+5-len(intersect(c.missing, pointByteCounters)) {
			t.Errorf("%s: --metrics %q holds more than the missing counters, the time and the bytes", c.name, got)
		}
		if !strings.Contains(err.Error(), "--csv --page raw --print-units base ./app > app.ncu.csv") {
			t.Errorf("%s: the ncu command does not write a CSV rooftool reads: %q", c.name, err)
		}
	}
	// With the export's peaks the roofs are drawn and the warning carries the command.
	peaks := ncuRawCSV(t, "peaks.csv", "NVIDIA H100 80GB HBM3", "9.0", [][3]string{
		{"gpu__time_duration.sum", "nsecond", "100000"},
		{"dram__bytes_read.sum", "byte", "1000000"},
		{"dram__bytes.sum.peak_sustained", "byte/cycle", "1024"},
		{"dram__cycles_elapsed.avg.per_second", "cycle/second", "2619000000"},
		{"sm__cycles_elapsed.avg.per_second", "cycle/second", "1755000000"},
		{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "inst/cycle", "16896"},
	})
	var o, e bytes.Buffer
	if err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: t.TempDir(), Inputs: []string{peaks}}); err != nil {
		t.Fatalf("export with peaks: %v", err)
	}
	if got := ncuCommandMetrics(e.String()); len(got) < 13 || !slices.Equal(got[:13], cat(sassFLOPCounters, tensorFLOPCounters)) {
		t.Errorf("export with peaks: --metrics %q in the warning, want the 13 FLOP counters first:\n%s", got, e.String())
	}
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestRooflineCCMismatch: --gpu of another compute capability than the
// export's device is a warning that names both GPUs and both capabilities;
// the same capability (or a device whose capability is not known) is not.
func TestRooflineCCMismatch(t *testing.T) {
	esmm := realdata + "ESMM-Research/metrics.csv" // CC 8.6, no device name
	for _, c := range []struct {
		gpu, input string
		want       []string // nil: no warning
	}{
		{"h100", esmm, []string{"--gpu h100 is NVIDIA H100 SXM5 80GB (compute capability 9.0)", "ran on a GPU (compute capability 8.6)"}},
		{"rtx-a4500", esmm, nil},
		{"h100", realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", []string{"NVIDIA H100 SXM5 80GB (compute capability 9.0)", "ran on NVIDIA B200 (compute capability 10.0)"}},
		{"b200", realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv", nil},
	} {
		var o, e bytes.Buffer
		runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: t.TempDir(), GPU: c.gpu, Inputs: []string{c.input}})
		warned := strings.Contains(e.String(), "compute capability")
		if c.want == nil && warned {
			t.Errorf("--gpu %s on %s: a compute-capability warning where they agree:\n%s", c.gpu, c.input, e.String())
		}
		for _, w := range c.want {
			if !strings.Contains(e.String(), "warning: ") || !strings.Contains(e.String(), w) {
				t.Errorf("--gpu %s on %s: stderr lacks %q:\n%s", c.gpu, c.input, w, e.String())
			}
		}
	}
}
