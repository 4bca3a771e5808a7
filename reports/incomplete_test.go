package reports

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// Run 2026-11-27-h100-222424 has no finish time in its manifest (three
// invocations: the first and two --resume) and its five swiglu_fp8 cells
// ran check, timing, ncu and range but never nsys: its report says it is
// incomplete in the header and the verdict summary of report.md and
// report.html, and in report.json's run. Run 2026-11-23-h100-161238
// finished with every pass: it says nothing of the kind.
func TestIncompleteRunSaysSo(t *testing.T) {
	const run = "2026-11-27-h100-222424"
	if m := openCommitted(t, run).Manifest; !m.Finished.IsZero() || len(m.Resumed) != 2 {
		t.Fatalf("%s: finished %v, %d resumed: the test's premise is none and 2", run, m.Finished, len(m.Resumed))
	}
	rep := Build(*loadCommitted(t, run))
	want := []string{
		"no finish time: the last of its 3 invocations (the first, then 2 with --resume) did not finish",
		"the nsys pass never ran for 5 cells: swiglu_fp8/dual-acc/M=512,N=4096,K=7168, swiglu_fp8/dual-acc-graph/M=512,N=4096,K=7168, swiglu_fp8/quack-gated/M=512,N=4096,K=7168, swiglu_fp8/unfused/M=512,N=4096,K=7168 and 1 more",
	}
	if !slices.Equal(rep.Run.Incomplete, want) {
		t.Errorf("incomplete %q, want %q", rep.Run.Incomplete, want)
	}
	var md, js, ht bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&ht, rep, nil); err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string]string{"report.md": md.String(), "report.html": ht.String()} {
		if !strings.Contains(b, "Incomplete run</") && !strings.Contains(b, "**Incomplete run**: "+want[0]) {
			t.Errorf("%s: no incomplete-run header", f)
		}
		if !strings.Contains(b, "claim-shape pairs of an incomplete run") {
			t.Errorf("%s: the verdict summary does not say the run is incomplete", f)
		}
	}
	if !strings.Contains(js.String(), `"incomplete": [`) {
		t.Error("report.json: run has no incomplete list")
	}
	if whole := Build(*loadCommitted(t, "2026-11-23-h100-161238")); len(whole.Run.Incomplete) != 0 {
		t.Errorf("2026-11-23-h100-161238: incomplete %q, want none", whole.Run.Incomplete)
	}
}

// In run 2026-11-27-h100-222424 fla-hgrn's range covers 0.8955 of its
// kernel pass's L2 bytes (manifest), under the 0.90 threshold: the report
// prints 0.89 (cut, 89.55/100), never "0.90", and its DRAM figure is marked
// partial, not printed as the variant's whole traffic.
func TestPartialRangeNotWhole(t *testing.T) {
	const run = "2026-11-27-h100-222424"
	st, ok := openCommitted(t, run).Manifest.Pass("scan_gate", "fla-hgrn", "B=4,T=2048,d=256,dv=64", rundir.PassRange)
	if !ok || st.Coverage == nil || st.Coverage.L2Bytes == nil || *st.Coverage.L2Bytes != 0.8955 {
		t.Fatalf("%s: fla-hgrn range coverage %+v, the test's premise is 0.8955", run, st.Coverage)
	}
	for v, want := range map[float64]string{0.8955: "0.89", 0.29: "0.29", 1.9155: "1.91", 0.9: "0.90"} {
		if got := coverage(v); got != want {
			t.Errorf("coverage(%v) = %q, want %q", v, got, want)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, Build(*loadCommitted(t, run))); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(l, "| fla-hgrn (reference)") || !strings.Contains(l, " L2, ") {
			continue
		}
		if !strings.Contains(l, "| partial: 455.9 kB (n=1) |") || !strings.Contains(l, "0.89 L2, 1.91 time") {
			t.Errorf("fla-hgrn row %q: want its DRAM marked partial and coverage 0.89 L2, 1.91 time", l)
		}
		return
	}
	t.Fatal("no fla-hgrn row with range coverage in report.md")
}

// The run-level clocks warning of run 2026-11-27-h100-222424 quotes the
// ncu kernel pass's clock alone, 1943 MHz (an independent recomputation
// from the kernel pass's sm__cycles_elapsed.avg.per_second), not the 1886
// MHz the range rows pulled the median down to.
func TestRunClocksKernelPass(t *testing.T) {
	rep := Build(*loadCommitted(t, "2026-11-27-h100-222424"))
	for _, w := range rep.Warnings {
		if w.Code == "clocks-differ" && strings.Contains(w.Msg, "ncu kernel pass ran at 1943 MHz") {
			return
		}
	}
	t.Errorf("no clocks-differ warning at 1943 MHz: %v", rep.Warnings)
}
