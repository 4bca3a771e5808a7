package launch

import (
	"slices"
	"testing"

	"github.com/rooftool/rooftool/launch/plan"
)

// gated_ssm's speedup and latency claims give its (baseline, candidate,
// shape) pairs: each best-of claim through every member of fusion
// epilogues, no pair where a cell's timing did not finish, no DRAM claim.
func TestClaimPairs(t *testing.T) {
	exps, err := plan.LoadSpecs("../kernels")
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, e := range exps {
		if e.Name == "gated_ssm" {
			pairs = claimPairs(e, func(v, s string) bool { return v != "cutlass-evt" })
		}
	}
	const d2048, d768 = "B=16,T=2048,d=2048,H=16,dk=128,n=16", "B=16,T=512,d=768,H=12,dk=64,n=16"
	for _, want := range []string{
		"eager/quack-epilogue/" + d2048,        // latency-quack, speedup-d2048-quack
		"eager/quack-epilogue/" + d768,         // speedup-d768-quack
		"eager/triton-gate-epilogue/" + d2048,  // a member of best-of:epilogues
		"eager/compiled-max-autotune/" + d2048, // speedup-d2048-max-autotune
	} {
		if !slices.Contains(pairs, want) {
			t.Errorf("no pair %q in %v", want, pairs)
		}
	}
	for _, p := range pairs {
		if slices.Contains([]string{"eager/cutlass-evt/" + d768, "eager/cutlass-evt/" + d2048}, p) {
			t.Errorf("pair %q of a cell whose timing did not finish", p)
		}
	}
	if !slices.IsSorted(pairs) || len(slices.Compact(slices.Clone(pairs))) != len(pairs) {
		t.Errorf("pairs not sorted or repeated: %v", pairs)
	}
	want := []string{"python3", "kernels/run.py", "pair", "--experiment", "gated_ssm", "--pair", "a/b/S=1", "--out", "raw/timing/gated_ssm"}
	if got := pairArgv("python3", "kernels/run.py", "gated_ssm", []string{"a/b/S=1"}, "raw/timing/gated_ssm"); !slices.Equal(got, want) {
		t.Errorf("argv %q, want %q", got, want)
	}
}
