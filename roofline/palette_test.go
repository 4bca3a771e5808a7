package roofline

import (
	"image/color"
	"math"
	"testing"
)

// cieLab converts an sRGB colour to CIE L*a*b* (D65 white).
func cieLab(c color.RGBA) [3]float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(c.R), lin(c.G), lin(c.B)
	x := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*b
	z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// deltaE76 is the CIE76 colour difference of a and b.
func deltaE76(a, b color.RGBA) float64 {
	p, q := cieLab(a), cieLab(b)
	return math.Sqrt((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2]))
}

// TestSeriesColorsDistinct: twelve series get twelve colours, every two
// of them at least minSeriesDeltaE apart, none washed out against the
// white background or lost in the black of outlines and text.
func TestSeriesColorsDistinct(t *testing.T) {
	if d := deltaE76(color.RGBA{0, 0, 0, 255}, color.RGBA{255, 255, 255, 255}); math.Abs(d-100) > 0.01 {
		t.Fatalf("ΔE(black, white) = %v, want 100", d)
	}
	const series = 12
	if len(seriesColors) < series {
		t.Fatalf("%d series colours, want %d", len(seriesColors), series)
	}
	for i := 0; i < series; i++ {
		for j := i + 1; j < series; j++ {
			if d := deltaE76(seriesColor(i), seriesColor(j)); d < minSeriesDeltaE {
				t.Errorf("series %d %v and %d %v: ΔE %.1f < %d", i, seriesColor(i), j, seriesColor(j), d, minSeriesDeltaE)
			}
		}
		for _, bg := range []color.RGBA{{255, 255, 255, 255}, {0, 0, 0, 255}} {
			if d := deltaE76(seriesColor(i), bg); d < 30 {
				t.Errorf("series %d %v: ΔE %.1f from %v", i, seriesColor(i), d, bg)
			}
		}
	}
}
