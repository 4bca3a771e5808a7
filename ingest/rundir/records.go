package rundir

import "path"

// How an ncu pass replayed a cell (PassStatus.Method).
const (
	MethodKernel   = "kernel"    // per-kernel replay (the ncu pass)
	MethodRange    = "range"     // ncu --replay-mode range
	MethodAppRange = "app-range" // ncu --replay-mode app-range (whole application replayed per pass)
	MethodGraph    = "graph"     // ncu --graph-profiling graph
)

// MinRangeCoverage is the least share of a cell's kernel-pass totals its
// range pass must reach to count as complete (PassStatus.Coverage).
const MinRangeCoverage = 0.9

// Coverage compares one cell's range pass with the same cell's ncu kernel
// pass: the range's totals over the sum of its kernels'. A complete range
// reads at least the kernels' L2 traffic (ratio near 1 or above: the range
// adds its own overhead); a range that lost kernels reads less. Ratios are
// absent where either side lacks the metric.
type Coverage struct {
	Time          *float64 `json:"time,omitempty"`     // range gpu__time_duration.sum / sum of the kernels'
	L2Bytes       *float64 `json:"l2_bytes,omitempty"` // range lts__t_bytes.sum / sum of the kernels'
	KernelTimeNs  float64  `json:"kernel_time_ns,omitempty"`
	RangeTimeNs   float64  `json:"range_time_ns,omitempty"`
	KernelL2Bytes float64  `json:"kernel_l2_bytes,omitempty"`
	RangeL2Bytes  float64  `json:"range_l2_bytes,omitempty"`
}

// CoverageRatio is a range's total over the same cell's kernel-pass total
// as Coverage holds it, rounded to four decimals; nil where the kernel-pass
// total is not positive.
func CoverageRatio(rng, kernel float64) *float64 {
	if kernel <= 0 {
		return nil
	}
	x := float64(int64(rng/kernel*1e4+0.5)) / 1e4
	return &x
}

// Complete reports whether a range measured with method covers the kernel
// pass: at least MinRangeCoverage of its L2 bytes, and for MethodRange of
// its time too. app-range's duration includes replay overhead, so only its
// bytes are judged (its time where the bytes are missing). A coverage with
// no ratio at all cannot be judged and counts as complete.
func (c *Coverage) Complete(method string) bool {
	if c == nil {
		return true
	}
	var rs []*float64
	switch {
	case method == MethodRange:
		rs = []*float64{c.Time, c.L2Bytes}
	case c.L2Bytes != nil:
		rs = []*float64{c.L2Bytes}
	default:
		rs = []*float64{c.Time}
	}
	for _, r := range rs {
		if r != nil && *r < MinRangeCoverage {
			return false
		}
	}
	return true
}

// Score is the figure Complete judges by (the smaller ratio for
// MethodRange), -1 when there is none: the better of two incomplete ranges
// has the higher score.
func (c *Coverage) Score(method string) float64 {
	if c == nil {
		return -1
	}
	s := -1.0
	take := func(r *float64) {
		if r != nil && (s < 0 || *r < s) {
			s = *r
		}
	}
	switch {
	case method == MethodRange:
		take(c.Time)
		take(c.L2Bytes)
	case c.L2Bytes != nil:
		take(c.L2Bytes)
	default:
		take(c.Time)
	}
	return s
}

// SnapshotFiles are the files of kernels/<exp>/ a run keeps a copy of
// under specs/<exp>/: what the run was made and is judged with.
var SnapshotFiles = []string{"spec.yaml", "claims.yaml"}

// SpecsPath is specs/<exp>/<file> relative to the run directory, with
// forward slashes (join it with the run directory through
// filepath.FromSlash).
func SpecsPath(exp, file string) string { return path.Join(SpecsDir, exp, file) }
