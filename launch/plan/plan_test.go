package plan

import (
	"slices"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

func TestPlanSweeps(t *testing.T) {
	exps, err := LoadSpecs("../testdata/kernels")
	if err != nil {
		t.Fatal(err)
	}
	count := func(cells []Cell, pass string) int {
		n := 0
		for _, c := range cells {
			if slices.Contains(c.Passes, pass) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		mode          string
		shapes        []string
		timing, prof  int
		firstSweepPas []string
	}{
		{SweepsTiming, nil, 3, 2, []string{rundir.PassCheck, rundir.PassTiming}},
		{SweepsNone, nil, 2, 2, nil},
		{SweepsAll, nil, 3, 3, rundir.AllPasses},
		{SweepsNone, []string{"n=3"}, 1, 1, rundir.AllPasses}, // a named sweep shape runs fully
	} {
		cells, err := Cells(exps, nil, []string{"good"}, tc.shapes, rundir.AllPasses, tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		if count(cells, rundir.PassTiming) != tc.timing || count(cells, rundir.PassNCU) != tc.prof {
			t.Errorf("%s %v: %d timing, %d ncu cells; want %d, %d", tc.mode, tc.shapes, count(cells, rundir.PassTiming), count(cells, rundir.PassNCU), tc.timing, tc.prof)
		}
		for _, c := range cells {
			if c.Shape == "n=3" && !slices.Equal(c.Passes, tc.firstSweepPas) {
				t.Errorf("%s: n=3 passes %q, want %q", tc.mode, c.Passes, tc.firstSweepPas)
			}
		}
	}
	// The embedded specs load too.
	if _, err := spec.Load(); err != nil {
		t.Fatal(err)
	}
}
