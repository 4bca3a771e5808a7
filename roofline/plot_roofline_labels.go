package roofline

// Drawing of the hierarchical roofline: roof lines and their labels, kernel
// names placed clear of markers and other text, baseline-to-candidate arrows.

import (
	"image/color"
	"math"

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

// rooflineLayer draws the roofs and their labels, the names of the heaviest
// kernels and the baseline-to-candidate arrows.
type rooflineLayer struct {
	roofs  []roof
	labels []klabel
	aggs   []aggregate
	arrows [][2]int // indices into aggs: from a baseline's total to a candidate's
	top    float64
	note   string
	points []kpoint // kernel markers: labels keep off them
	// groups are the totals (indices into aggs) that would cover one
	// another, drawn apart (clusterAggs); totals is where this drawing put
	// them, for aggLayer; outside is outsideNote's note.
	groups  [][]int
	totals  totalsLayout
	outside string
}

func (l *rooflineLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	d := &roofDraw{c: c, trX: trX, trY: trY}
	l.markObstacles(d, &p.Legend)
	l.drawFlatRoofs(d, p.X.Min, p.X.Max)
	slopes := l.drawSlopes(d, p.X.Min, p.X.Max, p.Y.Min)
	l.drawArrows(c)
	l.nameMovedTotals(d)
	l.nameKernels(d)
	l.writeNotes(d, slopes)
}

// roofDraw is one drawing of the roofline layer: the canvas, its data
// transforms, and the rectangles already taken by marks, lines and text.
type roofDraw struct {
	c        draw.Canvas
	trX, trY func(float64) vg.Length
	taken    placed
}

// pt is the canvas point of data point (x, y).
func (d *roofDraw) pt(x, y float64) vg.Point { return vg.Point{X: d.trX(x), Y: d.trY(y)} }

// markObstacles lays out the totals and takes the space of what notes and
// labels must keep off: the legend (drawn over the data area last), the
// kernel markers and the totals with their spots.
func (l *rooflineLayer) markObstacles(d *roofDraw, legend *plot.Legend) {
	d.taken = append(d.taken, legendRect(legend, d.c))
	for _, q := range l.points {
		at := d.pt(q.x, q.y)
		r := vg.Points(5)
		d.taken = append(d.taken, vg.Rectangle{Min: vg.Point{X: at.X - r, Y: at.Y - r}, Max: vg.Point{X: at.X + r, Y: at.Y + r}})
	}
	l.totals = layoutTotals(l.aggs, l.groups, d.pt)
	for _, at := range append(append([]vg.Point{}, l.totals.at...), l.totals.spots...) {
		r := aggRadius + vg.Points(1)
		d.taken = append(d.taken, vg.Rectangle{Min: vg.Point{X: at.X - r, Y: at.Y - r}, Max: vg.Point{X: at.X + r, Y: at.Y + r}})
	}
}

// drawArrows draws an arrow from the baseline's total to each candidate's,
// where they lie apart (within a group the direction would be the layout's).
func (l *rooflineLayer) drawArrows(c draw.Canvas) {
	for _, ar := range l.arrows {
		if l.totals.group[ar[0]] != l.totals.group[ar[1]] {
			drawArrow(c, l.totals.at[ar[0]], l.totals.at[ar[1]], aggRadius+vg.Points(1))
		}
	}
}

// nameMovedTotals joins the totals drawn apart to their own spot (aggLayer
// marks it with a cross over the kernel markers) and names them outward
// from it.
func (l *rooflineLayer) nameMovedTotals(d *roofDraw) {
	for _, j := range l.totals.joined {
		d.c.StrokeLine2(joinStyle, j[0].X, j[0].Y, j[1].X, j[1].Y)
	}
	tsty := textStyle(vg.Points(8), color.RGBA{20, 20, 20, 255})
	for i, a := range l.aggs {
		if l.totals.moved[i] {
			d.taken = append(d.taken, placeOutward(d.c, d.taken, tsty, l.totals.at[i], l.totals.angle[i], aggRadius+vg.Points(3), a.name))
		}
	}
}

// nameKernels writes the kernel names next to their points, avoiding other
// text and the edges; further away, with a leader line back to the point,
// where the near places are taken.
func (l *rooflineLayer) nameKernels(d *roofDraw) {
	c := d.c
	ksty := textStyle(vg.Points(8), color.RGBA{40, 40, 40, 255})
	for _, kl := range l.labels {
		at := d.pt(kl.x, kl.y)
		w, h := ksty.Width(kl.text), ksty.Height(kl.text)
		cands := []vg.Point{
			{X: at.X + vg.Points(6), Y: at.Y + vg.Points(3)},
			{X: at.X + vg.Points(6), Y: at.Y - h - vg.Points(3)},
			{X: at.X - w - vg.Points(6), Y: at.Y + vg.Points(3)},
			{X: at.X - w - vg.Points(6), Y: at.Y - h - vg.Points(3)},
			{X: at.X + vg.Points(6), Y: at.Y + h + vg.Points(6)},
			{X: at.X + vg.Points(6), Y: at.Y - 2*h - vg.Points(6)},
			{X: at.X - w/2, Y: at.Y + h + vg.Points(10)},
			{X: at.X - w/2, Y: at.Y - 2*h - vg.Points(10)},
		}
		// Further away, with a leader line back to the point.
		for k := 2; k <= 6; k++ {
			dy := vg.Length(k) * (h + vg.Points(4))
			cands = append(cands,
				vg.Point{X: at.X + vg.Points(14), Y: at.Y + dy}, vg.Point{X: at.X + vg.Points(14), Y: at.Y - dy - h},
				vg.Point{X: at.X - w - vg.Points(14), Y: at.Y + dy}, vg.Point{X: at.X - w - vg.Points(14), Y: at.Y - dy - h})
		}
		for i, cand := range cands {
			if !d.taken.free(textRect(ksty, cand, kl.text), c) {
				continue
			}
			if i >= 8 {
				end := vg.Point{X: cand.X, Y: cand.Y + h/2}
				if cand.X < at.X {
					end.X = cand.X + w
				}
				c.StrokeLine2(draw.LineStyle{Color: color.RGBA{120, 120, 120, 255}, Width: vg.Points(0.6)}, at.X, at.Y, end.X, end.Y)
			}
			d.taken = append(d.taken, fillTextBG(c, ksty, cand, kl.text))
			break
		}
	}
}

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
		d.taken = append(d.taken, fillTextBG(c, nsty, vg.Point{X: c.Min.X + vg.Points(12), Y: y}, l.note))
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
	fillTextBG(c, osty, at, l.outside)
}

