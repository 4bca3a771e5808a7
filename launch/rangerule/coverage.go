package rangerule

// The range pass's check against the kernel pass: each range's time and L2
// bytes set against the sums of the cell's kernels in the ncu kernel pass
// (Coverage), the warning for a cell no replay method measured completely
// (PartialWarning), the metrics those sums read, and the DRAM bytes of a
// sum (DRAM) that the replay rule and the DRAM floor rest on.

import (
	"fmt"
	"math"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// PartialWarning names a cell whose range no method measured completely.
func PartialWarning(exp, cell string, kept rundir.PassStatus, other *rundir.PassStatus) string {
	w := fmt.Sprintf("range pass of %s/%s: no replay method reached %.2f of the kernel pass: %s", exp, cell, rundir.MinRangeCoverage, describeCoverage(kept))
	if other != nil {
		if other.Status == rundir.StatusOK {
			w += "; " + describeCoverage(*other)
		} else {
			w += fmt.Sprintf("; %s failed: %s", other.Method, other.Reason)
		}
	}
	return w + fmt.Sprintf("; kept %s: its bytes may undercount the cell", kept.Method)
}

func describeCoverage(st rundir.PassStatus) string {
	c := st.Coverage
	var parts []string
	if c != nil && c.Time != nil {
		parts = append(parts, fmt.Sprintf("time %.2f", math.Floor(*c.Time*100+1e-9)/100))
	}
	if c != nil && c.L2Bytes != nil {
		parts = append(parts, fmt.Sprintf("l2 bytes %.2f", math.Floor(*c.L2Bytes*100+1e-9)/100))
	}
	if len(parts) == 0 {
		return st.Method + " unmeasured"
	}
	return st.Method + " covers " + strings.Join(parts, ", ")
}

// Totals are a few metrics summed over the rows of an ncu CSV; a metric
// no row carried is absent.
type Totals map[string]float64

// Coverage compares range totals with kernel totals.
func Coverage(kernel, rng Totals) *rundir.Coverage {
	c := &rundir.Coverage{
		KernelTimeNs: kernel[metric.Duration], RangeTimeNs: rng[metric.Duration],
		KernelL2Bytes: kernel[metric.L2Bytes], RangeL2Bytes: rng[metric.L2Bytes],
	}
	ratio := func(m string) *float64 {
		k, kok := kernel[m]
		v, vok := rng[m]
		if !kok || !vok {
			return nil
		}
		return rundir.CoverageRatio(v, k)
	}
	c.Time = ratio(metric.Duration)
	c.L2Bytes = ratio(metric.L2Bytes)
	return c
}

// WarnRangeBelowFloor begins the warning of a range short of its DRAM
// floor (analysis warns under the same code).
const WarnRangeBelowFloor = "range-below-floor"

// DRAM is the DRAM bytes of a sum: read + write where it has either, else
// dram__bytes.
func DRAM(t Totals) (float64, bool) {
	rd, okR := t[metric.DRAMRead]
	wr, okW := t[metric.DRAMWrite]
	if okR || okW {
		return rd + wr, true
	}
	tot, ok := t[metric.DRAMBytes]
	return tot, ok
}
