package roofline

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
)

// Memory levels as the roofline draws them: marker shape per level.
var levels = []struct {
	key, ceiling string
	glyph        draw.GlyphDrawer
}{
	{"dram", gpu.CeilDRAM, draw.CircleGlyph{}},
	{"l2", gpu.CeilL2, draw.TriangleGlyph{}},
	{"l1", gpu.CeilL1, draw.SquareGlyph{}},
}

// maxSeries is how many named series (variants, or kernels of a foreign
// export) get their own colour; the rest are "other".
const maxSeries = 7

// labelledKernels is how many of the heaviest kernels carry their name.
const labelledKernels = 5

type roof struct {
	names    []string // several roofs with the same value share a line
	kind     string
	value    float64
	src      string // "device", "catalog", "measured"
	measured bool
}

func (r roof) label() string {
	names := append([]string(nil), r.names...)
	for i := 1; i < len(names); i++ {
		if strings.HasPrefix(names[0], "tensor ") {
			names[i] = strings.TrimPrefix(names[i], "tensor ")
		}
	}
	return fmt.Sprintf("%s %s (%s)", strings.Join(names, "/"), gpu.FormatRate(r.value, r.kind), r.src)
}

type kpoint struct {
	x, y   float64
	series int
	level  int
}

type klabel struct {
	x, y float64
	text string
}

type aggregate struct {
	series int
	x, y   float64
	name   string
}

// ErrNoData reports a selection with nothing to draw.
var ErrNoData = errors.New("no kernel or cell data")

// kernelPoint is the arithmetic intensity of a kernel's point at a byte
// level (dram, l2, l1): has reports whether the export has bytes for the
// level, ok whether the point can sit on log axes (non-zero FLOPs and bytes).
func kernelPoint(f analysis.KernelFact, level string) (ai float64, has, ok bool) {
	if _, has = f.ByteRate[level]; !has {
		return 0, false, false
	}
	ai = f.AI[level]
	return ai, true, ai > 0 && f.FLOPRate > 0 && !math.IsInf(ai, 0)
}

// KernelPoints counts the ncu kernels of (experiment, shape) that get at
// least one point on the roofline, and where none does, says why: which
// counters the kernels lack or that they count zero FLOPs or bytes.
func KernelPoints(run *analysis.Run, experiment, shape string) (placed int, why string) {
	var n, noFLOPs, noBytes, zeroFLOPs, zeroOther int
	for _, f := range run.Kernels {
		if f.Experiment != experiment || f.Shape != shape {
			continue
		}
		n++
		if !f.FLOPsKnown {
			noFLOPs++
			continue
		}
		if len(f.ByteRate) == 0 {
			noBytes++
			continue
		}
		any := false
		for _, lv := range levels {
			if _, _, ok := kernelPoint(f, lv.key); ok {
				any = true
				break
			}
		}
		switch {
		case any:
			placed++
		case f.TotalFLOPs <= 0:
			zeroFLOPs++
		default:
			zeroOther++
		}
	}
	if placed > 0 || n == 0 {
		return placed, ""
	}
	var parts []string
	if noFLOPs > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d kernels have no FLOP counters (sm__ops_path_tensor_*.sum or sm[sp]__sass_thread_inst_executed_op_{f,h,d}{add,mul,fma}_pred_on.sum)", noFLOPs, n))
	}
	if noBytes > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d kernels have no byte counters (%s + dram__bytes_write.sum, %s, %s or %s)", noBytes, n,
			analysis.MDRAMRead, analysis.MDRAMBytes, analysis.ML2Bytes, analysis.ML1Bytes))
	}
	if zeroFLOPs > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d kernels count zero FLOPs (the counters the export has read 0 or n/a)", zeroFLOPs, n))
	}
	if zeroOther > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d kernels count zero bytes or have no duration", zeroOther, n))
	}
	return 0, "no kernel point could be placed: " + strings.Join(parts, "; ")
}

