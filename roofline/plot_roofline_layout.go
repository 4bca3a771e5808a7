package roofline

import (
	"gonum.org/v1/plot/vg"
)

// layout is what one drawing of a roofline put where, in the canvas units
// of that drawing (points, y up, as the SVG's coordinates): the data area
// and the axes' ranges it maps, each total's diamond, and the box of every
// text the roofline layer wrote (roof labels, names, notes; a rotated
// label as the small squares that cover it). The tests read plots back
// with it; drawing does not depend on it.
type layout struct {
	area   vg.Rectangle
	xr, yr [2]float64 // the axes' data ranges: min, max
	totals []drawnMark
	labels []drawnLabel
	legend vg.Rectangle
}

// drawnMark is a marker drawn for data point (x, y), centred at at.
type drawnMark struct {
	name string
	x, y float64
	at   vg.Point
}

// drawnLabel is a text and the boxes it covers; anchor is the point it
// names (a marker's centre) where it names one, and leader whether a
// line joins them.
type drawnLabel struct {
	text   string
	boxes  []vg.Rectangle
	anchor *vg.Point
	leader bool
}

// record notes a text drawn: its boxes, which leader lines keep off, and
// the label in the layout where the drawing keeps one.
func (d *roofDraw) record(l drawnLabel) {
	d.texts = append(d.texts, l.boxes...)
	if d.drawn != nil {
		d.drawn.labels = append(d.drawn.labels, l)
	}
}
