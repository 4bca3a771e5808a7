package roofline

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/spec"
)

// SaveRoofline writes a roofline plot as dir/base.png and dir/base.svg at the
// size WriteRoofline uses.
func SaveRoofline(p *plot.Plot, dir, base string) ([]string, error) {
	return savePlot(p, rooflineW, rooflineH, dir, base)
}

// shapeTick labels a sweep shape by its swept variable ("M=512"), else the
// whole shape.
func shapeTick(shape, v string) string {
	vars, err := spec.ParseShape(shape)
	if err != nil {
		return shape
	}
	if x, ok := vars[v]; ok {
		return fmt.Sprintf("%s=%d", v, x)
	}
	return shape
}

// SweepPlot draws the speedup of every candidate over the baseline along a
// sweep: the median ratio with its 95% interval as bars, a dashed line at
// 1.0, significant points filled and the others hollow. Unbounded intervals
// (too few samples) have no bar and are counted in a warning.
func SweepPlot(run *analysis.Run, experiment string, sweep spec.Sweep) (*plot.Plot, []analysis.Warning, error) {
	idx := map[string]int{}
	for i, s := range sweep.Shapes {
		idx[s] = i
	}
	var cands, baselines []string
	byCand := map[string][]analysis.Comparison{}
	for _, c := range run.Comparisons {
		if c.Experiment != experiment {
			continue
		}
		if _, ok := idx[c.Shape]; !ok || c.Speedup.Center <= 0 {
			continue
		}
		if _, ok := byCand[c.Candidate]; !ok {
			cands = append(cands, c.Candidate)
		}
		byCand[c.Candidate] = append(byCand[c.Candidate], c)
		if !slices.Contains(baselines, c.Baseline) {
			baselines = append(baselines, c.Baseline)
		}
	}
	if len(cands) == 0 {
		return nil, nil, fmt.Errorf("sweep %s %s: no comparison with timings: %w", experiment, sweep.Name, ErrNoData)
	}
	for _, cs := range byCand {
		sort.SliceStable(cs, func(i, j int) bool { return idx[cs[i].Shape] < idx[cs[j].Shape] })
	}
	var warnings []analysis.Warning
	p := plot.New()
	// An experiment with several baselines (gla_proj: forward and forward+backward) compares
	// each candidate with its own; the legend then names it.
	over := baselines[0]
	if len(baselines) > 1 {
		over = "each candidate's baseline"
	}
	p.Title.Text = fmt.Sprintf("%s: speedup over %s along %s (median, 95%% interval)  on %s", experiment, over, sweep.Var, orUnknown(run.GPU))
	p.Title.Padding = vg.Points(10)
	p.Y.Label.Text = "speedup (baseline time / candidate time)"
	p.X.Label.Text = sweep.Var
	ylo, yhi := 1.0, 1.0
	unbounded, barred := 0, 0
	n := len(cands)
	width := 0.6
	for ci, cand := range cands {
		clr := seriesColor(ci + 1) // series 0 is the baseline's colour on the roofline
		var xys, sig plotter.XYs
		var errs plotter.YErrors
		var bars plotter.XYs
		for _, c := range byCand[cand] {
			x := float64(idx[c.Shape]) + width*(float64(ci)+0.5)/float64(n) - width/2
			xys = append(xys, plotter.XY{X: x, Y: c.Speedup.Center})
			if c.Significant {
				sig = append(sig, plotter.XY{X: x, Y: c.Speedup.Center})
			}
			ylo, yhi = math.Min(ylo, c.Speedup.Center), math.Max(yhi, c.Speedup.Center)
			if c.Speedup.Hi == analysis.Unbounded || c.Speedup.Lo <= 0 {
				unbounded++
				continue
			}
			bars = append(bars, plotter.XY{X: x, Y: c.Speedup.Center})
			barred++
			errs = append(errs, struct{ Low, High float64 }{c.Speedup.Center - c.Speedup.Lo, c.Speedup.Hi - c.Speedup.Center})
			ylo, yhi = math.Min(ylo, c.Speedup.Lo), math.Max(yhi, c.Speedup.Hi)
		}
		if len(bars) > 0 {
			eb := &plotter.YErrorBars{XYs: bars, YErrors: errs, LineStyle: draw.LineStyle{Color: clr, Width: vg.Points(1.5)}, CapWidth: vg.Points(7)}
			p.Add(eb)
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, nil, err
		}
		line.Color, line.Width = clr, vg.Points(1)
		line.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		pts.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
		p.Add(line, pts)
		if len(sig) > 0 {
			s, err := plotter.NewScatter(sig)
			if err != nil {
				return nil, nil, err
			}
			s.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
			p.Add(s)
		}
		label := cand
		if len(baselines) > 1 {
			label = cand + " / " + byCand[cand][0].Baseline
		}
		p.Legend.Add(label, glyphThumb{draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}})
	}
	if unbounded > 0 {
		warnings = append(warnings, analysis.Warning{Code: analysis.WarnFewSamples, Metric: "speedup",
			Msg: fmt.Sprintf("%d speedups of %s sweep %s have no bounded interval (too few samples): drawn without bars", unbounded, experiment, sweep.Name)})
	}
	had := map[int]bool{}
	for _, cs := range byCand {
		for _, c := range cs {
			had[idx[c.Shape]] = true
		}
	}
	p.Add(emptySlots(len(sweep.Shapes), had))
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color, one.Width = color.Black, vg.Points(1)
	one.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(one)
	p.Legend.Add("filled: p < 0.05 (Mann-Whitney)", glyphThumb{draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}})
	p.Legend.Add("hollow: not significant", glyphThumb{draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.RingGlyph{}}})
	if barred > 0 {
		p.Legend.Add("bar: 95% interval of the speedup", intervalThumb{})
	}
	p.Legend.Add("dashed: 1, as fast as the baseline", lineThumb{draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: one.Dashes}})
	pad := (yhi - ylo) * 0.08
	if pad == 0 {
		pad = 0.1
	}
	p.X.Min, p.X.Max = -0.6, float64(len(sweep.Shapes))-0.4
	p.Y.Min = math.Max(0, ylo-pad)
	// Headroom for the legend above the data.
	p.Y.Max = yhi + pad + (yhi-ylo+pad)*0.05*float64(len(cands)+4)
	p.X.Tick.Marker = categoryTicks(sweep.Shapes, sweep.Var)
	p.Y.Tick.Marker = linTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle = textStyle(vg.Points(9), color.Black)
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(4)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Transparent
	grid.Horizontal.Color = color.RGBA{225, 225, 225, 255}
	p.Add(grid)
	return p, warnings, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown GPU"
	}
	return s
}

