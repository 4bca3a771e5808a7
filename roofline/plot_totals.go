package roofline

// The variant totals of a roofline (diamonds): each drawn at its own
// value, however near another total it lies, and named by a label placed
// clear of every mark and text (placeLabel), with a leader line where the
// label had to move away; arrows run from a baseline's total to each
// candidate's; a note says where totals lie outside their own kernels'
// points, and why they may.

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
var aggRadius = vg.Points(7)

// aggFill is how opaque a diamond's fill is: totals at one spot show
// through one another.
const aggFill = 200

// dataTransforms are the data-to-canvas transforms p will draw with at
// size w x h (its plotters added, its axes' ranges set).
func dataTransforms(p *plot.Plot, w, h vg.Length) (x, y func(float64) vg.Length) {
	dc := p.DataCanvas(draw.NewCanvas(&recorder.Canvas{}, w, h))
	return p.Transforms(&dc)
}

// placeTotals puts the totals on top of the kernel markers, each at its
// value, and notes the totals outside their kernels' points; it reports
// whether an arrow between two totals is long enough to be drawn at the
// plot's size (the legend shows the arrow only then).
func placeTotals(p *plot.Plot, layer *rooflineLayer, aggs []aggregate, pts []kpoint) (arrows bool) {
	p.Add(aggLayer{layer})
	layer.aggs = aggs
	layer.points = pts
	layer.outside = outsideNote(aggs, pts)
	trX, trY := dataTransforms(p, rooflineW, rooflineH)
	for _, ar := range layer.arrows {
		a, b := aggs[ar[0]], aggs[ar[1]]
		if arrowDrawn(vg.Point{X: trX(a.x), Y: trY(a.y)}, vg.Point{X: trX(b.x), Y: trY(b.y)}, aggRadius+vg.Points(1)) {
			arrows = true
		}
	}
	return arrows
}

// nameTotals draws the arrows from the baseline's total to each
// candidate's, then writes each total's name beside its diamond
// (placeLabel); the diamonds themselves are aggLayer's, drawn over
// everything at their values.
func (l *rooflineLayer) nameTotals(d *roofDraw) {
	for _, ar := range l.arrows {
		a, b := l.aggs[ar[0]], l.aggs[ar[1]]
		drawArrow(d.c, d.pt(a.x, a.y), d.pt(b.x, b.y), aggRadius+vg.Points(1))
	}
	tsty := textStyle(vg.Points(8), color.RGBA{20, 20, 20, 255})
	for _, a := range l.aggs {
		d.placeLabel(tsty, d.pt(a.x, a.y), aggRadius, a.name, allRings)
	}
}

// aggLayer draws the totals' diamonds on top of the kernel markers, each at
// its value, and records where it drew them.
type aggLayer struct{ l *rooflineLayer }

func (a aggLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, g := range a.l.aggs {
		at := vg.Point{X: trX(g.x), Y: trY(g.y)}
		s := seriesColor(g.series)
		clr := color.NRGBA{R: s.R, G: s.G, B: s.B, A: aggFill}
		diamondGlyph{}.DrawGlyph(&c, draw.GlyphStyle{Color: clr, Radius: aggRadius}, at)
		if a.l.drawn != nil {
			a.l.drawn.totals = append(a.l.drawn.totals, drawnMark{name: g.name, x: g.x, y: g.y, at: at})
		}
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
