package suggest_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/suggest"
	"github.com/rooftool/rooftool/testdata"
)

// modelMiss is a check of torch.compile's default mode, in a committed H100
// run, whose prediction misses the measured saving by more than 30% (and,
// for time, lies outside the measured saving's 95% interval): its figures,
// MB for DRAM and us for time, as the model and the measurement give them.
type modelMiss struct {
	run, experiment, shape, candidate, quantity string
	pred, meas                                  float64
}

// modelMisses are all the misses of TestInductorModelAgainstH100Runs.
// gated_ssm at T=512: the model's warm-L2 saving, 28.3 MB (y0's write, and
// g_raw's and a_raw's write-backs, overwritten in place while in L2), is
// 56-64% above the range pass's 17.3-18.2 MB: compiled writes 23-24 MB
// less than eager there (the model: 28.3) but reads 5.6-6.4 MB more (the
// model: as much). gla_proj's forward: torch.compile launched the
// baseline's kernels (no saving predicted, none in kernels), and the two
// cells differ by -9 to +20 MB of 1.9 GB and 18-47 us of 1.8 ms, beyond
// the wall loops' intervals in three runs.
var modelMisses = []modelMiss{
	{"2026-11-23-h100-140505", "gated_ssm", "T=512", "compiled", "warm", 28.3, 18.2},
	{"2026-11-23-h100-161238", "gated_ssm", "T=512", "compiled", "warm", 28.3, 17.3},
	{"2026-11-26-h100-065510", "gated_ssm", "T=512", "compiled", "warm", 28.3, 17.6},
	{"2026-11-27-h100-222424", "gated_ssm", "T=512", "compiled", "warm", 28.3, 17.7},
	{"2026-11-23-h100-161238", "gla_proj", "T=4096", "compiled", "warm", 0, 10.4},
	{"2026-11-26-h100-065510", "gla_proj", "T=4096", "compiled", "warm", 0, 20.0},
	{"2026-11-27-h100-222424", "gla_proj", "T=4096", "compiled", "warm", 0, -9.3},
	{"2026-11-22-h100-034455", "gla_proj", "T=4096", "compiled", "time", 0, 46.6},
	{"2026-11-23-h100-161238", "gla_proj", "T=4096", "compiled", "time", 0, 35.5},
	{"2026-11-27-h100-222424", "gla_proj", "T=4096", "compiled", "time", 0, 17.6},
}

// within30 says whether pred is within 30% of meas (both zero: yes).
func within30(pred, meas float64) bool {
	if meas == 0 {
		return pred == 0
	}
	return math.Abs(pred-meas) <= 0.3*math.Abs(meas)
}

// Over every committed H100 run, torch.compile's default-mode variants
// (compiled, compiled-fwdbwd) against their baselines: the kernels, warm-L2
// DRAM bytes and GPU time the model predicts from the baseline alone are
// each within 30% of the measured saving, or (time) inside the measured
// saving's 95% interval, except the misses modelMisses lists with their
// figures. Measured: kernels on nsys; warm DRAM on the range pass, where
// it covers both cells (the 2026-11-22 runs' range passes cover part of a
// cell: no measured saving); time on the timing pass's medians (wall
// loops: no compiled call was captured in a CUDA graph), or on nsys where
// a wall loop is host-bound (gated_ssm at T=512), each check naming it.
func TestInductorModelAgainstH100Runs(t *testing.T) {
	want := map[string]modelMiss{}
	for _, m := range modelMisses {
		want[strings.Join([]string{m.run, m.experiment, m.shape, m.candidate, m.quantity}, " ")] = m
	}
	seen, runs := map[string]bool{}, 0
	for _, name := range testdata.Runs() {
		res := loadCommittedResult(t, name)
		if !strings.Contains(res.Run.GPU, "H100") {
			continue
		}
		runs++
		for _, c := range suggest.CheckSuggestionsWith(res.Run, suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), 132) {
			if c.Candidate != "compiled" && c.Candidate != "compiled-fwdbwd" {
				continue
			}
			if !c.ModelKnown {
				t.Errorf("%s %s %s %s: no model prediction", name, c.Experiment, c.Shape, c.Candidate)
				continue
			}
			shape := strings.Split(c.Shape, ",")[1]
			wantRef := suggest.TimeRefWall
			if c.Experiment == "gated_ssm" && shape == "T=512" {
				wantRef = suggest.TimeRefNsys
			}
			if c.TimeRef != wantRef || (wantRef == suggest.TimeRefNsys) != strings.Contains(c.TimeRefNote, "host-bound") {
				t.Errorf("%s %s %s %s: time reference %q (%s), want %q", name, c.Experiment, shape, c.Candidate, c.TimeRef, c.TimeRefNote, wantRef)
			}
			type quantity struct {
				name       string
				pred, meas float64
				met, valid bool
			}
			qs := []quantity{
				{"kernels", float64(c.ModelKernels), float64(c.MeasKernels), within30(float64(c.ModelKernels), float64(c.MeasKernels)), true},
				{"warm", c.ModelDRAMWarmBytes / 1e6, c.MeasDRAMBytes / 1e6, within30(c.ModelDRAMWarmBytes, c.MeasDRAMBytes), c.DRAMKnown && c.Note == ""},
				{"time", c.ModelTimeNs / 1e3, c.MeasRefTimeNs / 1e3, within30(c.ModelTimeNs, c.MeasRefTimeNs) ||
					(c.MeasRefLoNs <= c.ModelTimeNs && c.ModelTimeNs <= c.MeasRefHiNs), true},
			}
			for _, q := range qs {
				if !q.valid {
					continue
				}
				key := strings.Join([]string{name, c.Experiment, shape, c.Candidate, q.name}, " ")
				m, listed := want[key]
				seen[key] = true
				switch {
				case q.met && listed:
					t.Errorf("%s: now met (%.1f against %.1f): take it off modelMisses", key, q.pred, q.meas)
				case !q.met && !listed:
					t.Errorf("%s: %.1f against %.1f misses by more than 30%%", key, q.pred, q.meas)
				case listed && (math.Abs(q.pred-m.pred) > 0.05 || math.Abs(q.meas-m.meas) > 0.05):
					t.Errorf("%s: %.1f against %.1f, modelMisses says %.1f against %.1f", key, q.pred, q.meas, m.pred, m.meas)
				}
			}
		}
	}
	if runs != 6 {
		t.Errorf("%d committed H100 runs, want 6", runs)
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("modelMisses lists %s, which no check has", k)
		}
	}
}