// categoryTicks puts one labelled tick per shape at 0, 1, 2, ...
func categoryTicks(shapes []string, v string) plot.ConstantTicks {
	var ts plot.ConstantTicks
	for i, s := range shapes {
		ts = append(ts, plot.Tick{Value: float64(i), Label: shapeTick(s, v)})
	}
	return ts
}

// KernelsPlot draws, for each shape of a sweep and each variant, a bar of
// the variant's GPU time split into its kernels in launch order (nsys
// timeline, else ncu), relative to the baseline's total at that shape:
// tensor kernels in blue, elementwise kernels in orange, so the launches a
// fusion removes show as missing segments.
func KernelsPlot(run *analysis.Run, experiment string, sweep spec.Sweep) (*plot.Plot, []analysis.Warning, error) {
	idx := map[string]int{}
	for i, s := range sweep.Shapes {
		idx[s] = i
	}
	var variants []string
	seen := map[string]bool{}
	baseTotal := map[string]float64{}
	baseline := ""
	var cells []analysis.CellFact
	// Each variant is measured against its own baseline (the comparisons
	// say which: forward and forward+backward variants have different ones).
	baseOf := map[string]string{}
	for _, c := range run.Comparisons {
		if c.Experiment == experiment {
			baseOf[c.Candidate] = c.Baseline
		}
	}
	total := map[[2]string]float64{} // (shape, variant) -> GPU time
	for _, c := range run.Cells {
		if c.Experiment != experiment || c.Status != "ok" || len(c.KernelTimesNs) == 0 {
			continue
		}
		if _, ok := idx[c.Shape]; !ok {
			continue
		}
		cells = append(cells, c)
		total[[2]string{c.Shape, c.Variant}] = c.GPUTimeNs
		if !seen[c.Variant] {
			seen[c.Variant] = true
			variants = append(variants, c.Variant)
		}
		if c.Role == spec.RoleBaseline && baseline == "" {
			baseline = c.Variant
		}
		if c.Role == spec.RoleBaseline && c.Variant == baseline {
			baseTotal[c.Shape] = c.GPUTimeNs
		}
	}
	if len(cells) == 0 {
		return nil, nil, fmt.Errorf("kernels %s %s: no cell with kernel times: %w", experiment, sweep.Name, ErrNoData)
	}
	var warnings []analysis.Warning
	norm := "its baseline's total"
	if baseline == "" {
		norm = "the longest variant's total"
	}
	hasCell := map[string]bool{}
	for _, c := range cells {
		hasCell[c.Shape] = true
	}
	for _, s := range sweep.Shapes {
		if baseTotal[s] > 0 || !hasCell[s] {
			continue
		}
		for _, c := range cells {
			if c.Shape == s {
				baseTotal[s] = math.Max(baseTotal[s], c.GPUTimeNs)
			}
		}
		if baseline != "" {
			warnings = append(warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "gpu_time_ns",
				Msg: fmt.Sprintf("%s %s: no baseline kernel times; bars relative to the longest variant", experiment, s)})
		}
	}
	bars := &stackedBars{}
	n := len(variants)
	width := 0.8 / float64(n)
	ymax := 1.0
	for _, c := range cells {
		vi := 0
		for i, v := range variants {
			if v == c.Variant {
				vi = i
			}
		}
		x := float64(idx[c.Shape]) - 0.4 + width*(float64(vi)+0.5)
		tot := baseTotal[c.Shape]
		if b, ok := baseOf[c.Variant]; ok && total[[2]string{c.Shape, b}] > 0 {
			tot = total[[2]string{c.Shape, b}]
		} else if c.Role == spec.RoleBaseline && c.GPUTimeNs > 0 {
			tot = c.GPUTimeNs
		}
		if tot <= 0 {
			continue
		}
		b := bar{x: x, width: width * 0.85, label: fmt.Sprintf("%s (%d)", c.Variant, len(c.KernelTimesNs)), edge: seriesColor(vi)}
		y := 0.0
		for k, t := range c.KernelTimesNs {
			ew := k < len(c.KernelElementwise) && c.KernelElementwise[k]
			b.segs = append(b.segs, seg{y, y + t/tot, segColor(ew, k)})
			y += t / tot
		}
		ymax = math.Max(ymax, y)
		bars.bars = append(bars.bars, b)
	}
	p := plot.New()
	had := map[int]bool{}
	for _, c := range cells {
		had[idx[c.Shape]] = true
	}
	p.Add(emptySlots(len(sweep.Shapes), had))
	p.Title.Text = fmt.Sprintf("%s: GPU time per kernel, relative to %s  on %s", experiment, norm, orUnknown(run.GPU))
	p.Title.Padding = vg.Points(10)
	p.Y.Label.Text = "GPU time / baseline GPU time (segments: kernels in launch order)"
	p.X.Label.Text = sweep.Var
	p.Add(bars)
	p.X.Min, p.X.Max = -0.6, float64(len(sweep.Shapes))-0.4
	p.Y.Min, p.Y.Max = 0, ymax*1.35
	p.X.Tick.Marker = categoryTicks(sweep.Shapes, sweep.Var)
	p.Y.Tick.Marker = linTicks{}
	p.Legend.Top, p.Legend.Left = true, false
	p.Legend.TextStyle = textStyle(vg.Points(9), color.Black)
	p.Legend.Add("tensor kernel (GEMM etc.)", boxThumb{segColor(false, 0)})
	p.Legend.Add("elementwise kernel (no tensor work)", boxThumb{segColor(true, 0)})
	p.Legend.Add("bar label: variant (kernel count)", boxThumb{color.White})
	return p, warnings, nil
}

