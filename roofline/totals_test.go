package roofline

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/rooftool/rooftool/analysis"
)

// coincidentRun is synthRun's middle shape with five variants whose totals
// (FLOPs, DRAM bytes and wall time of the cell) are the same: five
// diamonds on one spot, as the committed H100 run's swiglu has them.
func coincidentRun() *analysis.Run {
	run := synthRun()
	shape := swigluSweep.Shapes[2]
	var cells []analysis.CellFact
	for _, c := range run.Cells {
		if c.Shape == shape {
			cells = append(cells, c)
		}
	}
	for _, v := range []string{"unfused-graph", "dual-acc-persistent"} {
		c := cells[2]
		c.Variant, c.Role = v, "candidate"
		cells = append(cells, c)
		k := run.Kernels[len(run.Kernels)-1]
		k.Variant = v
		run.Kernels = append(run.Kernels, k)
	}
	for i := range cells {
		cells[i].FLOPs, cells[i].DRAMBytesRange, cells[i].Wall = cells[0].FLOPs, cells[0].DRAMBytesRange, cells[0].Wall
	}
	run.Cells = cells
	var cmps []analysis.Comparison
	for _, c := range run.Comparisons {
		if c.Shape == shape {
			cmps = append(cmps, c)
		}
	}
	run.Comparisons = cmps
	return run
}

// TestRooflineCoincidentTotalsGolden: totals on one spot are drawn apart
// around it, each joined to it and named, the spot marked with a cross,
// and both marks are in the legend; no arrow is drawn between them, and
// the legend has none. The note names the totals outside their kernels'
// points.
func TestRooflineCoincidentTotalsGolden(t *testing.T) {
	run := coincidentRun()
	shape := swigluSweep.Shapes[2]
	p, _, err := RooflinePlot(run, "swiglu", shape)
	if err != nil {
		t.Fatal(err)
	}
	files, err := savePlot(p, rooflineW, rooflineH, t.TempDir(), "swiglu-coincident-totals-roofline")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, files)
	svg, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"unfused", "gemm2-epilogue", "dual-acc", "unfused-graph", "dual-acc-persistent",
		"totals at one spot, drawn around it and named", "Totals outside their kernels"} {
		if !bytes.Contains(svg, []byte(">"+want)) {
			t.Errorf("the plot has no text %q", want)
		}
	}
	if bytes.Contains(svg, []byte("from the baseline")) {
		t.Error("the legend has the arrow, but every arrow would join totals of one spot")
	}
	// The other golden's totals lie apart: arrows and their legend entry, no cross.
	p, _, err = RooflinePlot(synthRun(), "swiglu", shape)
	if err != nil {
		t.Fatal(err)
	}
	files, err = savePlot(p, rooflineW, rooflineH, t.TempDir(), "apart")
	if err != nil {
		t.Fatal(err)
	}
	svg, _ = os.ReadFile(files[1])
	if !bytes.Contains(svg, []byte("from the baseline&#39;s total to a candidate&#39;s")) || bytes.Contains(svg, []byte("totals at one spot")) {
		t.Error("totals apart: want the arrow in the legend and no spot")
	}
}

// TestClusterAggs: totals nearer than coincident form one group; a group
// spread around its spot takes in a total its diamonds would touch; the
// spread diamonds of a group do not touch one another.
func TestClusterAggs(t *testing.T) {
	pt := func(x, y float64) vg.Point { return vg.Point{X: vg.Points(x), Y: vg.Points(y)} }
	groups := clusterAggs([]vg.Point{pt(100, 100), pt(104, 101), pt(300, 300), pt(102, 99)})
	if len(groups) != 2 || len(groups[0]) != 3 || groups[0][2] != 3 || len(groups[1]) != 1 {
		t.Errorf("groups %v, want [[0 1 3] [2]]", groups)
	}
	// 30 points from the pair: apart at first, but their spread diamonds reach it.
	groups = clusterAggs([]vg.Point{pt(100, 100), pt(101, 100), pt(100, 125)})
	if len(groups) != 1 {
		t.Errorf("groups %v, want one: the pair spread around its spot touches the third", groups)
	}
	for n := 2; n <= 12; n++ {
		at, _ := spread(pt(0, 0), n)
		for i := range at {
			for j := i + 1; j < n; j++ {
				if d := math.Hypot(float64(at[i].X-at[j].X), float64(at[i].Y-at[j].Y)); d < 2*float64(aggRadius) {
					t.Errorf("%d spread: diamonds %d and %d %.1f apart, they touch", n, i, j, d)
				}
			}
		}
	}
}

// TestOutsideNote: a total beyond its kernels' DRAM points (more than
// outsideSlack along either axis) is named; one among them is not.
func TestOutsideNote(t *testing.T) {
	pts := []kpoint{{x: 2, y: 1e12, series: 0, level: 0}, {x: 9, y: 5e11, series: 0, level: 0}, {x: 200, y: 1e14, series: 1, level: 0},
		{x: 5000, y: 1e14, series: 1, level: 1}} // an L2 point does not count
	aggs := []aggregate{{series: 0, x: 5, y: 7e11, name: "three-kernel"}, {series: 1, x: 6000, y: 2e13, name: "megakernel"}}
	note := outsideNote(aggs, pts)
	if !strings.Contains(note, "megakernel") || strings.Contains(note, "three-kernel") {
		t.Errorf("note %q: want megakernel named, three-kernel not", note)
	}
	for _, l := range strings.Split(note, "\n") {
		if len(l) > 62 {
			t.Errorf("note line %q longer than 62", l)
		}
	}
	if note := outsideNote(aggs[:1], pts); note != "" {
		t.Errorf("every total among its kernels: note %q", note)
	}
}
