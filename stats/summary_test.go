package stats

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rooftool/rooftool/ingest"
)

func TestKernelSummary(t *testing.T) {
	ks := []ingest.Kernel{
		{Source: "nsys", Pass: ingest.PassTimeline, Range: "r1", ShortName: "gemm", DurationNs: 10},
		{Source: "nsys", Pass: ingest.PassTimeline, Range: "r1", ShortName: "gemm", DurationNs: 30},
		{Source: "nsys", Pass: ingest.PassTimeline, Range: "r1", ShortName: "gemm", DurationNs: 20},
		{Source: "nsys", Pass: ingest.PassTimeline, Range: "r1", ShortName: "silu", DurationNs: 5},
		{Source: "nsys", Pass: ingest.PassTimeline, Range: "", Name: "void k<1>()", DurationNs: 7},
		{Source: "nsys", Pass: ingest.PassTimeline, Range: "", Name: "void k<1>()", DurationNs: 8},
		{Source: "ncu", Pass: ingest.PassKernel, Range: "r1", ShortName: "gemm", DurationNs: 99},
		{Source: "ncu", Pass: ingest.PassRange, Range: "r1", ShortName: "range", DurationNs: 999},
	}
	got, err := KernelSummary(SummarySource(ks, ""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The unranged kernels come last; Time (%) is a share of the range's total.
	want := []Row{
		{Range: "r1", Name: "gemm", TimePct: 100 * 60.0 / 65, Instances: 3, TotalNs: 60, AvgNs: 20, MedNs: 20, MinNs: 10, MaxNs: 30, StdDevNs: 10},
		{Range: "r1", Name: "silu", TimePct: 100 * 5.0 / 65, Instances: 1, TotalNs: 5, AvgNs: 5, MedNs: 5, MinNs: 5, MaxNs: 5},
		{Range: "", Name: "void k<1>()", TimePct: 100, Instances: 2, TotalNs: 15, AvgNs: 7.5, MedNs: 7.5, MinNs: 7, MaxNs: 8, StdDevNs: math.Sqrt(0.5)},
	}
	if d := cmp.Diff(want, got.Rows, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	ncu, _ := KernelSummary(SummarySource(ks, "ncu"), Options{})
	if len(ncu.Rows) != 1 || ncu.Rows[0].TotalNs != 99 {
		t.Errorf("ncu summary = %+v, want the one kernel-pass row (range pass left out)", ncu)
	}
}

// Profile runs nest experiment > variant > shape: every variant's innermost range has the
// same name, so the summary keys on the path or it sums different variants together.
func TestKernelSummaryRangePath(t *testing.T) {
	s := "B=8,T=4096"
	ks := []ingest.Kernel{
		{Source: "nsys", Pass: ingest.PassTimeline, Range: s, RangePath: "gla/unfused/" + s, ShortName: "gemm", DurationNs: 10},
		{Source: "nsys", Pass: ingest.PassTimeline, Range: s, RangePath: "gla/fused/" + s, ShortName: "gemm", DurationNs: 30},
	}
	got, _ := KernelSummary(ks, Options{})
	if len(got.Rows) != 2 || got.Rows[0].Range != "gla/fused/"+s || got.Rows[1].Range != "gla/unfused/"+s {
		t.Errorf("summary = %+v, want one row per range path", got)
	}
}

func TestKernelSummaryOptions(t *testing.T) {
	k := func(path, name string, d int64) ingest.Kernel {
		return ingest.Kernel{RangePath: path, Name: "void " + name + "<1>(int)", ShortName: name, Mangled: "_Z" + name, DurationNs: d}
	}
	ks := []ingest.Kernel{
		k("gla/fused/B=8", "fused", 50),
		k("gla/unfused/B=8", "gemm", 20), k("gla/unfused/B=8", "gemm", 20),
		k("gla/unfused/B=8", "silu", 5), k("gla/unfused/B=8", "silu", 5), k("gla/unfused/B=8", "silu", 5),
		k("gla/unfused/B=8", "add", 41),
		k("swiglu/fused/M=512", "fused", 9),
		k("", "warmup", 1000),
	}
	type row struct {
		Range, Name string
	}
	rowsOf := func(o Options) []row {
		t.Helper()
		s, err := KernelSummary(ks, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []row
		for _, r := range s.Rows {
			out = append(out, row{r.Range, r.Name})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		opts Options
		want []row
	}{
		{"substring", Options{Range: "unfused", Names: NamesBase},
			[]row{{"gla/unfused/B=8", "add"}, {"gla/unfused/B=8", "gemm"}, {"gla/unfused/B=8", "silu"}}},
		{"glob crosses slashes", Options{Range: "gla/*", Names: NamesBase, Top: 1},
			[]row{{"gla/fused/B=8", "fused"}, {"gla/unfused/B=8", "add"}}},
		{"glob is anchored", Options{Range: "fused*", Names: NamesBase}, nil},
		{"glob class", Options{Range: "[gs]*/fused/*", Names: NamesMangled},
			[]row{{"gla/fused/B=8", "_Zfused"}, {"swiglu/fused/M=512", "_Zfused"}}},
		{"unranged as -", Options{Range: "-"}, []row{{"", "void warmup<1>(int)"}}},
		{"ranged only", Options{Range: "*", RangedOnly: true, Names: NamesBase, Top: 1},
			[]row{{"gla/fused/B=8", "fused"}, {"gla/unfused/B=8", "add"}, {"swiglu/fused/M=512", "fused"}}},
		{"by instances", Options{Range: "unfused", Sort: SortInstances, Names: NamesBase},
			[]row{{"gla/unfused/B=8", "silu"}, {"gla/unfused/B=8", "gemm"}, {"gla/unfused/B=8", "add"}}},
		{"by name", Options{Range: "unfused", Sort: SortName},
			[]row{{"gla/unfused/B=8", "void add<1>(int)"}, {"gla/unfused/B=8", "void gemm<1>(int)"}, {"gla/unfused/B=8", "void silu<1>(int)"}}},
	} {
		if d := cmp.Diff(tc.want, rowsOf(tc.opts)); d != "" {
			t.Errorf("%s: rows (-want +got):\n%s", tc.name, d)
		}
	}
	s, _ := KernelSummary(ks, Options{Top: 2})
	if d := cmp.Diff(map[string]int{"gla/unfused/B=8": 1}, s.LeftOut); d != "" {
		t.Errorf("left out (-want +got):\n%s", d)
	}
	last := s.Rows[len(s.Rows)-1]
	if last.Range != "" {
		t.Errorf("last row %+v, want the unranged one", last)
	}
	for _, bad := range []Options{{Sort: "speed"}, {Names: "short"}, {Top: -1}, {Range: "gla/[fused"}} {
		if _, err := KernelSummary(ks, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// NsysRound1 rounds as SQLite 3.43+ round(v, 1) does in nsys's queries:
// the exact binary value, halves (x.25, x.75) away from zero. 0.15 and
// 591.15 lie just below their halves (0.1499999999999999944...,
// 591.1499999999999773...), 7.45 just above; 23646/40 is the DLProf
// export's cudaStreamWaitEvent average, 591.1 in nsys's cuda_api_sum.
func TestNsysRound1(t *testing.T) {
	for in, want := range map[float64]string{0.25: "0.3", 0.75: "0.8", -0.25: "-0.3", 1.25: "1.3", 8437.25: "8437.3",
		29167.5: "29167.5", 2.04: "2.0", 7.45: "7.5", 1.0 / 3: "0.3", 0.15: "0.1", 23646.0 / 40: "591.1",
		328962.0 / 40: "8224.0", 0: "0.0"} {
		if got := FormatNsys1(in); got != want {
			t.Errorf("FormatNsys1(%v) = %s, want %s", in, got, want)
		}
	}
}
