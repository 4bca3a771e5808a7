package roofline

// Drawing of the hierarchical roofline: roof lines and their labels, the
// names of totals and kernels placed clear of markers and other text (with
// leader lines where they had to move away), baseline-to-candidate arrows.

import (
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// glyphThumb is a legend thumbnail that is one glyph.
type glyphThumb struct{ sty draw.GlyphStyle }

func (g glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(g.sty, c.Center()) }

// diamondGlyph is a filled diamond with a black outline.
type diamondGlyph struct{}

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	poly := []vg.Point{{X: pt.X, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y}, {X: pt.X, Y: pt.Y - r}, {X: pt.X - r, Y: pt.Y}}
	c.FillPolygon(sty.Color, poly)
	c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}, append(poly, poly[0]))
}

// rooflineLayer draws the roofs and their labels, the arrows between
// totals, the totals' names and the names of the heaviest kernels.
type rooflineLayer struct {
	roofs  []roof
	labels []klabel
	aggs   []aggregate
	arrows [][2]int // indices into aggs: from a baseline's total to a candidate's
	top    float64
	note   string
	points []kpoint // kernel markers: labels keep off them
	// outside is outsideNote's note.
	outside string
	// drawn, where set, records what the next drawing places (tests).
	drawn *layout
}

func (l *rooflineLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	d := &roofDraw{c: c, trX: trX, trY: trY, drawn: l.drawn}
	if d.drawn != nil {
		*d.drawn = layout{area: c.Rectangle, xr: [2]float64{p.X.Min, p.X.Max}, yr: [2]float64{p.Y.Min, p.Y.Max}, legend: legendRect(&p.Legend, c)}
	}
	l.markObstacles(d, &p.Legend)
	l.drawFlatRoofs(d, p.X.Min, p.X.Max)
	slopes := l.drawSlopes(d, p.X.Min, p.X.Max, p.Y.Min)
	l.nameTotals(d)
	l.nameKernels(d)
	l.writeNotes(d, slopes)
}

// roofDraw is one drawing of the roofline layer: the canvas, its data
// transforms, the rectangles already taken by marks, lines and text, and
// the layout it records (nil: none).
type roofDraw struct {
	c        draw.Canvas
	trX, trY func(float64) vg.Length
	taken    placed
	texts    []vg.Rectangle // the boxes of the texts written so far
	drawn    *layout
}

// pt is the canvas point of data point (x, y).
func (d *roofDraw) pt(x, y float64) vg.Point { return vg.Point{X: d.trX(x), Y: d.trY(y)} }

// markObstacles takes the space of what notes and labels must keep off:
// the legend (drawn over the data area last), the kernel markers and the
// totals' diamonds.
func (l *rooflineLayer) markObstacles(d *roofDraw, legend *plot.Legend) {
	d.taken = append(d.taken, legendRect(legend, d.c))
	square := func(at vg.Point, r vg.Length) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: at.X - r, Y: at.Y - r}, Max: vg.Point{X: at.X + r, Y: at.Y + r}}
	}
	for _, q := range l.points {
		d.taken = append(d.taken, square(d.pt(q.x, q.y), vg.Points(5)))
	}
	for _, a := range l.aggs {
		d.taken = append(d.taken, square(d.pt(a.x, a.y), aggRadius+vg.Points(1)))
	}
}

// nameKernels writes the names of the heaviest kernels beside their
// points (placeLabel), near them or not at all: in a crowd of markers a
// kernel's name is left out rather than drawn far off.
func (l *rooflineLayer) nameKernels(d *roofDraw) {
	ksty := textStyle(vg.Points(8), color.RGBA{40, 40, 40, 255})
	for _, kl := range l.labels {
		d.placeLabel(ksty, d.pt(kl.x, kl.y), vg.Points(4), kl.text, nearRings)
	}
}

// How far placeLabel looks for a free place, in rings around the marker
// (labelRing apart); allRings goes on over the whole canvas.
const (
	nearRings = 3
	farRings  = 6
	allRings  = -1
)

