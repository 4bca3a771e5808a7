package analysis

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
)

// The paired statistic by hand: ten pairs whose ratios base/cand are
// 1.0, 1.1, ..., 1.9 (shuffled). Median of the ten log ratios: the mean of
// the 5th and 6th, ln 1.4 and ln 1.5, so the speedup is sqrt(1.4 x 1.5).
// The distribution-free 95% interval of a median of n = 10: P(Bin(10, 1/2)
// <= 1) = 11/1024, so [x_(2), x_(9)] covers 1 - 22/1024 = 97.9% and
// [x_(3), x_(8)] only 1 - 2 x 56/1024 = 89.1%: the interval is [1.1, 1.8].
func TestPairedSpeedupByHand(t *testing.T) {
	ratios := []float64{1.3, 1.0, 1.9, 1.1, 1.5, 1.2, 1.8, 1.4, 1.7, 1.6}
	var base, cand []float64
	for i, r := range ratios {
		c := 0.5 + 0.1*float64(i) // the times themselves vary; only the ratios matter
		base, cand = append(base, r*c), append(cand, c)
	}
	iv, ws := PairedSpeedup(base, cand, 0.95)
	if len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
	want := Interval{Center: math.Sqrt(1.4 * 1.5), Lo: 1.1, Hi: 1.8, N: 10}
	if !pnear(iv.Center, want.Center) || !pnear(iv.Lo, want.Lo) || !pnear(iv.Hi, want.Hi) || iv.N != 10 {
		t.Errorf("PairedSpeedup = %+v, want %+v", iv, want)
	}
	// n = 6: P(Bin(6, 1/2) = 0) = 1/64, [x_(1), x_(6)] covers 96.9%.
	iv, _ = PairedSpeedup([]float64{1.2, 1.5, 1.1, 1.3, 1.4, 1.25}, []float64{1, 1, 1, 1, 1, 1}, 0.95)
	if !pnear(iv.Lo, 1.1) || !pnear(iv.Hi, 1.5) || !pnear(iv.Center, math.Sqrt(1.25*1.3)) {
		t.Errorf("n=6: %+v, want [1.1, 1.5] around sqrt(1.25*1.3)", iv)
	}
	// n = 5: [x_(1), x_(5)] covers only 1 - 2/32 = 93.75%: no interval.
	iv, ws = PairedSpeedup([]float64{1.2, 1.5, 1.1, 1.3, 1.4}, []float64{1, 1, 1, 1, 1}, 0.95)
	if iv.Hi != Unbounded || iv.Lo != 0 || len(ws) == 0 || ws[0].Code != WarnFewSamples {
		t.Errorf("n=5: %+v %v, want unbounded with a few-samples warning", iv, ws)
	}
}

func pnear(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// A paired record through ingest: the pairs whose halves ran at clocks
// more than 5% apart (1650 vs 1455 MHz: 13.4%) are left out, the rest
// decide; a launch with an error has no pairs and says why.
func TestPairedSpeedupsVoidsClockPairs(t *testing.T) {
	var pairs []string
	ratios := []float64{1.3, 1.0, 1.9, 1.1, 1.5, 1.2, 1.8, 1.4, 1.7, 1.6}
	for i, r := range ratios {
		pairs = append(pairs, fmt.Sprintf(`{"order": "BC", "baseline_ms": %g, "candidate_ms": 1.0, "baseline_sm_mhz": 1650, "candidate_sm_mhz": 1650}`, r))
		if i < 3 { // pairs far off in ratio, each with clocks 13% apart
			pairs = append(pairs, `{"order": "CB", "baseline_ms": 9.0, "candidate_ms": 1.0, "baseline_sm_mhz": 1650, "candidate_sm_mhz": 1455}`)
		}
	}
	body := `{"rooftool_paired": 1, "experiment": "gated_ssm", "shape": "d=2048", "baseline": "eager", "candidate": "quack",
	 "device": "H100", "gpu_uuid": "GPU-1", "discarded_pairs": 4, "launches": [
	 {"launch": "graph", "calls": {}, "pairs": [` + strings.Join(pairs, ",") + `]},
	 {"launch": "eager", "error": "host says no"}]}`
	p := filepath.Join(t.TempDir(), "eager~quack~d=2048.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := detect.File(p, ingest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	got := PairedSpeedups(tb, nil, 0.95)
	g := got[PairKey{"gated_ssm", "d=2048", "eager", "quack", "graph"}]
	if g == nil {
		t.Fatalf("no graph launch in %v", got)
	}
	if g.Pairs != 13 || g.ClockVoided != 3 || g.Speedup.N != 10 || !pnear(g.Speedup.Center, math.Sqrt(1.4*1.5)) || !pnear(g.Speedup.Lo, 1.1) || !pnear(g.Speedup.Hi, 1.8) {
		t.Errorf("graph: %+v, want 13 pairs, 3 voided by clocks, sqrt(1.4*1.5) in [1.1, 1.8] over 10", g)
	}
	e := got[PairKey{"gated_ssm", "d=2048", "eager", "quack", "eager"}]
	if e == nil || e.Error != "host says no" || e.Speedup.N != 0 {
		t.Errorf("eager: %+v, want the error alone", e)
	}
}
