package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/roofline"
)

const realdata = "../../testdata/realdata/"

// TestRooflineCommandOnESMMExport draws the ESMM-Research export (fp32 SASS
// counters and dram__bytes.sum, CC 8.6, no device name) with the roofs of
// the catalog GPU --gpu names.
func TestRooflineCommandOnESMMExport(t *testing.T) {
	out := t.TempDir()
	var o, e bytes.Buffer
	err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: out, GPU: "rtx-a4500",
		Inputs: []string{realdata + "ESMM-Research/metrics.csv"}})
	if err != nil {
		t.Fatalf("runRoofline: %v\n%s", err, e.String())
	}
	for _, f := range []string{"metrics-roofline.png", "metrics-roofline.svg"} {
		st, err := os.Stat(filepath.Join(out, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
		if !strings.Contains(o.String(), f) {
			t.Errorf("stdout does not list %s:\n%s", f, o.String())
		}
	}
	for _, w := range []string{"catalog: NVIDIA RTX A4500", "warning: missing-metric"} {
		if !strings.Contains(e.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, e.String())
		}
	}
	if strings.Contains(e.String(), "no kernel point") {
		t.Errorf("ESMM kernels placed no point:\n%s", e.String())
	}
}

func TestRooflineCommandErrors(t *testing.T) {
	io := &IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
	err := runRoofline(context.Background(), &RooflineOptions{IO: io, OutDir: t.TempDir(), GPU: "no-such-gpu",
		Inputs: []string{realdata + "ESMM-Research/metrics.csv"}})
	if err == nil || exitCode(err) != exitBadArgs {
		t.Errorf("unknown --gpu: %v (exit %d)", err, exitCode(err))
	}
	err = runRoofline(context.Background(), &RooflineOptions{IO: io, OutDir: t.TempDir(),
		Inputs: []string{filepath.Join(t.TempDir(), "missing.csv")}})
	if err == nil || exitCode(err) != exitBadArgs {
		t.Errorf("missing input: %v (exit %d)", err, exitCode(err))
	}
	// An nsys timeline has kernels but no ncu facts and no rooftool cells.
	err = runRoofline(context.Background(), &RooflineOptions{IO: io, OutDir: t.TempDir(),
		Inputs: []string{realdata + "gpu4/report.sqlite"}})
	if err == nil || exitCode(err) != exitBadArgs {
		t.Errorf("nothing to draw: %v (exit %d)", err, exitCode(err))
	}
}

