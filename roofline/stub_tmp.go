package roofline

import (
	"errors"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/kernels"
)

func fileName(experiment, s, kind string) string { return experiment + "-" + s + "-" + kind }
func writeRoofline(dir string, run *analysis.Run, experiment, shape string) ([]string, []analysis.Warning, error) {
	return nil, nil, errors.New("roofline: not written yet")
}
func writeSweep(dir string, run *analysis.Run, experiment string, sweep kernels.Sweep) ([]string, []analysis.Warning, error) {
	return nil, nil, errors.New("roofline: not written yet")
}