// RooflinePlot draws the hierarchical roofline of one (experiment, shape) of
// run: DRAM, L2 and L1 slopes and the compute roofs the kernels use, each
// labelled with value and source (measured ceilings dashed); one point per
// kernel per memory level (marker = level, colour = variant), the heaviest
// kernels named (once per spot); each variant's aggregate (a diamond) and
// arrows from the baseline's aggregate to each candidate's. Aggregates that
// would cover one another are drawn apart around the spot they share (a
// cross), each joined to it and named, and a note names the aggregates that
// lie outside their own kernels' DRAM points; every mark is in the legend.
// experiment "" and shape ""
// select the kernels of an export without rooftool's NVTX ranges; their
// colours then go by kernel name. Points with zero FLOPs or bytes cannot sit
// on log axes: they are left off and counted in a WarnZeroOnLog warning.
func RooflinePlot(run *analysis.Run, experiment, shape string) (*plot.Plot, []analysis.Warning, error) {
	if run == nil {
		return nil, nil, fmt.Errorf("roofline: no run")
	}
	var kfs []analysis.KernelFact
	for _, f := range run.Kernels {
		if f.Experiment == experiment && f.Shape == shape {
			kfs = append(kfs, f)
		}
	}
	var cells []analysis.CellFact
	for _, c := range run.Cells {
		if c.Experiment == experiment && c.Shape == shape && c.Status == "ok" {
			cells = append(cells, c)
		}
	}
	if len(kfs) == 0 && len(cells) == 0 {
		return nil, nil, fmt.Errorf("roofline %s %s: %w", orAll(experiment), orAll(shape), ErrNoData)
	}
	var warnings []analysis.Warning

	// Series: variants in cell (spec) order, else kernel names by total time.
	seriesNames, seriesOf := seriesFor(kfs, cells, experiment)

	// Kernel points per level; zeros counted.
	var pts []kpoint
	zeros := 0
	for _, f := range kfs {
		s := seriesOf(f)
		if !f.FLOPsKnown {
			continue // no FLOP counters: counted below as missing, not as zero
		}
		for li, lv := range levels {
			ai, has, ok := kernelPoint(f, lv.key)
			if !has {
				continue // the export has no bytes for this level
			}
			if !ok {
				zeros++
				continue
			}
			pts = append(pts, kpoint{ai, f.FLOPRate, s, li})
		}
	}
	if zeros > 0 {
		warnings = append(warnings, analysis.Warning{Code: analysis.WarnZeroOnLog, Metric: "roofline",
			Msg: fmt.Sprintf("%d kernel points with zero FLOPs or bytes left off the log axes of the %s roofline", zeros, selName(experiment, shape))})
	}
	noPoint := 0
	for _, f := range kfs {
		if !f.FLOPsKnown || len(f.ByteRate) == 0 {
			noPoint++
		}
	}
	if noPoint > 0 {
		warnings = append(warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "roofline",
			Msg: fmt.Sprintf("%d of %d kernels lack FLOP or byte counters and have no point on the %s roofline", noPoint, len(kfs), selName(experiment, shape))})
	}

	// Labels for the heaviest kernels that have a point; a name already
	// written at (nearly) the same point, as the same kernel of several
	// variants has it, is written once.
	heavy := append([]analysis.KernelFact(nil), kfs...)
	sort.SliceStable(heavy, func(i, j int) bool { return heavy[i].DurationNs > heavy[j].DurationNs })
	var labels []klabel
	for _, f := range heavy {
		if len(labels) == labelledKernels {
			break
		}
		for _, lv := range levels {
			if ai := f.AI[lv.key]; ai > 0 && f.FLOPRate > 0 {
				l := klabel{ai, f.FLOPRate, shorten(f.ShortName, 32)}
				if !slices.ContainsFunc(labels, func(o klabel) bool { return o.text == l.text && samePoint(o.x, o.y, l.x, l.y) }) {
					labels = append(labels, l)
				}
				break
			}
		}
	}

	// Aggregates: cell FLOPs over DRAM bytes (CellFact.DRAM; never a
	// partial range) and over wall time (timing pass; device time where the
	// wall time is host-bound or absent).
	var aggs []aggregate
	aggByVariant := map[string]int{} // index into aggs
	aggNote := ""
	for _, c := range cells {
		bytes, _ := c.DRAM()
		if c.RangePartial {
			warnings = append(warnings, analysis.Warning{Code: analysis.WarnRangePartial, Metric: "dram_bytes",
				Msg: fmt.Sprintf("%s at %s: variant total not plotted, its range pass covers part of the cell", c.Variant, c.Shape)})
			continue
		}
		secs := c.Wall.Center / 1e3
		if dev, _ := c.DeviceTimeMs(); secs <= 0 || (c.HostRatio > 0 && hostBound(c)) {
			secs = dev / 1e3
		}
		if c.FLOPs <= 0 || bytes <= 0 || secs <= 0 {
			continue
		}
		s := seriesOf(analysis.KernelFact{Variant: c.Variant, ShortName: c.Variant})
		aggByVariant[c.Variant] = len(aggs)
		aggs = append(aggs, aggregate{s, c.FLOPs / bytes, c.FLOPs / secs, c.Variant})
		if aggNote == "" {
			aggNote = "variant total: FLOPs per DRAM byte, FLOPs per wall second (device second where host-bound)"
		}
	}
	if len(kfs) == 0 && len(aggs) == 0 {
		return nil, nil, fmt.Errorf("roofline %s %s: no ncu kernel pass and no cell with FLOPs and bytes (timing only?): %w", orAll(experiment), orAll(shape), ErrNoData)
	}
	// Arrows follow the comparisons: from each candidate's baseline.
	var arrows [][2]int
	for _, cmp := range run.Comparisons {
		if cmp.Experiment != experiment || cmp.Shape != shape {
			continue
		}
		b, okB := aggByVariant[cmp.Baseline]
		a, okA := aggByVariant[cmp.Candidate]
		if okA && okB {
			arrows = append(arrows, [2]int{b, a})
		}
	}

	// Roofs.
	used := map[string]bool{gpu.CeilFP32: true}
	for _, f := range kfs {
		for cl, v := range f.FLOPs {
			if v > 0 {
				used[gpu.CeilingFor(cl)] = true
			}
		}
	}
	anyFLOPs := false
	for _, f := range kfs {
		anyFLOPs = anyFLOPs || len(f.FLOPs) > 0
	}
	if !anyFLOPs {
		// No kernel states tensor work (or any FLOPs): show the common
		// tensor roof too, so the plot still says where the tensor cores sit.
		used["tensor bf16"], used["tensor fp16"] = true, true
	}
	roofs := pickRoofs(run.Ceilings, used)

	// Axis ranges.
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
	xlo, xhi, ylo = floorDecade(xlo), ceilDecade(xhi), floorDecade(ylo)

	p := plot.New()
	p.Title.Text = rooflineTitle(run, experiment, shape)
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text = "arithmetic intensity (FLOP/byte)"
	p.Y.Label.Text = "performance (FLOP/s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xlo, xhi, ylo, yhi

	grid := plotter.NewGrid()
	grid.Vertical.Color = color.RGBA{225, 225, 225, 255}
	grid.Horizontal.Color = color.RGBA{225, 225, 225, 255}
	p.Add(grid)
	layer := &rooflineLayer{roofs: roofs, labels: labels, arrows: arrows, top: top}
	p.Add(layer)

	// Kernel points, one scatter per (series, level).
	for li, lv := range levels {
		for s := range seriesNames {
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
				return nil, nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: seriesColor(s), Radius: vg.Points(4), Shape: lv.glyph}
			p.Add(sc)
		}
	}
	// Totals on top of the kernel markers; those that would cover one
	// another (at this plot's size) are drawn apart around their spot.
	p.Add(aggLayer{layer})
	layer.aggs = aggs
	layer.points = pts
	trX, trY := dataTransforms(p, rooflineW, rooflineH)
	var aggAt []vg.Point
	for _, a := range aggs {
		aggAt = append(aggAt, vg.Point{X: trX(a.x), Y: trY(a.y)})
	}
	layer.groups = clusterAggs(aggAt)
	layer.outside = outsideNote(aggs, pts)

	// Legend: series colours, level shapes, aggregate.
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
	groupOf := map[int]int{}
	shared := false
	for g, members := range layer.groups {
		for _, i := range members {
			groupOf[i] = g
		}
		shared = shared || len(members) > 1
	}
	for _, ar := range arrows {
		if groupOf[ar[0]] != groupOf[ar[1]] {
			p.Legend.Add("from the baseline's total to a candidate's", arrowThumb{})
			break
		}
	}
	if shared {
		p.Legend.Add("totals at one spot, drawn around it and named", spotThumb{})
	}
	if len(pts) == 0 && len(aggs) == 0 {
		layer.note = "no kernel has both FLOP and byte counters: roofs only"
	}
	return p, warnings, nil
}

