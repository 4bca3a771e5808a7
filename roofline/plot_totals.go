package roofline

// The variant totals of a roofline (diamonds): totals that would hide one
// another are drawn apart around the spot they share, each joined to it and
// named; arrows run from a baseline's total to each candidate's; a note says
// where totals lie outside their own kernels' points, and why they may.

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// aggRadius is the radius of a total's diamond.
var aggRadius = vg.Points(8)

// coincident is how near two totals' diamonds may come before they are
// drawn apart: nearer than this they cover most of each other.
var coincident = aggRadius * 3 / 2

// dataTransforms are the data-to-canvas transforms p will draw with at
// size w x h (its plotters added, its axes' ranges set).
func dataTransforms(p *plot.Plot, w, h vg.Length) (x, y func(float64) vg.Length) {
	dc := p.DataCanvas(draw.NewCanvas(&recorder.Canvas{}, w, h))
	return p.Transforms(&dc)
}

// clusterAggs groups the totals whose diamonds, at the canvas positions
// pos, come within coincident of one another (a chain of such pairs is one
// group), and then, while a diamond drawn apart around its group's spot
// (spread) would touch a diamond of another group, those two groups as
// one; groups and their members keep the order of aggs.
func clusterAggs(pos []vg.Point) [][]int {
	group := make([]int, len(pos))
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if group[i] != i {
			group[i] = find(group[i])
		}
		return group[i]
	}
	join := func(i, j int) bool {
		a, b := find(i), find(j)
		if a == b {
			return false
		}
		group[max(a, b)] = min(a, b)
		return true
	}
	near := func(p, q vg.Point, d vg.Length) bool {
		return math.Hypot(float64(p.X-q.X), float64(p.Y-q.Y)) < float64(d)
	}
	for i := range pos {
		for j := i + 1; j < len(pos); j++ {
			if near(pos[i], pos[j], coincident) {
				join(i, j)
			}
		}
	}
	groups := func() [][]int {
		var out [][]int
		at := map[int]int{}
		for i := range pos {
			r := find(i)
			k, ok := at[r]
			if !ok {
				k = len(out)
				at[r] = k
				out = append(out, nil)
			}
			out[k] = append(out[k], i)
		}
		return out
	}
	for {
		drawn := spreadAll(pos, groups())
		merged := false
		for i := range drawn {
			for j := i + 1; j < len(drawn); j++ {
				if find(i) != find(j) && near(drawn[i], drawn[j], 2*aggRadius+vg.Points(2)) {
					merged = join(i, j) || merged
				}
			}
		}
		if !merged {
			return groups()
		}
	}
}

// spreadAll is where the totals at pos are drawn, grouped as groups: a
// total alone at its own spot, the members of a group spread around the
// group's spot (the mean of theirs).
func spreadAll(pos []vg.Point, groups [][]int) []vg.Point {
	out := append([]vg.Point{}, pos...)
	for _, members := range groups {
		if len(members) < 2 {
			continue
		}
		at, _ := spread(groupSpot(pos, members), len(members))
		for j, i := range members {
			out[i] = at[j]
		}
	}
	return out
}

// groupSpot is the spot the members of a group share: the mean of their
// positions.
func groupSpot(pos []vg.Point, members []int) vg.Point {
	var c vg.Point
	for _, i := range members {
		c.X += pos[i].X / vg.Length(len(members))
		c.Y += pos[i].Y / vg.Length(len(members))
	}
	return c
}

// spread places the n members of a group around their shared spot c: on a
// circle wide enough that neighbouring diamonds do not touch, the first at
// the top, the others clockwise. It returns the positions and the angle of
// each from c.
func spread(c vg.Point, n int) ([]vg.Point, []float64) {
	r := float64(aggRadius) * 2.5
	if n > 2 {
		r = math.Max(r, (float64(aggRadius)+3)/math.Sin(math.Pi/float64(n)))
	}
	pts := make([]vg.Point, n)
	angs := make([]float64, n)
	for j := range pts {
		a := math.Pi/2 - 2*math.Pi*float64(j)/float64(n)
		pts[j] = vg.Point{X: c.X + vg.Length(r*math.Cos(a)), Y: c.Y + vg.Length(r*math.Sin(a))}
		angs[j] = a
	}
	return pts, angs
}

// totalsLayout is where the totals are drawn on a canvas: each total's
// diamond (its own spot, or moved out of a group), each group's shared
// spot, and the outward angle of each moved diamond.
type totalsLayout struct {
	at     []vg.Point
	moved  []bool
	angle  []float64
	spots  []vg.Point    // shared spot of each group of several
	joined [][2]vg.Point // from a total's own spot to its moved diamond
	group  []int         // group of each total
}

