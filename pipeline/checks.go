package pipeline

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// Check is one cell's check-pass JSON (kernels/README.md, mode check).
type Check struct {
	Experiment string   `json:"experiment"`
	Variant    string   `json:"variant"`
	Shape      string   `json:"shape"`
	OK         bool     `json:"ok"`
	Skipped    bool     `json:"skipped,omitempty"`
	MaxAbsErr  *float64 `json:"max_abs_err,omitempty"`
	MaxRelErr  *float64 `json:"max_rel_err,omitempty"`
	Tolerance  float64  `json:"tolerance,omitempty"`
	Error      string   `json:"error,omitempty"`
	Metric     string   `json:"metric,omitempty"` // how the error is measured, in the runner's words
	// VsBaseline is the error against the baseline variant's output on the
	// same inputs (the seeds' statement of error); absent in older runs.
	VsBaseline      *VsBaseline `json:"vs_baseline,omitempty"`
	VsBaselineError string      `json:"vs_baseline_error,omitempty"`
}

// Key is the cell the check is of.
func (c Check) Key() cellkey.Key {
	return cellkey.New(c.Experiment, c.Variant, c.Shape)
}

// VsBaseline is a candidate's error against its baseline's output.
type VsBaseline struct {
	Baseline string   `json:"baseline"`
	RelErr   *float64 `json:"rel_err"`
}

// ReadChecks reads every raw/check/**/*.check.json of a run (kernels/README.md,
// mode check). A run without checks gives none.
func ReadChecks(run *rundir.Run) ([]Check, error) {
	var out []Check
	err := run.WalkJSON(rundir.CheckDir, ".check.json", func(rel string, data []byte) error {
		var c Check
		if err := json.Unmarshal(data, &c); err != nil {
			return err
		}
		if c.Experiment == "" || c.Variant == "" || c.Shape == "" {
			// Fall back to the path: raw/check/<exp>/<variant>/<shape>.check.json.
			if k, err := cellkey.Parse(strings.TrimSuffix(rel, ".check.json")); err == nil {
				c.Experiment = or(c.Experiment, k.Experiment)
				c.Variant = or(c.Variant, k.Variant)
				c.Shape = or(c.Shape, k.Shape)
			}
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read checks: %w", err)
	}
	sort.Slice(out, func(i, j int) bool {
		// "exp/variant/shape" string order
		return out[i].Key().String() < out[j].Key().String()
	})
	return out, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
