package rundir

import "testing"

func TestCoverageComplete(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name     string
		c        *Coverage
		method   string
		complete bool
		score    float64
	}{
		{"nil", nil, MethodRange, true, -1},
		{"no ratio", &Coverage{}, MethodRange, true, -1},
		{"range complete", &Coverage{Time: f(1.18), L2Bytes: f(1.03)}, MethodRange, true, 1.03},
		{"range partial bytes", &Coverage{Time: f(1.1), L2Bytes: f(0.15)}, MethodRange, false, 0.15},
		{"range partial time", &Coverage{Time: f(0.34), L2Bytes: f(0.95)}, MethodRange, false, 0.34},
		{"range time only", &Coverage{Time: f(0.5)}, MethodRange, false, 0.5},
		{"app-range judged by bytes", &Coverage{Time: f(0.2), L2Bytes: f(0.97)}, MethodAppRange, true, 0.97},
		{"app-range partial bytes", &Coverage{Time: f(4), L2Bytes: f(0.5)}, MethodAppRange, false, 0.5},
		{"app-range without bytes: time", &Coverage{Time: f(0.8)}, MethodAppRange, false, 0.8},
		{"at the threshold", &Coverage{Time: f(0.9), L2Bytes: f(0.9)}, MethodRange, true, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Complete(tc.method); got != tc.complete {
				t.Errorf("Complete(%s) = %v, want %v", tc.method, got, tc.complete)
			}
			if got := tc.c.Score(tc.method); got != tc.score {
				t.Errorf("Score(%s) = %v, want %v", tc.method, got, tc.score)
			}
		})
	}
}

func TestSpecsPath(t *testing.T) {
	if got := SpecsPath("gla_proj", "claims.yaml"); got != "specs/gla_proj/claims.yaml" {
		t.Errorf("SpecsPath = %q", got)
	}
}