func segColor(elementwise bool, k int) color.RGBA {
	if elementwise {
		if k%2 == 0 {
			return color.RGBA{230, 159, 0, 255}
		}
		return color.RGBA{245, 200, 110, 255}
	}
	if k%2 == 0 {
		return color.RGBA{0, 114, 178, 255}
	}
	return color.RGBA{90, 165, 215, 255}
}

type seg struct {
	y0, y1 float64
	color  color.RGBA
}

type bar struct {
	x, width float64
	segs     []seg
	label    string
	edge     color.RGBA
}

type stackedBars struct{ bars []bar }

func (s *stackedBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	lsty := textStyle(vg.Points(7.5), color.RGBA{40, 40, 40, 255})
	for _, b := range s.bars {
		x0, x1 := trX(b.x-b.width/2), trX(b.x+b.width/2)
		for _, sg := range b.segs {
			y0, y1 := trY(sg.y0), trY(sg.y1)
			rect := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			c.FillPolygon(sg.color, c.ClipPolygonXY(rect))
			c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(0.8)}, c.ClipLinesXY([]vg.Point{{X: x0, Y: y1}, {X: x1, Y: y1}})...)
		}
		if len(b.segs) > 0 {
			top := b.segs[len(b.segs)-1].y1
			sty := lsty
			sty.Rotation = math.Pi / 2
			sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: trY(top) + vg.Points(3)}, b.label)
		}
	}
}