// Figures of run 2026-11-23-h100-161238 and 140505 from the raw exports by
// hand, not through rooftool's tables.
//
// The timing pass, gated_ssm at T=2048 in 161238 (raw/timing/gated_ssm/
// {eager,compiled}/B=16,T=2048,d=2048,H=16,dk=128,n=16.json, samples_ms;
// neither has device_ms: compiled's call cannot be captured in a CUDA graph):
//
//	import json, math, statistics
//	p = "testdata/runs/2026-11-23-h100-161238/raw/timing/gated_ssm/%s/B=16,T=2048,d=2048,H=16,dk=128,n=16.json"
//	e, c = (sorted(json.load(open(p % v))["samples_ms"]) for v in ("eager", "compiled"))
//	print((statistics.median(e) - statistics.median(c)) * 1e6)  # 78671.93 ns
//	n = 50; cdf = lambda k: sum(math.comb(n, i) for i in range(k + 1)) / 2**n
//	k = max(k for k in range(1, 25) if 1 - 2 * cdf(k - 1) >= 0.975)  # 17
//	print((e[k-1] - c[n-k]) * 1e6, (e[n-k] - c[k-1]) * 1e6)  # 72480.20 100960.02
//
// The range pass, gated_ssm at T=512 in 140505 (raw/ncu-range/gated_ssm/
// <variant>/B=16,T=512,...range.csv.gz, dram__bytes_read.sum +
// dram__bytes_write.sum): eager 56389632 + 104655616, compiled 62359040 +
// 80482560: 18203648 B saved, 24173056 B of writes and -5969408 B of
// reads. The model's warm saving from the kernel pass (raw/ncu/gated_ssm/
// eager/...csv.gz, dram__bytes_read.sum): y0, half the add's read
// 25174272 = 12587136 (written; read right after; the copy of x and the
// output GEMM's 13783040 + 359168 B fit the 52428800 B L2); g_raw, SiLU's
// read 12596736 (written over in place by the merged SiLU-mul; its window
// 12596736 + the alpha GEMM's 12898048 + 2560 fits); a_raw, sigmoid's read
// 3158528 (in place; + SiLU's 12596736 + 164864 fits): 28342400 B, +55.7%.
func TestSuggestFiguresByHand(t *testing.T) {
	for _, tc := range []struct {
		run, shape string
		check      func(c suggest.Check) string
	}{
		{"2026-11-23-h100-161238", "T=2048", func(c suggest.Check) string {
			if c.TimeRef != suggest.TimeRefWall || c.MeasRefN != 50 || math.Abs(c.MeasRefTimeNs-78671.93) > 0.01 ||
				math.Abs(c.MeasRefLoNs-72480.20) > 0.01 || math.Abs(c.MeasRefHiNs-100960.02) > 0.01 {
				return fmt.Sprintf("%s %.2f [%.2f, %.2f] of %d", c.TimeRef, c.MeasRefTimeNs, c.MeasRefLoNs, c.MeasRefHiNs, c.MeasRefN)
			}
			return ""
		}},
		{"2026-11-23-h100-140505", "T=512", func(c suggest.Check) string {
			if c.MeasDRAMBytes != 18203648 || c.ModelDRAMWarmBytes != 28342400 || math.Abs(c.ErrModelWarmPct-55.70) > 0.01 ||
				c.ModelFused != "mm->add, merge(silu,mul), in place(g_raw,a_raw)" {
				return fmt.Sprintf("warm %.0f B (%s) against %.0f B (%.2f%%)", c.ModelDRAMWarmBytes, c.ModelFused, c.MeasDRAMBytes, c.ErrModelWarmPct)
			}
			return ""
		}},
	} {
		res := loadCommittedResult(t, tc.run)
		found := false
		for _, c := range suggest.CheckSuggestionsWith(res.Run, suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), 132) {
			if c.Experiment == "gated_ssm" && c.Candidate == "compiled" && strings.Split(c.Shape, ",")[1] == tc.shape {
				found = true
				if msg := tc.check(c); msg != "" {
					t.Errorf("%s gated_ssm %s: %s", tc.run, tc.shape, msg)
				}
			}
		}
		if !found {
			t.Errorf("%s: no gated_ssm compiled check at %s", tc.run, tc.shape)
		}
	}
}
