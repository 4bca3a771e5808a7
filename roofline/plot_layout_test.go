package roofline

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/testdata"
)

// onePixel is a pixel of the PNG (96 dpi) in the SVG's points.
const onePixel = 72.0 / 96

// drawnRoofline draws the roofline of (experiment, shape) of run as SVG at
// the size WriteRoofline uses, and returns the SVG, the layout that drawing
// recorded and the layer (its totals and kernel points).
func drawnRoofline(t *testing.T, run *analysis.Run, experiment, shape string) ([]byte, *layout, *rooflineLayer) {
	t.Helper()
	p, layer, _, err := rooflinePlot(run, experiment, shape)
	if err != nil {
		t.Fatal(err)
	}
	layer.drawn = &layout{}
	wt, err := p.WriterTo(rooflineW, rooflineH, "svg")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), layer.drawn, layer
}

var (
	svgNum     = `(-?[0-9.]+(?:e[-+]?[0-9]+)?)`
	svgDiamond = regexp.MustCompile(`<path d="M` + svgNum + `,` + svgNum + `L` + svgNum + `,` + svgNum + `L` + svgNum + `,` + svgNum + `L` + svgNum + `,` + svgNum + `Z"`)
	svgCircle  = regexp.MustCompile(`<path d="M` + svgNum + `,` + svgNum + `A` + svgNum + `,` + svgNum + ` 0 1 1 `)
)

// svgMarkers finds in an SVG of gonum's the centres of the filled
// diamonds of radius r and of the circles of radius cr, in points (y up),
// leaving out those inside skip (the legend's thumbnails).
func svgMarkers(svg []byte, r, cr vg.Length, skip vg.Rectangle) (diamonds, circles []vg.Point) {
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.01 }
	in := func(p vg.Point) bool {
		return p.X >= skip.Min.X && p.X <= skip.Max.X && p.Y >= skip.Min.Y && p.Y <= skip.Max.Y
	}
	for _, m := range svgDiamond.FindAllStringSubmatch(string(svg), -1) {
		x0, y0, x1, y1, x2, y2, x3, y3 := f(m[1]), f(m[2]), f(m[3]), f(m[4]), f(m[5]), f(m[6]), f(m[7]), f(m[8])
		rr := r.Points()
		// top, right, bottom, left: diamondGlyph's order
		if near(x0, x2) && near(y1, y3) && near(x1-x0, rr) && near(y0-y1, rr) && near(x0-x3, rr) && near(y1-y2, rr) {
			if c := (vg.Point{X: vg.Length(x0), Y: vg.Length(y1)}); !in(c) {
				diamonds = append(diamonds, c)
			}
		}
	}
	for _, m := range svgCircle.FindAllStringSubmatch(string(svg), -1) {
		if near(f(m[3]), cr.Points()) {
			if c := (vg.Point{X: vg.Length(f(m[1]) - cr.Points()), Y: vg.Length(f(m[2]))}); !in(c) {
				circles = append(circles, c)
			}
		}
	}
	return diamonds, circles
}

// dataOf maps a point of the data area back to data coordinates on the
// log axes the layout records: the inverse of the plot's transform,
// computed here from the area and the axes' ranges alone.
func dataOf(l *layout, p vg.Point) (x, y float64) {
	inv := func(v, lo, hi vg.Length, r [2]float64) float64 {
		f := float64((v - lo) / (hi - lo))
		return math.Exp(math.Log(r[0]) + f*math.Log(r[1]/r[0]))
	}
	return inv(p.X, l.area.Min.X, l.area.Max.X, l.xr), inv(p.Y, l.area.Min.Y, l.area.Max.Y, l.yr)
}

// pixelsApart is how far apart, in PNG pixels, two data points lie on the
// layout's log axes.
func pixelsApart(l *layout, x0, y0, x1, y1 float64) float64 {
	w, h := float64(l.area.Max.X-l.area.Min.X), float64(l.area.Max.Y-l.area.Min.Y)
	dx := w * math.Log(x1/x0) / math.Log(l.xr[1]/l.xr[0])
	dy := h * math.Log(y1/y0) / math.Log(l.yr[1]/l.yr[0])
	return math.Hypot(dx, dy) / onePixel
}

