package roofline

import (
	"math"

	"github.com/rooftool/rooftool/gpu"
)

// axisRange is the extent of a roofline's axes.
type axisRange struct{ xlo, xhi, ylo, yhi float64 }

// Margins of a roofline's axes around what they must show, as factors on
// the log axes: room for the markers' labels right and left of the data,
// for the roof labels above the highest roof; and how much of each roof's
// line shows beyond its ridge point (a slope left of it, a flat roof right
// of it).
const (
	marginX    = 2.0
	marginBot  = 2.0
	marginTop  = 2.5
	roofShown  = 3.0
	minDecades = 1.0 // the least span of an axis, in decades
)

// axisBounds fits the axes to what the plot shows: every kernel point and
// total with a margin, and every roof drawn: each compute roof's height and
// its ridge with the catalog or device DRAM roof (where its flat line
// starts), the ridge of the highest compute roof with each bandwidth roof
// (where each slope ends), each shown along roofShown of its line; an axis
// spanning less than minDecades is widened about its middle. With no point
// and no roof it falls back to 0.1-1000 FLOP/byte and 1 GFLOP/s-1 PFLOP/s.
// It also returns the highest compute roof (0 when none).
func axisBounds(pts []kpoint, aggs []aggregate, roofs []roof) (float64, axisRange) {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	ok := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
	data := func(x, y float64) {
		if ok(x) && ok(y) {
			xlo, xhi = math.Min(xlo, x/marginX), math.Max(xhi, x*marginX)
			ylo, yhi = math.Min(ylo, y/marginBot), math.Max(yhi, y*marginTop)
		}
	}
	for _, p := range pts {
		data(p.x, p.y)
	}
	for _, a := range aggs {
		data(a.x, a.y)
	}
	top, dram := 0.0, 0.0
	for _, r := range roofs {
		switch {
		case r.kind == gpu.KindCompute:
			top = math.Max(top, r.value)
		case !r.measured && r.names[0] == gpu.CeilDRAM:
			dram = r.value
		}
	}
	ridge := func(x float64) {
		if ok(x) {
			xlo, xhi = math.Min(xlo, x/roofShown), math.Max(xhi, x*roofShown)
		}
	}
	for _, r := range roofs {
		switch {
		case r.kind == gpu.KindCompute:
			if ok(r.value) {
				ylo, yhi = math.Min(ylo, r.value/marginBot), math.Max(yhi, r.value*marginTop)
			}
			if dram > 0 {
				ridge(r.value / dram)
			}
		case top > 0:
			ridge(top / r.value)
		}
	}
	if math.IsInf(xlo, 1) {
		xlo, xhi = 0.1, 1000
	}
	if math.IsInf(ylo, 1) {
		ylo, yhi = 1e9, 1e15
	}
	xlo, xhi = atLeastDecades(xlo, xhi)
	ylo, yhi = atLeastDecades(ylo, yhi)
	return top, axisRange{xlo, xhi, ylo, yhi}
}

// atLeastDecades widens lo..hi about its geometric middle to span
// minDecades where it spans less.
func atLeastDecades(lo, hi float64) (float64, float64) {
	span := math.Log10(hi / lo)
	if span >= minDecades {
		return lo, hi
	}
	f := math.Pow(10, (minDecades-span)/2)
	return lo / f, hi * f
}
