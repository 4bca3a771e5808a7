package reports

import (
	"math"
	"strings"
	"testing"
)

// gated_ssm hbm-traffic at d=2048 on run 2026-11-23-h100-140505. From the
// raw ncu CSVs, read with Python's csv module:
//   - range pass DRAM (read + write): triton-epilogue 2,688,875,520 B,
//     eager 2,926,903,040 B: ratio 0.9187, NO-GO against < 0.7;
//   - kernel pass, kernels with sm__ops_path_tensor_src_bf16_dst_fp32 > 0:
//     triton-epilogue's 2 GEMMs 2,665,989,376 B and 3,405,311.47 cycles,
//     eager's 4 (cuBLAS) 1,753,033,984 B and 2,941,888.79 cycles: 1.52x the
//     bytes, 1.16x the cycles, so limited by implementation;
//   - the fused out-projection still reads gate and x (claims.yaml
//     epilogue_bytes 2*(B*T*H*dk + B*T*d) = 2*(67,108,864 + 67,108,864) =
//     268,435,456 B): of the 912,955,392 B excess 644,519,936 B are taken
//     off, counterfactual (2,688,875,520 - 644,519,936) / 2,926,903,040 =
//     0.6985 at best, not judged.
func TestLimitedByImplementation(t *testing.T) {
	const run, shape = "2026-11-23-h100-140505", "B=16,T=2048,d=2048,H=16,dk=128,n=16"
	rep := Build(*loadCommitted(t, run))
	var d *Decision
	for i := range rep.Decisions {
		if c := &rep.Decisions[i]; c.Claim == "hbm-traffic" && c.Shape == shape {
			d = c
		}
	}
	if d == nil {
		t.Fatal("no hbm-traffic decision at d=2048")
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.5g, want %.5g", what, got, want)
		}
	}
	if d.Verdict != VerdictNoGo || d.Measured == nil {
		t.Fatalf("verdict %s, want NO-GO: %s", d.Verdict, d.Reason)
	}
	near("measured ratio", d.Measured.Center, 2688875520.0/2926903040.0, 1e-9)
	if d.LimitedBy != LimitedByImplementation || d.MainLoops == nil || d.Counterfactual == nil {
		t.Fatalf("not limited by implementation: %s", d.Reason)
	}
	near("GEMM DRAM ratio", d.MainLoops.DRAMRatio, 2665989376.0/1753033984.0, 1e-6)
	near("GEMM cycles ratio", d.MainLoops.CyclesRatio, 3405311.47/2941888.79, 1e-6)
	near("epilogue bytes", d.Counterfactual.EpilogueBytes, 268435456, 0)
	near("counterfactual", d.Counterfactual.AtBest, (2688875520.0-(2665989376.0-1753033984.0-268435456.0))/2926903040.0, 1e-9)
	if !strings.Contains(d.Reason, "limited by implementation") || !strings.Contains(d.Reason, "at best") || strings.Contains(d.Reason, "would be 0.6") && strings.Contains(d.Reason, "(GO)") {
		t.Errorf("reason %s", d.Reason)
	}
	// The kernel quality table states the same comparison per candidate.
	var q *QualityRow
	for _, e := range rep.Experiments {
		for i := range e.Quality {
			if r := &e.Quality[i]; e.Name == "gated_ssm" && r.Variant == "triton-epilogue" && r.Shape == shape {
				q = r
			}
		}
	}
	if q == nil || q.Verdict != "below library quality" {
		t.Fatalf("quality row: %+v", q)
	}
	near("GEMM speed of library", q.GEMMSpeed, 2941888.79/3405311.47, 1e-6)
	if d.BoundFraction == nil || *d.BoundFraction <= 0 || *d.BoundFraction > 1 {
		t.Errorf("bound fraction %v, want in (0, 1]", d.BoundFraction)
	}
}