// samePoint reports whether two points of the log axes lie within 5% of
// each other along both: one spot at any size the plot is drawn.
func samePoint(x0, y0, x1, y1 float64) bool {
	near := func(a, b float64) bool { return math.Abs(math.Log(a/b)) < math.Log(1.05) }
	return near(x0, x1) && near(y0, y1)
}

func selName(experiment, shape string) string {
	if experiment == "" && shape == "" {
		return "export's"
	}
	return strings.TrimSpace(experiment + " " + shape)
}

func orAll(s string) string {
	if s == "" {
		return "(all)"
	}
	return s
}

func rooflineTitle(run *analysis.Run, experiment, shape string) string {
	var parts []string
	if experiment != "" {
		parts = append(parts, experiment)
	}
	if shape != "" {
		parts = append(parts, shape)
	}
	if len(parts) == 0 {
		parts = append(parts, "roofline")
	}
	gpu := run.GPU
	if gpu == "" {
		gpu = "unknown GPU"
	}
	return strings.Join(parts, "  ") + "  on " + gpu
}

// seriesFor assigns series: variants in cell order where the kernels carry
// variants, else kernel short names by total duration (the top maxSeries,
// then "other").
func seriesFor(kfs []analysis.KernelFact, cells []analysis.CellFact, experiment string) ([]string, func(analysis.KernelFact) int) {
	hasVariants := false
	for _, f := range kfs {
		if f.Variant != "" {
			hasVariants = true
			break
		}
	}
	for _, c := range cells {
		if c.Variant != "" {
			hasVariants = true
			break
		}
	}
	idx := map[string]int{}
	var names []string
	if hasVariants {
		for _, c := range cells {
			if _, ok := idx[c.Variant]; !ok {
				idx[c.Variant] = len(names)
				names = append(names, c.Variant)
			}
		}
		for _, f := range kfs {
			if _, ok := idx[f.Variant]; !ok {
				idx[f.Variant] = len(names)
				names = append(names, f.Variant)
			}
		}
		return names, func(f analysis.KernelFact) int { return idx[f.Variant] }
	}
	tot := map[string]float64{}
	for _, f := range kfs {
		tot[f.ShortName] += f.DurationNs
	}
	var all []string
	for n := range tot {
		all = append(all, n)
	}
	sort.Slice(all, func(i, j int) bool {
		if tot[all[i]] != tot[all[j]] {
			return tot[all[i]] > tot[all[j]]
		}
		return all[i] < all[j]
	})
	for i, n := range all {
		if i < maxSeries {
			idx[n] = i
			names = append(names, shorten(n, 40))
		}
	}
	if len(all) > maxSeries {
		names = append(names, "other")
	}
	return names, func(f analysis.KernelFact) int {
		if i, ok := idx[f.ShortName]; ok {
			return i
		}
		return maxSeries
	}
}

