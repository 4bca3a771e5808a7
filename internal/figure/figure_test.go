package figure

import (
	"testing"

	"github.com/rooftool/rooftool/analysis"
)

func TestSI(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{1.747976192e9, "B", "1.748 GB"},
		{128974848, "B", "129.0 MB"},
		{0.000012345, "s", "12.35 µs"},
		{999.96, "B", "1.000 kB"},
		{0, "B", "0 B"},
		{60.13e9, "FLOP", "60.13 GFLOP"},
		{-2.5e-3, "s", "-2.500 ms"},
	} {
		if got := SI(tc.v, tc.unit); got != tc.want {
			t.Errorf("SI(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

// An interval end too few samples leave unbounded (analysis.Unbounded, or
// benchmath's +Inf) prints as ±∞; a large figure does not.
func TestUnbounded(t *testing.T) {
	if !Unbounded(analysis.Unbounded) || !Unbounded(-analysis.Unbounded) || Unbounded(1e300) {
		t.Errorf("Unbounded(%g) = %v, Unbounded(1e300) = %v", analysis.Unbounded, Unbounded(analysis.Unbounded), Unbounded(1e300))
	}
	if got, want := Seconds(12.35e-6, 12.3e-6, analysis.Unbounded), "12.35 µs [12.30, +∞]"; got != want {
		t.Errorf("Seconds = %q, want %q", got, want)
	}
}
