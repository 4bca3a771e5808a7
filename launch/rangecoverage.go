package launch

// The range pass's check against the kernel pass: each range's time and L2
// bytes set against the sums of the cell's kernels in the ncu
// kernel pass (coverage), the warning for a cell no replay method measured
// completely, and the sums of ncu metrics over a CSV those rest on.

import (
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/ncu"
)

// partialWarning names a cell whose range no method measured completely.
func partialWarning(exp, cell string, kept rundir.PassStatus, other *rundir.PassStatus) string {
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

// ncuTotals are a few metrics summed over the rows of an ncu CSV; a metric
// no row carried is absent.
type ncuTotals map[string]float64

// kernelTotals sums the same cell's kernel pass: nil (and no error) when
// that pass did not run ok, or recorded no CSV of the cell's own.
func (r *Runner) kernelTotals(exp, cell string) (ncuTotals, error) {
	v, s, _ := strings.Cut(cell, "/")
	st, ok := r.m.Pass(exp, v, s, rundir.PassNCU)
	if !ok || st.Status != rundir.StatusOK || len(st.Files) == 0 {
		return nil, nil
	}
	f := st.Files[0]
	if path.Ext(f) != ".csv" || path.Base(path.Dir(f)) != v {
		return nil, nil // the experiment's whole export: kernels not attributed to cells
	}
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(f)))
	if err != nil {
		return nil, err
	}
	t, _, err := ncu.SumMetrics(data, metricTime, metricL2)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	return t, nil
}

// cover sets st.Coverage of an ok range status from its CSV (st.Files[0])
// and the kernel pass's totals; it returns warnings.
func (r *Runner) cover(st *rundir.PassStatus, kernel ncuTotals, exp, cell string) []string {
	if st.Status != rundir.StatusOK || kernel == nil || len(st.Files) == 0 {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(st.Files[0])))
	if err != nil {
		return []string{fmt.Sprintf("range pass of %s/%s: %v: coverage not checked", exp, cell, err)}
	}
	rng, _, err := ncu.SumMetrics(data, metricTime, metricL2)
	if err != nil {
		return []string{fmt.Sprintf("range pass of %s/%s: %s: %v: coverage not checked", exp, cell, st.Files[0], err)}
	}
	st.Coverage = coverage(kernel, rng)
	return nil
}

// coverage compares range totals with kernel totals.
func coverage(kernel, rng ncuTotals) *rundir.Coverage {
	c := &rundir.Coverage{
		KernelTimeNs: kernel[metricTime], RangeTimeNs: rng[metricTime],
		KernelL2Bytes: kernel[metricL2], RangeL2Bytes: rng[metricL2],
	}
	ratio := func(m string) *float64 {
		k, kok := kernel[m]
		v, vok := rng[m]
		if !kok || !vok {
			return nil
		}
		return rundir.CoverageRatio(v, k)
	}
	c.Time = ratio(metricTime)
	c.L2Bytes = ratio(metricL2)
	return c
}
