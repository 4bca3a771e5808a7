package roofline

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// newRooflineAxes makes the plot: title, log-log axes over r labelled with
// their units, and a light grid.
func newRooflineAxes(title string, r axisRange) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text = "arithmetic intensity (FLOP/byte)"
	p.Y.Label.Text = "performance (FLOP/s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = r.xlo, r.xhi, r.ylo, r.yhi

	grid := plotter.NewGrid()
	grid.Vertical.Color = color.RGBA{225, 225, 225, 255}
	grid.Horizontal.Color = color.RGBA{225, 225, 225, 255}
	p.Add(grid)
	return p
}

// addKernelScatters adds the kernel points, one scatter per (series, level):
// colour by series, marker by level.
func addKernelScatters(p *plot.Plot, pts []kpoint, nSeries int) error {
	for li, lv := range levels {
		for s := range nSeries {
			var xys plotter.XYs
			for _, q := range pts {
				if q.level == li && q.series == s {
					xys = append(xys, plotter.XY{X: q.x, Y: q.y})
				}
			}
			if len(xys) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: seriesColor(s), Radius: vg.Points(4), Shape: lv.glyph}
			p.Add(sc)
		}
	}
	return nil
}

// addRooflineLegend writes the legend: the colours of the series shown, the
// marker of each level used, the totals' diamond (aggNote), and the arrow
// where the plot draws one (arrows).
func addRooflineLegend(p *plot.Plot, layer *rooflineLayer, seriesNames []string, aggNote string, arrows bool) {
	pts, aggs := layer.points, layer.aggs
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.TextStyle = textStyle(vg.Points(9), color.Black)
	p.Legend.ThumbnailWidth = vg.Points(14)
	p.Legend.Padding = vg.Points(1)
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), vg.Points(6)
	shown := map[int]bool{}
	for _, q := range pts {
		shown[q.series] = true
	}
	for _, a := range aggs {
		shown[a.series] = true
	}
	for s, name := range seriesNames {
		if shown[s] {
			p.Legend.Add(name, glyphThumb{draw.GlyphStyle{Color: seriesColor(s), Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}})
		}
	}
	usedLevel := map[int]bool{}
	for _, q := range pts {
		usedLevel[q.level] = true
	}
	for li, lv := range levels {
		if usedLevel[li] {
			p.Legend.Add("kernel at "+lv.ceiling, glyphThumb{draw.GlyphStyle{Color: color.RGBA{110, 110, 110, 255}, Radius: vg.Points(4), Shape: lv.glyph}})
		}
	}
	if len(aggs) > 0 {
		p.Legend.Add(aggNote, glyphThumb{draw.GlyphStyle{Color: color.RGBA{150, 150, 150, 255}, Radius: vg.Points(6), Shape: diamondGlyph{}}})
	}
	if arrows {
		p.Legend.Add("from the baseline's total to a candidate's", arrowThumb{})
	}
}