// checkMarkersAtValues finds every total's diamond and every kernel's DRAM
// circle in the SVG and checks each maps back to its own (AI, FLOP/s)
// within a pixel, one marker per point.
func checkMarkersAtValues(t *testing.T, svg []byte, l *layout, layer *rooflineLayer) {
	t.Helper()
	// The legend is drawn at the bottom right of the axes' canvas, past the
	// data area's padding: its thumbnails lie right of and below l.legend's
	// top left corner, some beyond l.legend.
	pad := vg.Points(4)
	skip := vg.Rectangle{Min: vg.Point{X: l.legend.Min.X - pad, Y: -1e6}, Max: vg.Point{X: 1e6, Y: l.legend.Max.Y + pad}}
	diamonds, circles := svgMarkers(svg, aggRadius, vg.Points(4), skip)
	match := func(kind string, found []vg.Point, x, y float64, name string) []vg.Point {
		best, bi := math.Inf(1), -1
		for i, p := range found {
			px, py := dataOf(l, p)
			if d := pixelsApart(l, x, y, px, py); d < best {
				best, bi = d, i
			}
		}
		if bi < 0 || best > 1 {
			t.Errorf("%s %s at (%.4g FLOP/B, %.4g FLOP/s): nearest %s drawn %.1f px away, want within 1", kind, name, x, y, kind, best)
			return found
		}
		return append(found[:bi:bi], found[bi+1:]...)
	}
	for _, a := range layer.aggs {
		diamonds = match("total", diamonds, a.x, a.y, a.name)
	}
	if len(diamonds) > 0 {
		t.Errorf("%d diamonds drawn at no total's value: %v", len(diamonds), diamonds)
	}
	for _, q := range layer.points {
		if q.level == 0 { // DRAM: circles
			circles = match("kernel point", circles, q.x, q.y, "")
		}
	}
	if len(circles) > 0 {
		t.Errorf("%d circles drawn at no kernel's DRAM point: %v", len(circles), circles)
	}
	if len(l.totals) != len(layer.aggs) {
		t.Errorf("the layout records %d totals, the plot has %d", len(l.totals), len(layer.aggs))
	}
}

// checkLabelsApart checks that no two texts the layout records overlap,
// that each lies inside the data area, and that none covers a total's
// diamond or a kernel's marker.
func checkLabelsApart(t *testing.T, l *layout, layer *rooflineLayer) {
	t.Helper()
	if len(l.labels) == 0 {
		t.Fatal("the layout records no label")
	}
	const slack = 0.01 // boxes that touch do not overlap
	shrink := func(r vg.Rectangle) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: r.Min.X + slack, Y: r.Min.Y + slack}, Max: vg.Point{X: r.Max.X - slack, Y: r.Max.Y - slack}}
	}
	for i, a := range l.labels {
		for _, ab := range a.boxes {
			if ab.Min.X < l.area.Min.X-slack || ab.Max.X > l.area.Max.X+slack || ab.Min.Y < l.area.Min.Y-slack || ab.Max.Y > l.area.Max.Y+slack {
				t.Errorf("label %q (%v) reaches outside the data area %v", a.text, ab, l.area)
			}
			for _, b := range l.labels[i+1:] {
				for _, bb := range b.boxes {
					if overlaps(shrink(ab), bb) {
						t.Errorf("labels %q and %q overlap", a.text, b.text)
					}
				}
			}
			for _, m := range l.totals {
				r := aggRadius
				if overlaps(shrink(ab), vg.Rectangle{Min: vg.Point{X: m.at.X - r, Y: m.at.Y - r}, Max: vg.Point{X: m.at.X + r, Y: m.at.Y + r}}) {
					t.Errorf("label %q covers the diamond of %s", a.text, m.name)
				}
			}
		}
	}
	named := map[string]bool{}
	for _, lb := range l.labels {
		named[lb.text] = true
	}
	for _, a := range layer.aggs {
		if !named[a.name] {
			t.Errorf("the total of %s is not named", a.name)
		}
	}
}

// committedFacts loads the committed default run's facts as the report
// does.
func committedFacts(t *testing.T) *analysis.Run {
	t.Helper()
	if len(testdata.Runs()) == 0 {
		t.Skip("no run committed under testdata/runs")
	}
	name, fsys, err := testdata.Run("")
	if err != nil {
		t.Fatal(err)
	}
	run, err := rundir.OpenFS(name, fsys)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Load(t.Context(), run, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return res.Run
}

// shapeOf is the shape of experiment exp's cells in run (its first).
func shapeOf(t *testing.T, run *analysis.Run, exp string) string {
	t.Helper()
	for _, c := range run.Cells {
		if c.Experiment == exp {
			return c.Shape
		}
	}
	t.Fatalf("no cell of %s", exp)
	return ""
}

// TestRooflineMarkersAtTheirValues reads the drawn SVG back: every total's
// diamond and every kernel's DRAM circle sits at its own (AI, FLOP/s)
// within a pixel, however crowded: totals apart (synthRun), totals on one
// spot (coincidentRun), and the committed run's swiglu (a total near the
// bf16 roof) and gla_proj (a crowd of nine totals at the top right).
func TestRooflineMarkersAtTheirValues(t *testing.T) {
	shape := swigluSweep.Shapes[2]
	cases := []struct {
		name       string
		run        func(*testing.T) *analysis.Run
		exp, shape string
	}{
		{"apart", func(*testing.T) *analysis.Run { return synthRun() }, "swiglu", shape},
		{"one-spot", func(*testing.T) *analysis.Run { return coincidentRun() }, "swiglu", shape},
		{"committed-swiglu", committedFacts, "swiglu", ""},
		{"committed-gla_proj", committedFacts, "gla_proj", ""},
	}
	var committed *analysis.Run
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var run *analysis.Run
			if c.shape == "" {
				if committed == nil {
					committed = c.run(t)
				}
				run, c.shape = committed, shapeOf(t, committed, c.exp)
			} else {
				run = c.run(t)
			}
			svg, l, layer := drawnRoofline(t, run, c.exp, c.shape)
			if len(layer.aggs) == 0 {
				t.Fatal("no total to check")
			}
			checkMarkersAtValues(t, svg, l, layer)
		})
	}
}

