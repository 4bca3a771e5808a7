package reports

import (
	"testing"

	"github.com/rooftool/rooftool/verdict/verdicttest"
)

// syntheticJudged is the hand-made run of verdicttest.Synthetic as the
// report's input: with a plot of swiglu and a manifest note that says
// where the report's fixture is made. The golden files made from it live
// in testdata/synthetic.*.
func syntheticJudged(t *testing.T) Input {
	t.Helper()
	const sw = "M=512,N=4096,K=7168"
	in := Input{Result: verdicttest.Synthetic(t),
		Plots: map[string][]Plot{"swiglu": {{Title: "swiglu roofline at " + sw, Path: "plots/swiglu-" + sw + "-roofline.png"}}}}
	in.Manifest.Warnings = []string{"synthetic: made by reports/fixture_test.go"}
	return in
}
