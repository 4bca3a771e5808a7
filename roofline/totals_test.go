package roofline

import (
	"bytes"
	"os"
	"strings"
	"testing"

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

// TestRooflineCoincidentTotalsGolden: totals on one spot are each drawn
// there, each named, no arrow is drawn between them and the legend has
// none. The note names the totals outside their kernels' points.
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
	for _, want := range []string{"unfused", "gemm2-epilogue", "dual-acc", "unfused-graph", "dual-acc-persistent", "Totals outside their kernels"} {
		if !bytes.Contains(svg, []byte(">"+want)) {
			t.Errorf("the plot has no text %q", want)
		}
	}
	if bytes.Contains(svg, []byte("from the baseline")) {
		t.Error("the legend has the arrow, but every arrow would join totals of one spot")
	}
	// The other golden's totals lie apart: arrows and their legend entry.
	p, _, err = RooflinePlot(synthRun(), "swiglu", shape)
	if err != nil {
		t.Fatal(err)
	}
	files, err = savePlot(p, rooflineW, rooflineH, t.TempDir(), "apart")
	if err != nil {
		t.Fatal(err)
	}
	svg, _ = os.ReadFile(files[1])
	if !bytes.Contains(svg, []byte("from the baseline&#39;s total to a candidate&#39;s")) {
		t.Error("totals apart: want the arrow in the legend")
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
