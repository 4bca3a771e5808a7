package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
)

// writeTimingRun writes dir/tables/*.parquet holding n timing samples of
// one cell around ms.
func writeTimingRun(t *testing.T, dir string, ms float64, n int) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.AddTiming(ingest.Timing{Experiment: "swiglu", Variant: "dual-acc", Shape: "M=512,N=4096,K=7168",
			Device: "test GPU", Method: "cuda-events", Rep: int32(i), Ms: ms * (1 + float64(i%5-2)*0.001)})
	}
	tb := b.Finish()
	defer tb.Release()
	if err := tb.Write(filepath.Join(dir, "tables"), ingest.FormatParquet); err != nil {
		t.Fatal(err)
	}
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "before"), filepath.Join(dir, "after")
	writeTimingRun(t, a, 0.100, 20)
	writeTimingRun(t, b, 0.090, 20)
	for _, tc := range []struct {
		args []string
		code int
		out  []string // substrings of stdout
		err  string   // substring of stderr
	}{
		{[]string{"diff", a, b}, 0, []string{"old: before (test GPU)", "| swiglu ", "-10.00%", "n=20"}, ""},
		{[]string{"diff", "--format", "csv", a, b}, 0, []string{"experiment,variant,shape,old_ms", `swiglu,dual-acc,"M=512,N=4096,K=7168",0.1,`}, ""},
		{[]string{"diff", "--format", "json", a, b}, 2, nil, `--format "json"`},
		{[]string{"diff", a}, 2, nil, "accepts 2 arg(s)"},
		{[]string{"diff", a, filepath.Join(dir, "missing")}, 2, nil, "missing: not a run directory"},
		{[]string{"diff", a, dir}, 1, nil, "no kernels.parquet"},
		{[]string{"diff", "2026-11-22-h100-003504", "2026-11-22-h200-004838"}, 0, []string{"old: 2026-11-22-h100-003504 (NVIDIA H100 80GB HBM3)", "| swiglu     | dual-acc "}, ""},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), tc.args, &IO{Out: &o, Err: &e})
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, e.String())
		}
		for _, s := range tc.out {
			if !strings.Contains(o.String(), s) {
				t.Errorf("%v: stdout lacks %q:\n%s", tc.args, s, o.String())
			}
		}
		if tc.err != "" && !strings.Contains(e.String(), tc.err) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, e.String(), tc.err)
		}
	}
}