// TestRooflineLabelsApart: in the crowded cases (the committed run's
// gla_proj, nine totals at the top right, and its swiglu; five totals on
// one spot) every total is named and no two texts overlap, none covers a
// diamond, none leaves the data area.
func TestRooflineLabelsApart(t *testing.T) {
	committed := committedFacts(t)
	cases := []struct {
		name       string
		run        *analysis.Run
		exp, shape string
	}{
		{"gla_proj", committed, "gla_proj", shapeOf(t, committed, "gla_proj")},
		{"swiglu", committed, "swiglu", shapeOf(t, committed, "swiglu")},
		{"one-spot", coincidentRun(), "swiglu", swigluSweep.Shapes[2]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, l, layer := drawnRoofline(t, c.run, c.exp, c.shape)
			checkLabelsApart(t, l, layer)
		})
	}
}

// TestRooflineAxesFitData: the axes span the data with a margin and the
// roofs with their ridge points, no more: on the ESMM export (kernels at
// 60-4300 FLOP/byte and 0.2-15 TFLOP/s, an RTX A4500's 640 GB/s and
// 23.7 TFLOP/s fp32 roofs, ridge at 37 FLOP/byte).
func TestRooflineAxesFitData(t *testing.T) {
	run := esmmRun(t)
	p, layer, _, err := rooflinePlot(run, "", "")
	if err != nil {
		t.Fatal(err)
	}
	minX, maxX, minY, maxY := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, q := range layer.points {
		minX, maxX, minY, maxY = math.Min(minX, q.x), math.Max(maxX, q.x), math.Min(minY, q.y), math.Max(maxY, q.y)
	}
	if len(layer.points) == 0 {
		t.Fatal("no kernel point")
	}
	fp32, dram := 0.0, 0.0
	for _, r := range layer.roofs {
		switch r.names[0] {
		case "fp32":
			fp32 = r.value
		case "DRAM":
			dram = r.value
		}
	}
	if fp32 == 0 || dram == 0 {
		t.Fatalf("roofs %+v: want fp32 and DRAM", layer.roofs)
	}
	ridge := fp32 / dram
	checkRange := func(axis string, a *plot.Axis, lo, hi float64) {
		t.Helper()
		if math.Abs(a.Min/lo-1) > 1e-9 || math.Abs(a.Max/hi-1) > 1e-9 {
			t.Errorf("%s axis %.4g..%.4g, want %.4g..%.4g", axis, a.Min, a.Max, lo, hi)
		}
	}
	checkRange("x", &p.X, math.Min(minX/marginX, ridge/roofShown), math.Max(maxX*marginX, ridge*roofShown))
	checkRange("y", &p.Y, minY/marginBot, math.Max(maxY, fp32)*marginTop)
	// What that is on this export: within a decade of the data and the roof,
	// the ridge inside.
	if p.X.Min > ridge || p.X.Max/maxX > 10 || minX/p.X.Min > 10 || p.Y.Max < fp32 || minY/p.Y.Min > 10 {
		t.Errorf("axes %.3g..%.3g FLOP/B, %.3g..%.3g FLOP/s for data %.3g..%.3g, %.3g..%.3g and ridge %.3g",
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, minX, maxX, minY, maxY, ridge)
	}
}

// esmmRun is the ESMM export of testdata/realdata analysed as `rooftool
// roofline --gpu rtx-a4500` analyses it (the export names no device).
func esmmRun(t *testing.T) *analysis.Run {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb, err := detect.Files([]ingest.Input{{Path: "../testdata/realdata/ESMM-Research/metrics.csv"}}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	c := gpu.CeilingsFor(analysis.DeviceCeilings(tb), "rtx-a4500", nil)
	run, err := analysis.Analyze(tb, nil, analysis.Options{Ceilings: c})
	if err != nil {
		t.Fatal(err)
	}
	return run
}
