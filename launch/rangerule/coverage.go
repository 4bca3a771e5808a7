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
		KernelTimeNs: kernel[MetricTime], RangeTimeNs: rng[MetricTime],
		KernelL2Bytes: kernel[MetricL2], RangeL2Bytes: rng[MetricL2],
	}
	ratio := func(m string) *float64 {
		k, kok := kernel[m]
		v, vok := rng[m]
		if !kok || !vok {
			return nil
		}
		return rundir.CoverageRatio(v, k)
	}
	c.Time = ratio(MetricTime)
	c.L2Bytes = ratio(MetricL2)
	return c
}

// Metrics the coverage compares, and the DRAM bytes the replay rule reads.
const (
	MetricTime      = "gpu__time_duration.sum"
	MetricL2        = "lts__t_bytes.sum"
	MetricDRAMRead  = "dram__bytes_read.sum"
	MetricDRAMWrite = "dram__bytes_write.sum"
	MetricDRAM      = "dram__bytes.sum"
)

// MetricL2Size is the ncu kernel pass's L2 capacity column (one value per
// row: summed over the rows, divided by their count).
const MetricL2Size = "device__attribute_l2_cache_size"

// WarnRangeBelowFloor begins the warning of a range short of its DRAM
// floor (analysis warns under the same code).
const WarnRangeBelowFloor = "range-below-floor"

// DRAM is the DRAM bytes of a sum: read + write where it has either, else
// dram__bytes.
func DRAM(t Totals) (float64, bool) {
	rd, okR := t[MetricDRAMRead]
	wr, okW := t[MetricDRAMWrite]
	if okR || okW {
		return rd + wr, true
	}
	tot, ok := t[MetricDRAM]
	return tot, ok
}