// DataRange lets the axes cover the bars.
func (s *stackedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, b := range s.bars {
		xmin, xmax = math.Min(xmin, b.x-b.width), math.Max(xmax, b.x+b.width)
		for _, sg := range b.segs {
			ymax = math.Max(ymax, sg.y1)
		}
	}
	return xmin, xmax, 0, ymax
}

// intervalThumb is the legend thumbnail of an interval bar: a vertical
// line with caps.
type intervalThumb struct{}

func (intervalThumb) Thumbnail(c *draw.Canvas) {
	x, sty := c.Center().X, draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}
	lo, hi := c.Min.Y+vg.Points(1), c.Max.Y-vg.Points(1)
	c.StrokeLine2(sty, x, lo, x, hi)
	c.StrokeLine2(sty, x-vg.Points(3.5), lo, x+vg.Points(3.5), lo)
	c.StrokeLine2(sty, x-vg.Points(3.5), hi, x+vg.Points(3.5), hi)
}

// lineThumb is the legend thumbnail of a line: a stretch of it.
type lineThumb struct{ sty draw.LineStyle }

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.sty, c.Min.X, y, c.Max.X, y)
}

type boxThumb struct{ clr color.Color }

func (b boxThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(b.clr, pts)
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(0.5)}, append(pts, pts[0]))
}

// slotNotes writes "not measured" at the sweep positions without data.
type slotNotes struct{ xs []float64 }

func emptySlots(n int, had map[int]bool) *slotNotes {
	s := &slotNotes{}
	for i := 0; i < n; i++ {
		if !had[i] {
			s.xs = append(s.xs, float64(i))
		}
	}
	return s
}

func (s *slotNotes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := textStyle(vg.Points(9), color.RGBA{150, 150, 150, 255})
	sty.XAlign = draw.XCenter
	for _, x := range s.xs {
		c.FillText(sty, vg.Point{X: trX(x), Y: c.Min.Y + vg.Points(8)}, "not measured")
	}
}