// ncuRawCSV writes a one-kernel raw-page ncu CSV with the given metric
// columns (name, unit, value) and returns its path.
func ncuRawCSV(t *testing.T, name, device, cc string, metrics [][3]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC"`)
	for _, m := range metrics {
		b.WriteString(`,"` + m[0] + `"`)
	}
	b.WriteString(`,"device__attribute_display_name"` + "\n" + strings.Repeat(`"",`, 11))
	for _, m := range metrics {
		b.WriteString(`"` + m[1] + `",`)
	}
	b.WriteString(`""` + "\n" + `"0","1","a.out","h","dkernel(double*)","1","7","(128, 1, 1)","(64, 1, 1)","0","` + cc + `"`)
	for _, m := range metrics {
		b.WriteString(`,"` + m[2] + `"`)
	}
	b.WriteString(`,"` + device + `"` + "\n")
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var fp64Metrics = [][3]string{
	{"gpu__time_duration.sum", "nsecond", "100000"},
	{"dram__bytes_read.sum", "byte", "1000000"},
	{"dram__bytes_write.sum", "byte", "1000000"},
	{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst", "1000"},
	{"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst", "400000000"},
	{"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "inst", "1000"},
}

// TestRooflineNoKernelPoints: an ncu export whose kernels lack FLOP or byte
// counters gives a roofline without a single point. With no roofs stated by
// the export that is bad input (exit 2) naming what is missing, and no file
// is written; where the export states its peaks the roofs are drawn and the
// command says no kernel point could be placed.
func TestRooflineNoKernelPoints(t *testing.T) {
	cases := []struct {
		name, gpu string
		input     string
		want      []string
	}{
		// dram__bytes.sum and cycles only: no FLOP counter at all.
		{"no FLOP counters", "", realdata + "gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv",
			[]string{"no kernel point", "8 of 8 kernels", "no FLOP counters", "sm__ops_path_tensor_*.sum"}},
		// flop_count_* n/a and a zero tensor counter: zero FLOPs; catalog roofs
		// from --gpu do not make a chart of roofs alone worth writing.
		{"zero FLOPs", "rtx-5090", realdata + "llm-perf-opt/kernel_0001.ncu.details.csv",
			[]string{"no kernel point", "1 of 1 kernels", "count zero FLOPs"}},
		// B200 export: hundreds of columns, no FLOP counter and no peaks; the
		// B200 catalog roofs alone make no roofline.
		{"B200 no FLOP counters", "", realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv",
			[]string{"no kernel point", "16 of 16 kernels have no FLOP counters"}},
		{"no byte counters", "", ncuRawCSV(t, "nobytes.csv", "NVIDIA H100 80GB HBM3", "9.0", fp64Metrics[3:]),
			[]string{"no kernel point", "no byte counters", "dram__bytes_read.sum"}},
	}
	for _, c := range cases {
		out := t.TempDir()
		var o, e bytes.Buffer
		err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: out, GPU: c.gpu,
			Inputs: []string{c.input}})
		if err == nil || exitCode(err) != exitBadArgs {
			t.Errorf("%s: err %v (exit %d); want exit %d\n%s", c.name, err, exitCode(err), exitBadArgs, o.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
		if ents, _ := os.ReadDir(out); len(ents) > 0 {
			t.Errorf("%s: wrote %d files for an empty chart", c.name, len(ents))
		}
	}

	// The export states its peaks (DRAM and fp32 peak_sustained with the
	// clocks), but no FLOP counter: roofs are drawn, exit 0, and stderr says
	// no kernel point could be placed.
	peaks := ncuRawCSV(t, "peaks.csv", "NVIDIA H100 80GB HBM3", "9.0", [][3]string{
		{"gpu__time_duration.sum", "nsecond", "100000"},
		{"dram__bytes_read.sum", "byte", "1000000"},
		{"dram__bytes.sum.peak_sustained", "byte/cycle", "1024"},
		{"dram__cycles_elapsed.avg.per_second", "cycle/second", "2619000000"},
		{"sm__cycles_elapsed.avg.per_second", "cycle/second", "1755000000"},
		{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "inst/cycle", "16896"},
	})
	out := t.TempDir()
	var o, e bytes.Buffer
	err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: out, Inputs: []string{peaks}})
	if err != nil {
		t.Fatalf("export with peaks: %v\n%s", err, e.String())
	}
	if !strings.Contains(o.String(), "peaks-roofline.png") {
		t.Errorf("stdout lacks the chart:\n%s", o.String())
	}
	for _, w := range []string{"device: ", "no kernel point could be placed", "no FLOP counters"} {
		if !strings.Contains(e.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, e.String())
		}
	}
}

