package roofline

import (
	"math"
	"sort"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rooftool/rooftool/gpu"
)

// roofLine is the style of a roof: solid for a device or catalog ceiling,
// dashed and lighter for a measured one.
func roofLine(measured bool) draw.LineStyle {
	if measured {
		return draw.LineStyle{Color: roofLight, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	}
	return draw.LineStyle{Color: roofGrey, Width: vg.Points(1.8)}
}

// drawFlatRoofs draws the compute roofs, highest first: flat, from the DRAM
// slope (the catalog or device one) to the right edge. Lines come first, each
// an obstacle for every label; then each label over its own line.
func (l *rooflineLayer) drawFlatRoofs(d *roofDraw, xmin, xmax float64) {
	dramBW := 0.0
	for _, r := range l.roofs {
		if r.kind == gpu.KindBandwidth && !r.measured && r.names[0] == gpu.CeilDRAM {
			dramBW = r.value
		}
	}
	var flats []roof
	for _, r := range l.roofs {
		if r.kind == gpu.KindCompute {
			flats = append(flats, r)
		}
	}
	sort.SliceStable(flats, func(i, j int) bool { return flats[i].value > flats[j].value })
	flatStart := func(r roof) float64 {
		if dramBW > 0 {
			return math.Max(xmin, r.value/dramBW)
		}
		return xmin
	}
	for _, r := range flats {
		a, b := d.pt(flatStart(r), r.value), d.pt(xmax, r.value)
		d.c.StrokeLines(roofLine(r.measured), d.c.ClipLinesXY([]vg.Point{a, b})...)
		d.taken = append(d.taken, vg.Rectangle{Min: vg.Point{X: a.X, Y: a.Y - vg.Points(1)}, Max: vg.Point{X: b.X, Y: b.Y + vg.Points(1)}})
	}
	for _, r := range flats {
		d.labelFlatRoof(r, d.trX(flatStart(r)))
	}
}

// labelFlatRoof writes the label of compute roof r, whose line starts at
// start: at the right end above or below the line, then further left along
// it; then stacked above the line at the right end with a leader line down
// to it (roofs a few % apart, markers on the line); then, where the line
// is shorter than the label, above it reaching left of where it starts;
// else at the free place nearest the line's right end (placeLabel).
func (d *roofDraw) labelFlatRoof(r roof, start vg.Length) {
	c := d.c
	tsty := textStyle(vg.Points(9), roofGrey)
	if r.measured {
		tsty = textStyle(vg.Points(9), roofLight)
	}
	txt := r.label()
	w, h := tsty.Width(txt), tsty.Height(txt)
	y := d.trY(r.value)
	right := c.Max.X - vg.Points(4) - w
	type cand struct {
		at     vg.Point
		leader bool
	}
	var along, stacked, beyond []cand
	for k := 0; k <= 6; k++ {
		x := right - vg.Length(k)*(w/2+vg.Points(6))
		if x < start {
			beyond = append(beyond, cand{at: vg.Point{X: x, Y: y + vg.Points(2)}})
			continue
		}
		along = append(along, cand{at: vg.Point{X: x, Y: y + vg.Points(2)}}, cand{at: vg.Point{X: x, Y: y - h - vg.Points(2)}})
	}
	if right >= start {
		for k := 1; k <= 12; k++ {
			stacked = append(stacked, cand{vg.Point{X: right, Y: y + vg.Points(2) + vg.Length(k)*(h+vg.Points(2))}, true})
		}
	}
	for _, cd := range append(append(along, stacked...), beyond...) {
		if !d.taken.free(textRect(tsty, cd.at, txt), c) {
			continue
		}
		if cd.leader {
			lx := cd.at.X - vg.Points(3)
			c.StrokeLine2(draw.LineStyle{Color: roofLight, Width: vg.Points(0.6)}, lx, cd.at.Y+h/2, lx-vg.Points(8), y)
		}
		box := fillTextBG(c, tsty, cd.at, txt)
		d.taken = append(d.taken, box)
		d.record(drawnLabel{text: txt, boxes: []vg.Rectangle{box}, leader: cd.leader})
		return
	}
	d.placeLabel(tsty, vg.Point{X: c.Max.X, Y: y}, 0, txt, allRings)
}

// drawSlopes draws the bandwidth roofs: slopes from the left edge (or where
// they cross the bottom) to the highest flat roof, each labelled along its
// line. It returns the slopes' ends, for the notes to keep off.
func (l *rooflineLayer) drawSlopes(d *roofDraw, xmin, xmax, ymin float64) [][2]vg.Point {
	var slopes [][2]vg.Point
	top := l.top
	for _, r := range l.roofs {
		if r.kind != gpu.KindBandwidth {
			continue
		}
		x1 := xmax
		if top > 0 {
			x1 = math.Min(xmax, top/r.value)
		}
		x0 := xmin
		if r.value*x0 < ymin {
			x0 = ymin / r.value
		}
		if x0 >= x1 {
			continue
		}
		lines := d.c.ClipLinesXY([]vg.Point{d.pt(x0, r.value*x0), d.pt(x1, r.value*x1)})
		d.c.StrokeLines(roofLine(r.measured), lines...)
		slopes = append(slopes, [2]vg.Point{d.pt(x0, r.value*x0), d.pt(x1, r.value*x1)})
		d.labelSlope(r, d.pt(x0, r.value*x0), d.pt(x1, r.value*x1))
	}
	return slopes
}

// labelSlope writes the label of bandwidth roof r along its line from a to
// b, rotated to it: near the lower end (measured roofs below their line,
// further up), sliding along the line until no marker or label is under it.
func (d *roofDraw) labelSlope(r roof, a, b vg.Point) {
	tsty := textStyle(vg.Points(9), roofGrey)
	if r.measured {
		tsty = textStyle(vg.Points(9), roofLight)
	}
	ang := math.Atan2(float64(b.Y-a.Y), float64(b.X-a.X))
	txt := r.label()
	tsty.Rotation = ang
	fracs := []float64{0.06, 0.16, 0.26, 0.36, 0.46, 0.56, 0.66}
	off := vg.Points(3)
	if r.measured {
		fracs = []float64{0.30, 0.40, 0.50, 0.60, 0.20, 0.10, 0.70}
		off = -tsty.Height(txt) - vg.Points(2)
	}
	w := tsty.Width(txt)
	var boxes []vg.Rectangle
	var start vg.Point
	for i, frac := range fracs {
		start = vg.Point{X: a.X + vg.Length(frac)*(b.X-a.X), Y: a.Y + vg.Length(frac)*(b.Y-a.Y)}
		start.X -= vg.Length(math.Sin(ang)) * off
		start.Y += vg.Length(math.Cos(ang)) * off
		boxes = rotatedBoxes(start, w, tsty.Height(txt), ang)
		free := true
		for _, bx := range boxes {
			free = free && d.taken.free(bx, d.c)
		}
		if free || i == len(fracs)-1 {
			break
		}
	}
	d.c.FillText(tsty, start, txt)
	d.taken = append(d.taken, boxes...)
	d.record(drawnLabel{text: txt, boxes: boxes})
}
