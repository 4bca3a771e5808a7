// Package roofline is an output stage after analysis, beside reports: it
// draws the hierarchical roofline and sweep charts of an analysed run as PNG
// and SVG, against the roofs the run was analysed with (gpu.CeilingsFor:
// the device's own, the catalog's, the measured ones). It draws only: the
// GPU catalog and the ceilings live in package gpu, the facts in analysis.
//
// This file is the API the reports stage codes against.
package roofline

import (
	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/kernels"
)

// FileName is the base name (without extension) of a plot:
// "<experiment>-<shape-or-sweep>-<kind>" ("<experiment>-<kind>" when
// shapeOrSweep is ""), kind "roofline", "sweep" or "kernels",
// with characters other than letters, digits and "=,._-" replaced by "_".
func FileName(experiment, shapeOrSweep, kind string) string {
	return fileName(experiment, shapeOrSweep, kind)
}

// WriteRoofline draws the hierarchical roofline of one (experiment, shape)
// of run and writes dir/<FileName(experiment, shape, "roofline")>.png and
// .svg. It returns the paths written and the warnings (e.g. points left off
// the log axes).
func WriteRoofline(dir string, run *analysis.Run, experiment, shape string) (files []string, warnings []analysis.Warning, err error) {
	return writeRoofline(dir, run, experiment, shape)
}

// WriteSweep draws the sweep charts of one experiment: speedup of every
// candidate against the baseline over the sweep's shapes with 95% interval
// bars (dir/<FileName(experiment, sweep.Name, "sweep")>.png/.svg), and a
// stacked bar of GPU time per kernel for each variant at each shape
// (dir/<FileName(experiment, sweep.Name, "kernels")>.png/.svg). A chart
// without data is left out with a warning; the error wraps ErrNoData only
// when neither has any.
func WriteSweep(dir string, run *analysis.Run, experiment string, sweep kernels.Sweep) (files []string, warnings []analysis.Warning, err error) {
	return writeSweep(dir, run, experiment, sweep)
}