// labelRing is the distance between placeLabel's rings.
var labelRing = vg.Points(9)

// writeNotes writes the layer's note at the top left, and below it the note
// of totals outside their kernels' points at the lowest, then leftmost,
// place clear of text, markers and the roof slopes (top left all the same
// where there is none).
func (l *rooflineLayer) writeNotes(d *roofDraw, slopes [][2]vg.Point) {
	c := d.c
	y := c.Max.Y - vg.Points(12)
	if l.note != "" {
		nsty := textStyle(vg.Points(11), color.RGBA{150, 40, 40, 255})
		y -= nsty.Height(l.note)
		r := fillTextBG(c, nsty, vg.Point{X: c.Min.X + vg.Points(12), Y: y}, l.note)
		d.taken = append(d.taken, r)
		d.record(drawnLabel{text: l.note, boxes: []vg.Rectangle{r}})
		y -= vg.Points(6)
	}
	if l.outside == "" {
		return
	}
	osty := textStyle(vg.Points(9), color.RGBA{40, 40, 40, 255})
	w, h := osty.Width(l.outside), osty.Height(l.outside)
	top := vg.Point{X: c.Min.X + vg.Points(12), Y: y - h}
	at := top
	var cands []vg.Point
	for cy := c.Min.Y + vg.Points(12); cy <= top.Y; cy += (c.Max.Y - c.Min.Y) / 24 {
		for cx := c.Min.X + vg.Points(12); cx+w <= c.Max.X; cx += (c.Max.X - c.Min.X) / 24 {
			cands = append(cands, vg.Point{X: cx, Y: cy})
		}
	}
	cands = append(cands, top)
	for _, cand := range cands {
		r := textRect(osty, cand, l.outside)
		if d.taken.free(r, c) && !crossesAny(r, slopes) {
			at = cand
			break
		}
	}
	r := fillTextBG(c, osty, at, l.outside)
	d.taken = append(d.taken, r)
	d.record(drawnLabel{text: l.outside, boxes: []vg.Rectangle{r}})
}

// labelGap is the room between a marker's edge and its label.
var labelGap = vg.Points(2)

