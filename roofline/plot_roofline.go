package roofline

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"gonum.org/v1/plot"
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
			metric.DRAMRead, metric.DRAMBytes, metric.L2Bytes, metric.L1Bytes))
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
// arrows from the baseline's aggregate to each candidate's. Every marker is
// drawn at its value; names are placed clear of markers and of one another,
// with a leader line where they had to move away from their marker, and a
// note names the aggregates that lie outside their own kernels' DRAM
// points; every mark is in the legend. The axes span the points, totals,
// roofs and ridge points with a margin (axisBounds).
// experiment "" and shape ""
// select the kernels of an export without rooftool's NVTX ranges; their
// colours then go by kernel name. Points with zero FLOPs or bytes cannot sit
// on log axes: they are left off and counted in a WarnZeroOnLog warning.
func RooflinePlot(run *analysis.Run, experiment, shape string) (*plot.Plot, []analysis.Warning, error) {
	p, _, ws, err := rooflinePlot(run, experiment, shape)
	return p, ws, err
}

// rooflinePlot is RooflinePlot, also returning the layer that draws roofs
// and labels (whose drawn field records a drawing's layout).
func rooflinePlot(run *analysis.Run, experiment, shape string) (*plot.Plot, *rooflineLayer, []analysis.Warning, error) {
	if run == nil {
		return nil, nil, nil, fmt.Errorf("roofline: no run")
	}
	kfs, cells := selectFacts(run, experiment, shape)
	if len(kfs) == 0 && len(cells) == 0 {
		return nil, nil, nil, fmt.Errorf("roofline %s %s: %w", orAll(experiment), orAll(shape), ErrNoData)
	}
	// Series: variants in cell (spec) order, else kernel names by total time.
	seriesNames, seriesOf := seriesFor(kfs, cells, experiment)
	pts, warnings := kernelMarks(kfs, seriesOf, experiment, shape)
	labels := heavyLabels(kfs)
	aggs, aggByVariant, aggNote, aggWarnings := variantTotals(cells, seriesOf)
	warnings = append(warnings, aggWarnings...)
	if len(kfs) == 0 && len(aggs) == 0 {
		return nil, nil, nil, fmt.Errorf("roofline %s %s: no ncu kernel pass and no cell with FLOPs and bytes (timing only?): %w", orAll(experiment), orAll(shape), ErrNoData)
	}
	arrows := comparisonArrows(run.Comparisons, experiment, shape, aggByVariant)
	roofs := pickRoofs(run.Ceilings, usedCeilings(kfs))
	top, bounds := axisBounds(pts, aggs, roofs)

	p := newRooflineAxes(rooflineTitle(run, experiment, shape), bounds)
	layer := &rooflineLayer{roofs: roofs, labels: labels, arrows: arrows, top: top}
	p.Add(layer)
	if err := addKernelScatters(p, pts, len(seriesNames)); err != nil {
		return nil, nil, nil, err
	}
	arrowsDrawn := placeTotals(p, layer, aggs, pts)
	addRooflineLegend(p, layer, seriesNames, aggNote, arrowsDrawn)
	if len(pts) == 0 && len(aggs) == 0 {
		layer.note = "no kernel has both FLOP and byte counters: roofs only"
	}
	return p, layer, warnings, nil
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
