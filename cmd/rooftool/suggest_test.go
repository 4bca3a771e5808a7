package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/golden"
)

func runSuggestCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(context.Background(), append([]string{"suggest"}, args...), &IO{Out: &o, Err: &e})
	return code, o.String(), e.String()
}

// Golden outputs, one per situation: predictions set against the fused
// variants two committed runs measured (table, csv); a run's chains (by
// dataflow and by launch order, with the kernels not offered); an nsys
// export with no kernel activity (bad input: exit 2, as stats).
func TestSuggestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"against_run_h100_140505.txt", []string{"--against-run", "2026-11-23-h100-140505"}, exitOK},
		{"against_run_h100_003504.csv", []string{"--against-run", "--format", "csv", "2026-11-22-h100-003504"}, exitOK},
		{"run_h100_161238.txt", []string{"2026-11-23-h100-161238"}, exitOK},
		{"export_without_kernels.txt", []string{realdata + "WeatherBench2/report1.sqlite"}, exitBadArgs},
	} {
		code, got, stderr := runSuggestCmd(t, tc.args...)
		if code != tc.code {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.code, stderr)
		}
		got += stderr
		path := filepath.Join("testdata/suggest", tc.golden)
		golden.Check(t, path, []byte(got))
	}
}

// Every nsys SQLite and Kineto export under testdata/realdata runs without
// error, in every format; an export without kernels exits 2, as stats does.
func TestSuggestRealdata(t *testing.T) {
	var files []string
	err := filepath.WalkDir(realdata, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n := d.Name(); strings.HasSuffix(n, ".sqlite") || strings.HasSuffix(n, ".sqlite.gz") || strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".json.gz") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 7 {
		t.Fatalf("found %d exports, want the 5 nsys and 2 Kineto ones: %v", len(files), files)
	}
	for _, f := range files {
		for _, format := range []string{"table", "csv", "json"} {
			code, out, stderr := runSuggestCmd(t, "--format", format, f)
			if code == exitBadArgs && strings.Contains(stderr, "kernel") {
				// A kernel-less export is bad input to suggest as to stats.
				var o, e bytes.Buffer
				if sc := run(context.Background(), []string{"stats", f}, &IO{Out: &o, Err: &e}); sc != exitBadArgs {
					t.Errorf("%s: suggest exits 2 (%s) where stats exits %d", f, stderr, sc)
				}
				continue
			}
			if code != 0 {
				t.Errorf("%s --format %s: exit %d: %s", f, format, code, stderr)
				continue
			}
			if format == "json" {
				var doc struct {
					Version int `json:"rooftool_suggest"`
					Chains  []struct {
						Producer string `json:"producer"`
						Saved    int    `json:"kernels_saved"`
					} `json:"chains"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Version != 3 || doc.Chains == nil {
					t.Errorf("%s json: %v %.200s", f, err, out)
				}
				// The Kineto trace of a convolution benchmark: cuDNN's
				// implicit-GEMM convolutions followed by elementwise kernels.
				if strings.Contains(f, "critical_path") {
					if len(doc.Chains) == 0 || !strings.HasPrefix(doc.Chains[0].Producer, "sm80_xmma_fprop") || doc.Chains[0].Saved == 0 {
						t.Errorf("%s: chains %+v, want an xmma fprop producer first", f, doc.Chains)
					}
				}
			}
		}
	}
}

func TestSuggestUsage(t *testing.T) {
	file := realdata + "gpu4/report.sqlite"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml", file}, "--format"},
		{[]string{"--against-run", file}, "needs one run"},
		{[]string{"no/such/file.sqlite"}, "no such file"},
		{[]string{file, "no/such/file.sqlite"}, "no/such/file.sqlite: no such file"},
		{[]string{}, "arg"},
	} {
		code, _, stderr := runSuggestCmd(t, tc.args...)
		if code != exitBadArgs || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSuggestRunOutsideRepo: outside the repository, suggest of a committed
// run's name fails as report, diff and project do, saying where it looked
// (pipeline.Open's words, after the command's name).
func TestSuggestRunOutsideRepo(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const name = "2026-11-22-h100-003504"
	var want string
	for _, cmd := range []string{"report", "suggest", "project", "diff"} {
		args := []string{cmd, name}
		switch cmd {
		case "project":
			args = append(args, "--gpu", "h200")
		case "diff":
			args = append(args, name)
		}
		var o, e bytes.Buffer
		code := run(context.Background(), args, &IO{Out: &o, Err: &e})
		msg := strings.TrimPrefix(strings.TrimSpace(e.String()), "rooftool: "+cmd+": ")
		if code != exitBadArgs || !strings.Contains(msg, "not a committed run") || !strings.Contains(msg, dir) {
			t.Errorf("%s outside the repository: exit %d, %q; want 2, saying where it looked", cmd, code, e.String())
		}
		if want == "" {
			want = msg
		} else if msg != want {
			t.Errorf("%s says %q, report says %q", cmd, msg, want)
		}
	}
}

// The help states the model; --against-run JSON carries the version and
// the checks.
func TestSuggestHelpAndJSON(t *testing.T) {
	code, out, _ := runSuggestCmd(t, "--help")
	if code != 0 || !strings.Contains(out, "not a bound") || !strings.Contains(out, "time saved") || !strings.Contains(out, "producer -> folded kernel edge") || !strings.Contains(out, "launch order") {
		t.Errorf("help (exit %d) does not state the model:\n%s", code, out)
	}
	code, out, stderr := runSuggestCmd(t, "--against-run", "--format", "json", "2026-11-23-h100-140505")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Version int `json:"rooftool_suggest"`
		Checks  []struct {
			Experiment string  `json:"experiment"`
			Candidate  string  `json:"candidate"`
			Basis      string  `json:"basis"`
			Meas       float64 `json:"measured_dram_saved_bytes"`
			PredNs     float64 `json:"predicted_folded_time_ns"`
			MeasNs     float64 `json:"measured_gpu_time_saved_ns"`
			Ref        string  `json:"time_reference"`
			RefNs      float64 `json:"measured_time_saved_ns"`
			Shape      string  `json:"shape"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Version != 3 || len(doc.Checks) != 15 {
		t.Fatalf("json: %v, version %d, %d checks, want 3 and 15", err, doc.Version, len(doc.Checks))
	}
	// Every check names its time reference; gated_ssm's compiled variant at
	// T=2048 is set against the timing pass's wall loops (no CUDA-graph
	// replay of a compiled call), at T=512 against nsys (its wall loop is
	// host-bound).
	for _, c := range doc.Checks {
		want := ""
		switch {
		case c.Experiment == "gated_ssm" && c.Candidate == "compiled" && strings.Contains(c.Shape, "T=2048"):
			want = "timing pass, wall loop"
		case c.Experiment == "gated_ssm" && c.Candidate == "compiled":
			want = "nsys, one call"
		}
		if c.Ref == "" || (want != "" && c.Ref != want) {
			t.Errorf("%s/%s %s: time reference %q, want %q", c.Experiment, c.Candidate, c.Shape, c.Ref, want)
		}
	}
	// METHOD.md, "Predictions": the folded time is not a bound. In this
	// run swiglu_fp8's dual-acc and dual-acc-graph saved more GPU time (nsys
	// kernel sums, 9.1 and 8.4 us) than the folded kernels' 4.1 us.
	more := 0
	for _, c := range doc.Checks {
		if c.Basis != "dataflow" {
			t.Errorf("%s/%s: basis %q, want dataflow (the built-in specs state it)", c.Experiment, c.Candidate, c.Basis)
		}
		if c.Experiment == "swiglu_fp8" && (c.Candidate == "dual-acc" || c.Candidate == "dual-acc-graph") && c.MeasNs > 2*c.PredNs {
			more++
		}
	}
	if more != 2 {
		t.Errorf("swiglu_fp8 dual-acc chains whose measured saving exceeds twice the prediction: %d, want 2", more)
	}
}

// An nsys export whose kernel table is empty holds no kernel to chain, as
// one without the table: alone it is bad input (exit 2, as stats says);
// beside an export with kernels it is passed over with a note.
func TestSuggestNoKernels(t *testing.T) {
	dlprof := filepath.Join("..", "..", "testdata", "realdata", "DLProf", "nsys_profile.sqlite")
	empty := copyExport(t, dlprof, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL")
	_, stderr := mustRun(t, exitBadArgs, "suggest", empty)
	if !strings.Contains(stderr, "no kernels") {
		t.Errorf("stderr %q, want it to say the export holds no kernels", stderr)
	}
	_, stderr = mustRun(t, exitOK, "suggest", empty, dlprof)
	if !strings.Contains(stderr, empty+" holds no kernels") {
		t.Errorf("stderr %q, want the note on the kernel-less export", stderr)
	}
}
