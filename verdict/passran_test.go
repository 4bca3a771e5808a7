package verdict

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/testdata"
)

// In run 2026-11-27-h100-222424 the nsys pass never ran for swiglu_fp8 (its
// manifest cells list check, timing, ncu and range only), so the
// single-kernel claim's kernel count came from the ncu kernel pass: it can
// be no GO.
func TestDecisionNeedsItsPass(t *testing.T) {
	const run = "2026-11-27-h100-222424"
	r := openCommitted(t, run)
	for _, c := range r.Manifest.Cells {
		if c.Experiment == "swiglu_fp8" && c.Variant == "dual-acc" {
			if _, ok := c.Passes[rundir.PassNsys]; ok {
				t.Fatalf("%s: swiglu_fp8/dual-acc has an nsys pass: the test's premise no longer holds", run)
			}
		}
	}
	rep := Build(loadCommitted(t, run))
	found := false
	for _, d := range rep.Decisions {
		if d.Experiment != "swiglu_fp8" || d.Claim != "single-kernel" {
			continue
		}
		found = true
		if d.Verdict == VerdictGo || d.Verdict == VerdictNoGo {
			t.Errorf("swiglu_fp8/single-kernel is %s with no nsys pass: %s", d.Verdict, d.Reason)
		}
	}
	if !found {
		t.Fatal("no swiglu_fp8/single-kernel decision")
	}
}

// No decision of any committed run is GO or NO-GO while a cell it compares
// lacks the pass its metric is measured in (as METHOD.md's metric table
// names it) or that pass did not end ok.
func TestCommittedDecisionsRestOnPassesThatRan(t *testing.T) {
	pass := map[string]string{
		MetricSpeedup: rundir.PassTiming, MetricGPUSpeedup: rundir.PassTiming, MetricTimeUs: rundir.PassTiming,
		MetricDRAMRatio: rundir.PassRange, MetricDRAMReduction: rundir.PassRange, MetricDRAMBytes: rundir.PassRange,
		MetricElementwiseDRAM: rundir.PassNCU, MetricKernelCount: rundir.PassNsys, MetricKernelReduction: rundir.PassNsys,
		MetricElementwiseKernels: rundir.PassNsys, MetricRelError: rundir.PassCheck,
	}
	for _, name := range testdata.Runs() {
		t.Run(name, func(t *testing.T) {
			r := openCommitted(t, name)
			cells := map[string]rundir.Cell{}
			for _, c := range r.Manifest.Cells {
				cells[c.Experiment+"/"+c.Variant+"/"+c.Shape] = c
			}
			rep := Build(loadCommitted(t, name))
			for _, d := range rep.Decisions {
				if d.Verdict != VerdictGo && d.Verdict != VerdictNoGo {
					continue
				}
				p, ok := pass[d.Metric]
				if !ok {
					t.Fatalf("metric %s: no pass in the test's table", d.Metric)
				}
				for _, v := range []string{d.Candidate, d.Baseline} {
					c, ok := cells[d.Experiment+"/"+v+"/"+d.Shape]
					if v == "" || !ok {
						continue
					}
					if ps, ran := c.Passes[p]; !ran || ps.Status != rundir.StatusOK {
						t.Errorf("%s/%s at %s is %s but the %s pass of %s did not run ok", d.Experiment, d.Claim, d.Shape, d.Verdict, p, v)
					}
				}
			}
		})
	}
}

// In run 2026-11-27-h100-222424 swiglu_fp8/dual-acc's range pass replayed
// once (its manifest: one replay, reason "near threshold after 1") though
// the run asked for up to 3 (ncu.range_replays) where a claim lies near:
// no-intermediate, 69.03 MB against <= 70 MB, is 1 - 69.03/70 = 1.4% off,
// within 5%, so the cut replays could turn it: INCONCLUSIVE, saying so.
func TestReplaysCutNearThreshold(t *testing.T) {
	const run = "2026-11-27-h100-222424"
	r := openCommitted(t, run)
	if r.Manifest.Options[rundir.OptionRangeReplays] != "3" {
		t.Fatalf("%s: range_replays %q, the test's premise is 3", run, r.Manifest.Options[rundir.OptionRangeReplays])
	}
	st, ok := r.Manifest.Pass("swiglu_fp8", "dual-acc", "M=512,N=4096,K=7168", rundir.PassRange)
	if !ok || len(st.Replays) != 1 {
		t.Fatalf("%s: swiglu_fp8/dual-acc range replays %d, the test's premise is 1", run, len(st.Replays))
	}
	rep := Build(loadCommitted(t, run))
	for _, d := range rep.Decisions {
		if d.Experiment != "swiglu_fp8" || d.Claim != "no-intermediate" {
			continue
		}
		if d.Verdict != VerdictInconclusive || !strings.Contains(d.Reason, WarnReplaysCut) || !strings.Contains(d.Reason, "1.4% off") {
			t.Errorf("no-intermediate: %s: %s; want INCONCLUSIVE, replays cut, 1.4%% off", d.Verdict, d.Reason)
		}
		if len(d.VoidedBy) != 1 || d.VoidedBy[0] != WarnReplaysCut {
			t.Errorf("no-intermediate: voided_by %q, want [%s]", d.VoidedBy, WarnReplaysCut)
		}
		return
	}
	t.Fatal("no swiglu_fp8/no-intermediate decision")
}
