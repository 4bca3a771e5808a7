package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	empty := filepath.Join(dir, "empty")
	writeTimingRun(t, empty, 0, 0)
	// A run whose tables are there but unreadable: a failure, not bad usage.
	broken := filepath.Join(dir, "broken")
	writeTimingRun(t, broken, 0.1, 5)
	if err := os.WriteFile(filepath.Join(broken, "tables", "timings.parquet"), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		out  []string // substrings of stdout
		err  string   // substring of stderr
	}{
		{[]string{"diff", a, b}, 0, []string{"old: before (test GPU)", "| swiglu ", "-10.00%", "n=20", "| geomean ", "1 cell"}, ""},
		{[]string{"diff", "--format", "csv", a, b}, 0, []string{"row,experiment,variant,shape,kernel,status,old_ms", `cell,swiglu,dual-acc,"M=512,N=4096,K=7168",,both,0.1,`, "\ngeomean,"}, ""},
		{[]string{"diff", "--format", "json", a, b}, 0, []string{`"rooftool_diff": 1`, `"old_run": "before"`, `"cells": [`, `"kernels": []`}, ""},
		{[]string{"diff", "--format", "yaml", a, b}, 2, nil, `--format "yaml": want table, csv or json`},
		{[]string{"diff", a}, 2, nil, "accepts 2 arg(s)"},
		{[]string{"diff", a, filepath.Join(dir, "missing")}, 2, nil, "missing: not a run directory"},
		{[]string{"diff", a, dir}, 2, nil, "run " + filepath.Base(dir) + ": no tables in " + dir},
		{[]string{"diff", a, empty}, 2, nil, "run empty: its tables hold no wall-time samples and no kernel of any cell"},
		{[]string{"diff", a, broken}, 1, nil, "broken"},
		{[]string{"diff", "2026-11-22-h100-003504", "2026-11-23-h100-140505"}, 0, []string{"old: 2026-11-22-h100-003504 (NVIDIA H100 80GB HBM3)",
			"| swiglu     | dual-acc ", "| geomean ", "gated_ssm/triton-epilogue/B=16,T=512,d=768,H=12,dk=64,n=16 (from the nsys timeline; 1 added)",
			"| + _mm_epi_tma_persistent_kernel |     — |     1 |        — | 41.22 µs |"}, ""},
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

// TestDiffOneRunCellsFlag runs the README's diff of the committed H100 and
// H200 runs: by default the cells of one run are counted per experiment,
// the counts adding up to the "Cells only in" line; --one-run-cells lists
// them, a row each, as many rows as both counts together.
func TestDiffOneRunCellsFlag(t *testing.T) {
	args := []string{"diff", "2026-11-22-h100-003504", "2026-11-22-h200-004838"}
	brief, _ := mustRun(t, exitOK, args...)
	all, _ := mustRun(t, exitOK, append(args, "--one-run-cells")...)
	var onlyOld, onlyNew int
	m := regexp.MustCompile(`Cells only in 2026-11-22-h100-003504: (\d+); only in 2026-11-22-h200-004838: (\d+)\.`).FindStringSubmatch(brief)
	if m == nil {
		t.Fatalf("no \"Cells only in\" line:\n%s", brief)
	}
	onlyOld, _ = strconv.Atoi(m[1])
	onlyNew, _ = strconv.Atoi(m[2])
	sec := brief[strings.Index(brief, "in one run only, per experiment"):]
	sec = sec[:strings.Index(sec, "\n\nMedians")]
	var sumOld, sumNew int
	for _, row := range regexp.MustCompile(`(?m)^\| (\w+) +\| +(\d+) \| +(\d+) \|$`).FindAllStringSubmatch(sec, -1) {
		o, _ := strconv.Atoi(row[2])
		n, _ := strconv.Atoi(row[3])
		sumOld, sumNew = sumOld+o, sumNew+n
	}
	if sumOld != onlyOld || sumNew != onlyNew || onlyOld+onlyNew == 0 {
		t.Errorf("per-experiment counts add up to %d old, %d new; the runs have %d, %d:\n%s", sumOld, sumNew, onlyOld, onlyNew, sec)
	}
	if strings.Contains(brief, "Cells in one run only:") {
		t.Error("the default table lists the cells of one run")
	}
	list := all[strings.Index(all, "Cells in one run only:"):]
	list = list[:strings.Index(list, "\n\nMedians")]
	if rows := strings.Count(list, "\n| ") - 2; rows != onlyOld+onlyNew {
		t.Errorf("--one-run-cells lists %d cells, want %d", rows, onlyOld+onlyNew)
	}
	if lb, la := strings.Count(brief, "\n"), strings.Count(all, "\n"); lb >= la-onlyOld-onlyNew+10 {
		t.Errorf("the default output has %d lines, --one-run-cells %d: not shorter by the list", lb, la)
	}
}