// TestRooflineFP64Counters: the SASS fp64 counters (dadd, dmul, dfma) count
// as fp64 FLOPs and place the kernel on the chart.
func TestRooflineFP64Counters(t *testing.T) {
	in := ncuRawCSV(t, "fp64.csv", "NVIDIA H100 80GB HBM3", "9.0", fp64Metrics)
	var o, e bytes.Buffer
	err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: t.TempDir(), Inputs: []string{in}})
	if err != nil {
		t.Fatalf("runRoofline: %v\n%s", err, e.String())
	}
	if strings.Contains(e.String(), "zero-on-log") || strings.Contains(e.String(), "no point") {
		t.Errorf("the fp64 kernel has no point:\n%s", e.String())
	}
	tb, err := pipeline.ReadExports([]string{in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	run, err := analysis.Analyze(tb, nil, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Kernels) != 1 {
		t.Fatalf("%d kernels", len(run.Kernels))
	}
	if got, want := run.Kernels[0].FLOPs["fp64"], 2.0*400000000+2000; got != want {
		t.Errorf("fp64 FLOPs %v; want %v (dadd + dmul + 2 dfma)", got, want)
	}
}

// TestRooflineCC12GPU: compute capability 12.0 devices. The RTX 5090 is in
// the catalog and gets its roofs; an RTX PRO 6000 Blackwell is not: --gpu
// naming it is bad input, and an export naming it says so in a warning.
func TestRooflineCC12GPU(t *testing.T) {
	in5090 := ncuRawCSV(t, "g5090.csv", "NVIDIA GeForce RTX 5090", "12.0", fp64Metrics)
	var o, e bytes.Buffer
	if err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: t.TempDir(), Inputs: []string{in5090}}); err != nil {
		t.Fatalf("RTX 5090: %v", err)
	}
	if !strings.Contains(e.String(), "catalog: NVIDIA GeForce RTX 5090") {
		t.Errorf("RTX 5090 roofs not from its catalog entry:\n%s", e.String())
	}
	const pro = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
	inPro := ncuRawCSV(t, "pro.csv", pro, "12.0", fp64Metrics)
	e.Reset()
	err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: t.TempDir(),
		GPU: "NVIDIA RTX PRO 6000 Blackwell", Inputs: []string{inPro}})
	if err == nil || exitCode(err) != exitBadArgs || !strings.Contains(err.Error(), "not in the catalog") {
		t.Errorf("--gpu RTX PRO 6000: %v (exit %d); want exit 2, not in the catalog", err, exitCode(err))
	}
	e.Reset()
	if err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: t.TempDir(), Inputs: []string{inPro}}); err != nil {
		t.Fatalf("RTX PRO 6000 export: %v", err)
	}
	if !strings.Contains(e.String(), `"`+pro+`" (CC 12.0) is not in the catalog`) {
		t.Errorf("stderr does not name the GPU as not in the catalog:\n%s", e.String())
	}
	if strings.Contains(e.String(), "no GPU was named") {
		t.Errorf("stderr keeps the analysis's no-ceilings warning beside the one naming the GPU:\n%s", e.String())
	}
}

// TestRooflineJSON: --format json prints one object on stdout with what
// the text says (the charts' paths on stdout, the roofs and warnings on
// stderr): the same files, every roof with its value and source, the
// warnings; stderr then carries none of them. --format csv is bad usage.
func TestRooflineJSON(t *testing.T) {
	in := realdata + "ESMM-Research/metrics.csv"
	var to, te bytes.Buffer
	if code := run(context.Background(), []string{"roofline", in, "--gpu", "rtx-a4500", "-o", t.TempDir()}, &IO{Out: &to, Err: &te}); code != exitOK {
		t.Fatalf("text: exit %d: %s", code, te.String())
	}
	var o, e bytes.Buffer
	out := t.TempDir()
	if code := run(context.Background(), []string{"roofline", in, "--gpu", "rtx-a4500", "-o", out, "--format", "json"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("json: exit %d: %s", code, e.String())
	}
	var s struct {
		Version int    `json:"rooftool_roofline"`
		GPU     string `json:"gpu"`
		Files   []string
		Roofs   []struct {
			Name, Kind, Source string
			Value              float64
		}
		Warnings []string
	}
	if err := json.Unmarshal(o.Bytes(), &s); err != nil {
		t.Fatalf("%v\n%s", err, o.String())
	}
	if s.Version != roofline.JSONVersion || len(s.Files) == 0 || len(s.Files) != len(strings.Fields(to.String())) {
		t.Errorf("summary %+v; the text listed %q", s, to.String())
	}
	for _, f := range s.Files {
		if _, err := os.Stat(f); err != nil || !strings.HasPrefix(f, out) {
			t.Errorf("file %s: %v", f, err)
		}
	}
	roofs := strings.Count(te.String(), "roof ")
	if len(s.Roofs) == 0 || len(s.Roofs) != roofs {
		t.Errorf("%d roofs in the JSON, %d in the text", len(s.Roofs), roofs)
	}
	for _, r := range s.Roofs {
		if r.Value <= 0 || r.Source == "" || (r.Kind != "bandwidth" && r.Kind != "compute") {
			t.Errorf("roof %+v", r)
		}
	}
	if len(s.Warnings) != strings.Count(te.String(), "warning: ") {
		t.Errorf("%d warnings in the JSON, the text: %s", len(s.Warnings), te.String())
	}
	if e.Len() != 0 {
		t.Errorf("json: stderr %q, want nothing", e.String())
	}
	if code := run(context.Background(), []string{"roofline", in, "-o", out, "--format", "csv"}, &IO{Out: &o, Err: &e}); code != exitBadArgs {
		t.Errorf("--format csv: exit %d, want %d", code, exitBadArgs)
	}
}
