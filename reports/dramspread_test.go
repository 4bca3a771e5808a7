package reports

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
)

// TestDRAMVerdictOnReplaySpread: gated_ssm hbm-traffic (dram_ratio < 0.7,
// triton-epilogue over eager) judged on the spread of the range replays.
// By hand, with eager's replays 100, 102, 101 MB (median 101): the ratio's
// interval is min(cand)/102 .. max(cand)/100.
//   - 69, 72, 70 MB: 0.676..0.720 around 70/101 = 0.693: 0.7 inside,
//     INCONCLUSIVE (a point judged at 0.693 would have been GO);
//   - 60, 62, 61 MB: 0.588..0.620: all below 0.7, GO;
//   - 75, 77, 76 MB: 0.735..0.770: all above, NO-GO;
//   - one replay each, 70 and 101 MB: the point 0.693, GO, with
//     dram-one-replay beside it.
func TestDRAMVerdictOnReplaySpread(t *testing.T) {
	const gs = "B=16,T=512,d=768,H=12,dk=64,n=16"
	for _, tc := range []struct {
		name        string
		cand, base  []float64
		verdict     string
		lo, hi      float64
		oneReplay   bool
		reasonParts []string
	}{
		{"threshold inside the spread", []float64{69e6, 72e6, 70e6}, []float64{100e6, 102e6, 101e6}, VerdictInconclusive, 69.0 / 102, 72.0 / 100, false,
			[]string{"range-replay spread [0.676, 0.720] straddles < 0.700x", "triton-epilogue: n=3 range replays, 69.00 MB..72.00 MB; eager: n=3 range replays, 100.0 MB..102.0 MB"}},
		{"whole spread clears", []float64{60e6, 62e6, 61e6}, []float64{100e6, 102e6, 101e6}, VerdictGo, 60.0 / 102, 62.0 / 100, false,
			[]string{"its whole range-replay spread [0.588, 0.620] clear < 0.700x"}},
		{"whole spread misses", []float64{75e6, 77e6, 76e6}, []float64{100e6, 102e6, 101e6}, VerdictNoGo, 75.0 / 102, 77.0 / 100, false,
			[]string{"its whole range-replay spread [0.735, 0.770] miss < 0.700x"}},
		{"one replay: a point, marked", []float64{70e6}, []float64{101e6}, VerdictGo, 70.0 / 101, 70.0 / 101, true,
			[]string{"0.693x clears < 0.700x", "dram-one-replay"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := syntheticJudged(t)
			for i := range in.Run.Cells {
				c := &in.Run.Cells[i]
				if c.Experiment != "gated_ssm" || c.Shape != gs {
					continue
				}
				switch c.Variant {
				case "triton-epilogue":
					c.DRAMBytesRangeReplays, c.DRAMBytesRange = tc.cand, medianOf(tc.cand)
				case "eager":
					c.DRAMBytesRangeReplays, c.DRAMBytesRange = tc.base, medianOf(tc.base)
				}
			}
			var d *Decision
			rep := Build(in)
			for i := range rep.Decisions {
				if x := &rep.Decisions[i]; x.Experiment == "gated_ssm" && x.Shape == gs && x.Claim == "hbm-traffic" {
					d = x
				}
			}
			if d == nil || d.Measured == nil {
				t.Fatalf("no measured hbm-traffic decision at %s", gs)
			}
			m := *d.Measured
			if d.Verdict != tc.verdict || !near(m.Lo, tc.lo) || !near(m.Hi, tc.hi) || m.N != len(tc.cand) {
				t.Errorf("verdict %s, measured [%v, %v] n=%d; want %s, [%v, %v] n=%d\n  %s", d.Verdict, m.Lo, m.Hi, m.N, tc.verdict, tc.lo, tc.hi, len(tc.cand), d.Reason)
			}
			for _, p := range tc.reasonParts {
				if !strings.Contains(d.Reason, p) {
					t.Errorf("reason lacks %q:\n  %s", p, d.Reason)
				}
			}
			one := false
			for _, w := range d.Warnings {
				one = one || w.Code == analysis.WarnDRAMOneReplay
			}
			if one != tc.oneReplay {
				t.Errorf("dram-one-replay on the decision: %v, want %v (%+v)", one, tc.oneReplay, d.Warnings)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestDRAMCell: the tables' DRAM figure carries n and the spread.
func TestDRAMCell(t *testing.T) {
	for _, tc := range []struct {
		row  CellRow
		want string
	}{
		{CellRow{DRAMBytes: 70e6, DRAMBytesReplays: []float64{69e6, 72e6, 70e6}}, "70.00 MB (n=3: 69.00 MB..72.00 MB)"},
		{CellRow{DRAMBytes: 68.78e6, DRAMBytesReplays: []float64{68.78e6}}, "68.78 MB (n=1)"},
		{CellRow{DRAMBytesKernels: 147.2e6}, "147.2 MB*"},
		{CellRow{}, "—"},
	} {
		if got := dramCell(tc.row); got != tc.want {
			t.Errorf("dramCell(%+v) = %q, want %q", tc.row, got, tc.want)
		}
	}
}
