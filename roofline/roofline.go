// Package roofline is an output stage after analysis, beside reports: it
// draws the hierarchical roofline and sweep charts of an analysed run as PNG
// and SVG, against the roofs the run was analysed with (gpu.CeilingsFor:
// the device's own, the catalog's, the measured ones). It draws only: the
// GPU catalog and the ceilings live in package gpu, the facts in analysis,
// and what a command names is opened and analysed by package pipeline;
// Draw writes the charts of such an input (pipeline.Facts) with the
// summary the roofline command prints, and names the ncu counters an
// export lacks for a kernel point.
//
// This file is the API the reports stage codes against.
package roofline

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"gonum.org/v1/plot"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/spec"
)

// FileName is the base name (without extension) of a plot:
// "<experiment>-<shape-or-sweep>-<kind>" ("<experiment>-<kind>" when
// shapeOrSweep is ""), kind "roofline", "sweep" or "kernels",
// with characters other than letters, digits and "=,._-" replaced by "_".
func FileName(experiment, shapeOrSweep, kind string) string {
	clean := func(x, def string) string {
		if x == "" {
			return def
		}
		return strings.Map(func(r rune) rune {
			if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("=,._-", r)) {
				return r
			}
			return '_'
		}, x)
	}
	if shapeOrSweep == "" {
		return clean(experiment, "export") + "-" + kind
	}
	return clean(experiment, "export") + "-" + clean(shapeOrSweep, "") + "-" + kind
}

// WriteRoofline draws the hierarchical roofline of one (experiment, shape)
// of run and writes dir/<FileName(experiment, shape, "roofline")>.png and
// .svg. It returns the paths written and the warnings (e.g. points left off
// the log axes).
func WriteRoofline(dir string, run *analysis.Run, experiment, shape string) ([]string, []analysis.Warning, error) {
	p, ws, err := RooflinePlot(run, experiment, shape)
	if err != nil {
		return nil, nil, err
	}
	files, err := savePlot(p, rooflineW, rooflineH, dir, FileName(experiment, shape, "roofline"))
	return files, ws, err
}

// WriteSweep draws the sweep charts of one experiment: speedup of every
// candidate against the baseline over the sweep's shapes with 95% interval
// bars (dir/<FileName(experiment, sweep.Name, "sweep")>.png/.svg), and a
// stacked bar of GPU time per kernel for each variant at each shape
// (dir/<FileName(experiment, sweep.Name, "kernels")>.png/.svg). A chart
// without data is left out with a warning; the error wraps ErrNoData only
// when neither has any.
func WriteSweep(dir string, run *analysis.Run, experiment string, sweep spec.Sweep) ([]string, []analysis.Warning, error) {
	var files []string
	var warnings []analysis.Warning
	drawn := 0
	for _, ch := range []struct {
		kind string
		draw func(*analysis.Run, string, spec.Sweep) (*plot.Plot, []analysis.Warning, error)
	}{{"sweep", SweepPlot}, {"kernels", KernelsPlot}} {
		p, ws, err := ch.draw(run, experiment, sweep)
		if errors.Is(err, ErrNoData) {
			// One chart without data does not void the other.
			warnings = append(warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "plot", Msg: err.Error()})
			continue
		}
		if err != nil {
			return files, warnings, err
		}
		warnings = append(warnings, ws...)
		f, err := savePlot(p, sweepW, sweepH, dir, FileName(experiment, sweep.Name, ch.kind))
		files = append(files, f...)
		if err != nil {
			return files, warnings, err
		}
		drawn++
	}
	if drawn == 0 {
		return nil, warnings, fmt.Errorf("sweep %s %s: %w", experiment, sweep.Name, ErrNoData)
	}
	return files, warnings, nil
}