// placeOutward writes txt beside a marker at at, on the side the angle
// out (radians) points to, gap from its centre: there where nothing taken
// is under it, else turned up to 90 degrees either way, else further out
// with a leader line back to the marker; where every place is taken, at
// the first. It returns the text's box.
func placeOutward(c draw.Canvas, taken placed, sty text.Style, at vg.Point, out float64, gap vg.Length, txt string) vg.Rectangle {
	w, h := sty.Width(txt), sty.Height(txt)
	box := func(ang float64, d vg.Length) vg.Point {
		p := vg.Point{X: at.X + d*vg.Length(math.Cos(ang)), Y: at.Y + d*vg.Length(math.Sin(ang))}
		switch cos, sin := math.Cos(ang), math.Sin(ang); {
		case cos > 0.35:
			return vg.Point{X: p.X, Y: p.Y - h/2}
		case cos < -0.35:
			return vg.Point{X: p.X - w, Y: p.Y - h/2}
		case sin > 0:
			return vg.Point{X: p.X - w/2, Y: p.Y}
		default:
			return vg.Point{X: p.X - w/2, Y: p.Y - h}
		}
	}
	var first vg.Point
	for k, d := range []vg.Length{gap, gap + vg.Points(10), gap + vg.Points(22), gap + vg.Points(36)} {
		for j, turn := range []float64{0, 0.5, -0.5, 1, -1, 1.57, -1.57} {
			cand := box(out+turn, d)
			if k == 0 && j == 0 {
				first = cand
			}
			if !taken.free(textRect(sty, cand, txt), c) {
				continue
			}
			if k > 0 {
				// To the nearest point of the text's box.
				end := vg.Point{X: max(cand.X, min(cand.X+w, at.X)), Y: max(cand.Y, min(cand.Y+h, at.Y))}
				c.StrokeLine2(joinStyle, at.X, at.Y, end.X, end.Y)
			}
			return fillTextBG(c, sty, cand, txt)
		}
	}
	return fillTextBG(c, sty, first, txt)
}

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

// drawArrow draws a line from a to b that stops short of both ends by gap
// and ends in a filled head.
func drawArrow(c draw.Canvas, a, b vg.Point, gap vg.Length) {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	n := math.Hypot(dx, dy)
	if n <= 2*float64(gap)+1 {
		return
	}
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