// layoutTotals places the totals aggs, grouped as groups, with the
// transforms of the canvas.
func layoutTotals(aggs []aggregate, groups [][]int, pt func(x, y float64) vg.Point) totalsLayout {
	l := totalsLayout{at: make([]vg.Point, len(aggs)), moved: make([]bool, len(aggs)), angle: make([]float64, len(aggs)), group: make([]int, len(aggs))}
	for g, members := range groups {
		for _, i := range members {
			l.at[i] = pt(aggs[i].x, aggs[i].y)
			l.group[i] = g
		}
		if len(members) < 2 {
			continue
		}
		c := groupSpot(l.at, members)
		pos, angs := spread(c, len(members))
		for j, i := range members {
			l.joined = append(l.joined, [2]vg.Point{l.at[i], pos[j]})
			l.at[i], l.moved[i], l.angle[i] = pos[j], true, angs[j]
		}
		l.spots = append(l.spots, c)
	}
	return l
}

// spotMark draws the shared spot of a group: a small black cross.
func spotMark(c *draw.Canvas, at vg.Point) {
	r := vg.Points(3.5)
	sty := draw.LineStyle{Color: color.Black, Width: vg.Points(1.4)}
	c.StrokeLine2(sty, at.X-r, at.Y-r, at.X+r, at.Y+r)
	c.StrokeLine2(sty, at.X-r, at.Y+r, at.X+r, at.Y-r)
}

// joinStyle is the line from a total's own spot to its moved diamond.
var joinStyle = draw.LineStyle{Color: color.RGBA{90, 90, 90, 255}, Width: vg.Points(0.8)}

// aggLayer draws the totals' diamonds and the crosses of the spots they
// share, on top of the kernel markers, where the roofline layer placed them
// in the same drawing.
type aggLayer struct{ l *rooflineLayer }

func (a aggLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, s := range a.l.totals.spots {
		spotMark(&c, s)
	}
	for i, g := range a.l.aggs {
		at := vg.Point{X: trX(g.x), Y: trY(g.y)}
		if i < len(a.l.totals.at) {
			at = a.l.totals.at[i]
		}
		diamondGlyph{}.DrawGlyph(&c, draw.GlyphStyle{Color: seriesColor(g.series), Radius: aggRadius}, at)
	}
}

// GlyphBoxes keep the diamonds inside the plot's padding, as scatters' do.
func (a aggLayer) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	for _, g := range a.l.aggs {
		out = append(out, plot.GlyphBox{X: p.X.Norm(g.x), Y: p.Y.Norm(g.y),
			Rectangle: vg.Rectangle{Min: vg.Point{X: -aggRadius, Y: -aggRadius}, Max: vg.Point{X: aggRadius, Y: aggRadius}}})
	}
	return out
}

// arrowThumb is the legend thumbnail of the arrows between totals.
type arrowThumb struct{}

func (arrowThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	clr := color.RGBA{60, 60, 60, 255}
	c.StrokeLine2(draw.LineStyle{Color: clr, Width: vg.Points(1.4)}, c.Min.X, y, c.Max.X-vg.Points(5), y)
	c.FillPolygon(clr, []vg.Point{{X: c.Max.X, Y: y}, {X: c.Max.X - vg.Points(7), Y: y + vg.Points(3.5)}, {X: c.Max.X - vg.Points(7), Y: y - vg.Points(3.5)}})
}

// spotThumb is the legend thumbnail of a group's shared spot.
type spotThumb struct{}

func (spotThumb) Thumbnail(c *draw.Canvas) { spotMark(c, c.Center()) }

// outsideNote says which variants' totals lie outside their own kernels'
// points at DRAM (beyond a factor of outsideSlack along either axis), and
// why a total may: "" where none does.
func outsideNote(aggs []aggregate, pts []kpoint) string {
	type box struct{ x0, x1, y0, y1 float64 }
	boxes := map[int]*box{}
	for _, q := range pts {
		if q.level != 0 { // DRAM, the level of a total's bytes
			continue
		}
		b := boxes[q.series]
		if b == nil {
			b = &box{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
			boxes[q.series] = b
		}
		b.x0, b.x1, b.y0, b.y1 = math.Min(b.x0, q.x), math.Max(b.x1, q.x), math.Min(b.y0, q.y), math.Max(b.y1, q.y)
	}
	var out []string
	for _, a := range aggs {
		b := boxes[a.series]
		if b == nil {
			continue
		}
		if a.x > b.x1*outsideSlack || a.x < b.x0/outsideSlack || a.y > b.y1*outsideSlack || a.y < b.y0/outsideSlack {
			out = append(out, a.name)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return wrapWords(fmt.Sprintf("Totals outside their kernels' DRAM points: %s. "+
		"A total is the cell's FLOPs over the DRAM bytes of the whole cell (data kept in L2 between "+
		"its kernels is read once) and over its wall time (gaps between kernels included), "+
		"not an average of its kernels.", strings.Join(out, ", ")), 62)
}

// wrapWords breaks s into lines of at most n bytes at spaces (a longer
// word keeps its own line).
func wrapWords(s string, n int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && line+1+len(w) > n {
			b.WriteByte('\n')
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// outsideSlack is how far (as a factor) a total may lie beyond its
// kernels' points before the note names it.
const outsideSlack = 1.2
