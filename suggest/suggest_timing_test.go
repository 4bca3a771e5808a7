package suggest

import (
	"math"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
)

// The difference's interval by hand: base samples 1..20 ms against a
// candidate of 20 samples of 1 ms. At 97.5% each (a 95% difference) the
// base median's order-statistic interval is [5, 16] (k = 5 of n = 20,
// TestRatioIntervalIs95), the candidate's [1, 1]: 10.5 - 1 = 9.5 in
// [5 - 1, 16 - 1] = [4, 15].
func TestDifferenceInterval(t *testing.T) {
	base, cand := make([]float64, 20), make([]float64, 20)
	for i := range base {
		base[i], cand[i] = float64(i+1), 1
	}
	iv, ws := DifferenceInterval(base, cand, 0.95)
	if iv.Center != 9.5 || iv.Lo != 4 || iv.Hi != 15 || iv.N != 20 || len(ws) != 0 {
		t.Errorf("DifferenceInterval = %+v %v, want 9.5 [4, 15]", iv, ws)
	}
	// Three samples bound no 97.5% median interval: both sides unbounded.
	if iv, _ := DifferenceInterval([]float64{1, 2, 3}, []float64{1, 1, 1}, 0.95); iv.Lo != -analysis.Unbounded || iv.Hi != analysis.Unbounded {
		t.Errorf("three samples: %+v, want an unbounded interval", iv)
	}
}

// Which reference SavedTime takes: both device loops; else both wall loops
// where neither cell is host-bound; else the nsys kernel sums, saying why.
func TestSavedTimeReference(t *testing.T) {
	ms := func(v float64) []float64 {
		s := make([]float64, 20)
		for i := range s {
			s[i] = v + float64(i)*1e-4
		}
		return s
	}
	cell := func(variant string, wall, dev, gpuNs float64) *analysis.CellFact {
		c := &analysis.CellFact{Variant: variant, GPUTimeNs: gpuNs}
		if wall > 0 {
			c.WallSamplesMs = ms(wall)
			c.Wall, _ = analysis.SummarizeMs(c.WallSamplesMs, 0.95)
		}
		if dev > 0 {
			c.DeviceSamplesMs = ms(dev)
			c.Device, _ = analysis.SummarizeMs(c.DeviceSamplesMs, 0.95)
		}
		return c
	}
	for _, tc := range []struct {
		name  string
		b, c  *analysis.CellFact
		ref   string
		saved float64 // ns
		note  string
	}{
		{"device loops", cell("eager", 2.5, 2.4, 2.3e6), cell("fused", 2.4, 2.2, 2.1e6), TimeRefDevice, 0.2e6, ""},
		{"no device loop for the candidate", cell("eager", 2.5, 2.4, 2.3e6), cell("compiled", 2.4, 0, 2.2e6), TimeRefWall, 0.1e6, ""},
		{"host-bound candidate", cell("eager", 0.13, 0.12, 0.11e6), cell("compiled", 0.35, 0, 0.1e6), TimeRefNsys, 0.01e6, "compiled's wall loop is host-bound"},
		{"no timing pass", cell("eager", 2.5, 2.4, 2.3e6), cell("compiled", 0, 0, 2.2e6), TimeRefNsys, 0.1e6, "no timing pass for compiled"},
	} {
		m := SavedTime(tc.b, tc.c, 0.95)
		if m.Ref != tc.ref || math.Abs(m.Saved-tc.saved) > 1 || !strings.Contains(m.Note, tc.note) || (tc.note == "") != (m.Note == "") {
			t.Errorf("%s: %+v; want %s, %g ns, note %q", tc.name, m, tc.ref, tc.saved, tc.note)
		}
		if !m.Covers(m.Saved) {
			t.Errorf("%s: the interval [%g, %g] misses its own centre %g", tc.name, m.Lo, m.Hi, m.Saved)
		}
	}
}
