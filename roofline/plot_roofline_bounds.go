package roofline

import (
	"math"

	"github.com/rooftool/rooftool/gpu"
)

// axisRange is the extent of a roofline's axes.
type axisRange struct{ xlo, xhi, ylo, yhi float64 }

// axisBounds sizes the axes: around the ridge of the highest compute roof and
// the lowest catalog bandwidth roof, widened to hold every point and total,
// rounded out to whole decades (the top left free). It also returns the
// highest compute roof (0 when none).
func axisBounds(pts []kpoint, aggs []aggregate, roofs []roof) (float64, axisRange) {
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		minX, maxX, minY, maxY = math.Min(minX, p.x), math.Max(maxX, p.x), math.Min(minY, p.y), math.Max(maxY, p.y)
	}
	for _, a := range aggs {
		minX, maxX, minY, maxY = math.Min(minX, a.x), math.Max(maxX, a.x), math.Min(minY, a.y), math.Max(maxY, a.y)
	}
	top, minBW := 0.0, math.Inf(1)
	for _, r := range roofs {
		if r.kind == gpu.KindCompute {
			top = math.Max(top, r.value)
		} else if !r.measured {
			minBW = math.Min(minBW, r.value)
		}
	}
	xlo, xhi, ylo, yhi := 0.1, 1000.0, 1e9, 1e15
	if top > 0 && !math.IsInf(minBW, 1) {
		ridge := top / minBW
		xlo, xhi = ridge/1000, ridge*20
		ylo, yhi = top/1e4, top*3
	} else if top > 0 {
		ylo, yhi = top/1e4, top*3
	}
	if !math.IsInf(minX, 1) {
		xlo, xhi = math.Min(xlo, minX/3), math.Max(xhi, maxX*5)
		ylo, yhi = math.Min(ylo, minY/3), math.Max(yhi, maxY*3)
	}
	return top, axisRange{floorDecade(xlo), ceilDecade(xhi), floorDecade(ylo), yhi}
}