// placeLabel writes txt beside a marker of radius r centred at at, where
// nothing taken is under it and its leader line crosses no text: first
// against the marker, to its right, left, above, below, then at its
// corners; then on up to rings rings further out (farRings for allRings),
// with a leader line back to the marker; with allRings then at the free
// place of the canvas nearest to it (its leader line crossing a text only
// where every line out would). It takes the space of the text and of its
// leader line, and records them. It reports false, leaving the text
// out, where none of those places is free.
func (d *roofDraw) placeLabel(sty text.Style, at vg.Point, r vg.Length, txt string, rings int) bool {
	c := d.c
	w, h := sty.Width(txt), sty.Height(txt)
	// box is the text's bottom-left corner for a label gap away from at,
	// on the side the angle ang points to.
	box := func(ang float64, gap vg.Length) vg.Point {
		p := vg.Point{X: at.X + gap*vg.Length(math.Cos(ang)), Y: at.Y + gap*vg.Length(math.Sin(ang))}
		switch cos, sin := math.Cos(ang), math.Sin(ang); {
		case cos > 0.35:
			return vg.Point{X: p.X, Y: p.Y - h/2 + vg.Length(sin)*h/2}
		case cos < -0.35:
			return vg.Point{X: p.X - w, Y: p.Y - h/2 + vg.Length(sin)*h/2}
		case sin > 0:
			return vg.Point{X: p.X - w/2, Y: p.Y}
		default:
			return vg.Point{X: p.X - w/2, Y: p.Y - h}
		}
	}
	near := []float64{0, math.Pi, math.Pi / 2, -math.Pi / 2, math.Pi / 4, 3 * math.Pi / 4, -math.Pi / 4, -3 * math.Pi / 4}
	var ring []float64
	for k := range 16 {
		ring = append(ring, float64(k)*math.Pi/8)
	}
	crossOK := false // whether a leader line may cross a text (the last resort)
	try := func(cand vg.Point, leader bool) bool {
		rect := textRect(sty, cand, txt)
		if !d.taken.free(rect, c) {
			return false
		}
		var line [2]vg.Point // a leader line, from the marker's edge to the nearest point of the box
		if leader {
			end := vg.Point{X: max(rect.Min.X, min(rect.Max.X, at.X)), Y: max(rect.Min.Y, min(rect.Max.Y, at.Y))}
			dx, dy := float64(end.X-at.X), float64(end.Y-at.Y)
			n := math.Hypot(dx, dy)
			leader = n > float64(r)
			if leader {
				line = [2]vg.Point{{X: at.X + r*vg.Length(dx/n), Y: at.Y + r*vg.Length(dy/n)}, end}
				for _, t := range d.texts {
					if !crossOK && crossesAny(t, [][2]vg.Point{line}) {
						return false // it would cross a text written before
					}
				}
			}
		}
		if leader {
			c.StrokeLine2(joinStyle, line[0].X, line[0].Y, line[1].X, line[1].Y)
			d.taken = append(d.taken, segmentBoxes(line[0], line[1], vg.Points(1.5))...)
		}
		drawn := fillTextBG(c, sty, cand, txt)
		d.taken = append(d.taken, drawn)
		a := at
		d.record(drawnLabel{text: txt, boxes: []vg.Rectangle{drawn}, anchor: &a, leader: leader})
		return true
	}
	for _, ang := range near {
		if try(box(ang, r+labelGap), false) {
			return true
		}
	}
	n := rings
	if rings == allRings {
		n = farRings
	}
	for k := 1; k <= n; k++ {
		for _, ang := range ring {
			if try(box(ang, r+labelGap+vg.Length(k)*labelRing), true) {
				return true
			}
		}
	}
	if rings != allRings {
		return false
	}
	// Anywhere on the canvas, nearest first.
	type spot struct {
		p    vg.Point
		dist float64
	}
	var spots []spot
	step := vg.Points(4)
	for y := c.Min.Y; y+h <= c.Max.Y; y += step {
		for x := c.Min.X; x+w <= c.Max.X; x += step {
			dx := float64(max(x-at.X, 0, at.X-(x+w)))
			dy := float64(max(y-at.Y, 0, at.Y-(y+h)))
			spots = append(spots, spot{vg.Point{X: x, Y: y}, math.Hypot(dx, dy)})
		}
	}
	sort.SliceStable(spots, func(i, j int) bool { return spots[i].dist < spots[j].dist })
	for _, s := range spots {
		if try(s.p, true) {
			return true
		}
	}
	// Labels all around the marker: the leader line crosses one.
	crossOK = true
	for _, s := range spots {
		if try(s.p, true) {
			return true
		}
	}
	return false
}

// segmentBoxes covers the segment from a to b with squares of side 2*half,
// so that later labels keep off a leader line.
func segmentBoxes(a, b vg.Point, half vg.Length) []vg.Rectangle {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	n := math.Hypot(dx, dy)
	steps := int(n/float64(half)) + 1
	var out []vg.Rectangle
	for i := 0; i <= steps; i++ {
		t := float64(i) / float64(steps)
		p := vg.Point{X: a.X + vg.Length(t*dx), Y: a.Y + vg.Length(t*dy)}
		out = append(out, vg.Rectangle{Min: vg.Point{X: p.X - half, Y: p.Y - half}, Max: vg.Point{X: p.X + half, Y: p.Y + half}})
	}
	return out
}

// joinStyle is a leader line from a marker to its label.
var joinStyle = draw.LineStyle{Color: color.RGBA{90, 90, 90, 255}, Width: vg.Points(0.8)}