// pickRoofs chooses the roofs to draw: the primary DRAM, L2 and L1 roofs
// and the primary compute roofs the kernels use (fp32 always), plus every
// measured ceiling of those names or of a measured-only name; compute roofs
// with the same value and source share one line.
func pickRoofs(c gpu.Ceilings, used map[string]bool) []roof {
	short := func(src string) string {
		if i := strings.Index(src, ":"); i > 0 {
			return src[:i]
		}
		return src
	}
	prim := c.Primary()
	var out []roof
	add := func(it gpu.Ceiling, measured bool) {
		r := roof{names: []string{it.Name}, kind: it.Kind, value: it.Value, src: short(it.Source), measured: measured}
		if it.Kind == gpu.KindCompute {
			for i := range out {
				o := &out[i]
				if o.kind == r.kind && o.measured == r.measured && o.src == r.src && math.Abs(o.value-r.value) <= 1e-3*r.value {
					o.names = append(o.names, it.Name)
					return
				}
			}
		}
		out = append(out, r)
	}
	for _, name := range []string{gpu.CeilDRAM, gpu.CeilL2, gpu.CeilL1} {
		if it, ok := prim[name]; ok && !strings.HasPrefix(it.Source, gpu.SourceMeasured) {
			add(it, false)
		}
	}
	var computeNames []string
	for name := range used {
		computeNames = append(computeNames, name)
	}
	sort.Slice(computeNames, func(i, j int) bool { return prim[computeNames[i]].Value > prim[computeNames[j]].Value })
	for _, name := range computeNames {
		if it, ok := prim[name]; ok && it.Kind == gpu.KindCompute && !strings.HasPrefix(it.Source, gpu.SourceMeasured) {
			add(it, false)
		}
	}
	for _, it := range c.Items {
		if !strings.HasPrefix(it.Source, gpu.SourceMeasured) || !(it.Value > 0) {
			continue
		}
		// Measured compute roofs only for the kinds of work the kernels do
		// ("fp32 sgemm" goes with "fp32").
		if it.Kind == gpu.KindCompute {
			base := it.Name
			if i := strings.Index(base, " sgemm"); i > 0 {
				base = base[:i]
			}
			if !used[base] {
				continue
			}
		}
		add(it, true)
	}
	return out
}

// hostBound reports whether analysis flagged the cell host-bound.
func hostBound(c analysis.CellFact) bool {
	for _, w := range c.Warnings {
		if w.Code == analysis.WarnHostBound {
			return true
		}
	}
	return false
}
