package analysis

import (
	"testing"

	"github.com/google/go-cmp/cmp"

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
	got := KernelSummary(SummarySource(ks, ""))
	want := []SummaryRow{
		{Range: "", Name: "void k<1>()", Instances: 2, TotalNs: 15, AvgNs: 7.5, MedNs: 7.5, MinNs: 7, MaxNs: 8},
		{Range: "r1", Name: "gemm", Instances: 3, TotalNs: 60, AvgNs: 20, MedNs: 20, MinNs: 10, MaxNs: 30},
		{Range: "r1", Name: "silu", Instances: 1, TotalNs: 5, AvgNs: 5, MedNs: 5, MinNs: 5, MaxNs: 5},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	ncu := KernelSummary(SummarySource(ks, "ncu"))
	if len(ncu) != 1 || ncu[0].TotalNs != 99 {
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
	got := KernelSummary(ks)
	if len(got) != 2 || got[0].Range != "gla/fused/"+s || got[1].Range != "gla/unfused/"+s {
		t.Errorf("summary = %+v, want one row per range path", got)
	}
}