// legendRect is where l is drawn over the data canvas c: the size of
// l.Rectangle, on the side of c that l.Top and l.Left name, moved by its
// offsets.
func legendRect(l *plot.Legend, c draw.Canvas) vg.Rectangle {
	r := l.Rectangle(c)
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	x0, y0 := c.Max.X-w, c.Min.Y
	if l.Left {
		x0 = c.Min.X
	}
	if l.Top {
		y0 = c.Max.Y - h
	}
	x0, y0 = x0+l.XOffs, y0+l.YOffs
	return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + w, Y: y0 + h}}
}

// crossesAny reports whether a segment of segs passes through r.
func crossesAny(r vg.Rectangle, segs [][2]vg.Point) bool {
	for _, sg := range segs {
		// Liang-Barsky: clip the segment to r; it crosses r where
		// something of it is left.
		x0, y0 := float64(sg[0].X), float64(sg[0].Y)
		dx, dy := float64(sg[1].X)-x0, float64(sg[1].Y)-y0
		t0, t1 := 0.0, 1.0
		ok := true
		for _, e := range [][2]float64{{-dx, x0 - float64(r.Min.X)}, {dx, float64(r.Max.X) - x0}, {-dy, y0 - float64(r.Min.Y)}, {dy, float64(r.Max.Y) - y0}} {
			p, q := e[0], e[1]
			if p == 0 {
				if q < 0 {
					ok = false
				}
				continue
			}
			t := q / p
			if p < 0 {
				t0 = math.Max(t0, t)
			} else {
				t1 = math.Min(t1, t)
			}
		}
		if ok && t0 <= t1 {
			return true
		}
	}
	return false
}

// arrowDrawn reports whether drawArrow draws an arrow from a to b with
// gap: they lie far enough apart for its line and head.
func arrowDrawn(a, b vg.Point, gap vg.Length) bool {
	return math.Hypot(float64(b.X-a.X), float64(b.Y-a.Y)) > 2*float64(gap)+9
}

// drawArrow draws a line from a to b that stops short of both ends by gap
// and ends in a filled head, where they lie far enough apart (arrowDrawn).
func drawArrow(c draw.Canvas, a, b vg.Point, gap vg.Length) {
	if !arrowDrawn(a, b, gap) {
		return
	}
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	n := math.Hypot(dx, dy)
	ux, uy := dx/n, dy/n
	s := vg.Point{X: a.X + gap*vg.Length(ux), Y: a.Y + gap*vg.Length(uy)}
	e := vg.Point{X: b.X - gap*vg.Length(ux), Y: b.Y - gap*vg.Length(uy)}
	clr := color.RGBA{60, 60, 60, 255}
	c.StrokeLine2(draw.LineStyle{Color: clr, Width: vg.Points(1.4)}, s.X, s.Y, e.X, e.Y)
	hl, hw := 9.0, 4.0
	base := vg.Point{X: e.X - vg.Length(hl*ux), Y: e.Y - vg.Length(hl*uy)}
	c.FillPolygon(clr, []vg.Point{e,
		{X: base.X - vg.Length(hw*uy), Y: base.Y + vg.Length(hw*ux)},
		{X: base.X + vg.Length(hw*uy), Y: base.Y - vg.Length(hw*ux)}})
}

// rotatedBoxes covers a w x h text drawn from start at angle ang (radians)
// with small squares along its middle line, so that a slanted label is not
// taken for the large box around it.
func rotatedBoxes(start vg.Point, w, h vg.Length, ang float64) []vg.Rectangle {
	cos, sin := vg.Length(math.Cos(ang)), vg.Length(math.Sin(ang))
	var out []vg.Rectangle
	for t := h / 2; t < w; t += h {
		cx := start.X + t*cos - (h/2)*sin
		cy := start.Y + t*sin + (h/2)*cos
		out = append(out, vg.Rectangle{Min: vg.Point{X: cx - h/2, Y: cy - h/2}, Max: vg.Point{X: cx + h/2, Y: cy + h/2}})
	}
	return out
}
