package rangerule

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/internal/testgz"
	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/ncu"
)

// The committed H100 run of 2026-11-22 range-replayed every gla_proj cell in
// one ncu process: some ranges came back partial. Coverage tells them apart
// on real exports.
func TestCoverageOfCommittedRun(t *testing.T) {
	run := filepath.Join("..", "..", "testdata", "runs", "2026-11-22-h100-034455", "raw")
	const shape = "B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=16.csv"
	for _, tc := range []struct {
		variant  string
		complete bool
		l2       float64
	}{
		{"unfused", true, 1.0033},
		{"compiled", false, 0.4097},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			sum := func(pass string) Totals {
				// The committed run keeps its CSVs gzipped.
				data := testgz.Read(t, filepath.Join(run, pass, "gla_proj", tc.variant, shape+".gz"))
				s, _, err := ncu.SumMetrics(data, metric.Duration, metric.L2Bytes)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			c := Coverage(sum("ncu"), sum("ncu-range"))
			if c.L2Bytes == nil || math.Abs(*c.L2Bytes-tc.l2) > 1e-3 || c.Complete(rundir.MethodRange) != tc.complete {
				js, _ := json.Marshal(c)
				t.Errorf("coverage %s: complete %v, want l2 %.4f, complete %v", js, c.Complete(rundir.MethodRange), tc.l2, tc.complete)
			}
		})
	}
}
