package launch

// The range pass's DRAM floor (METHOD.md, "The range's DRAM floor"): once
// the nsys pass of an experiment has run, each cell's range DRAM bytes are
// checked against the DRAM bytes of its kernels in the kernel pass plus
// those of the memory copies and memsets nsys saw inside its NVTX range,
// less what L2 reuse can save (rundir.DRAMFloor). A memcpy is no kernel:
// ncu's kernel pass never sees it, and on ncu 2025.3.1 a later range of a
// shared range process came back without its copies' traffic while still
// covering the kernel pass. A short range measured in a shared process is
// replayed alone (a fresh range pass of the cell alone); a range still
// short, or short alone in the first place, is warned about, and analysis
// voids the DRAM claims resting on it.

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/ncu"
	"github.com/rooftool/rooftool/launch/rangerule"
	"github.com/rooftool/rooftool/spec"
)

// floorCheck checks every cell of cells ("variant/shape") whose range and
// nsys passes are ok and whose range has no DRAMFloor yet.
func (r *Runner) floorCheck(ctx context.Context, exp *spec.Experiment, cells []string) error {
	var todo []string
	byFile := map[string][]string{}
	for _, c := range cells {
		v, s, _ := strings.Cut(c, "/")
		rst, ok := r.m.Pass(exp.Name, v, s, rundir.PassRange)
		if !ok || rst.Status != rundir.StatusOK || rst.DRAMFloor != nil {
			continue
		}
		nst, ok := r.m.Pass(exp.Name, v, s, rundir.PassNsys)
		if !ok || nst.Status != rundir.StatusOK || len(nst.Files) == 0 {
			continue
		}
		todo = append(todo, c)
		byFile[nst.Files[0]] = append(byFile[nst.Files[0]], c)
	}
	if len(todo) == 0 {
		return nil
	}
	copies := map[string]ingest.CopyTotals{}
	for f, cs := range byFile {
		tb, err := detect.File(filepath.Join(r.dir, filepath.FromSlash(f)), ingest.Options{Experiment: exp.Name, Cells: cs}, nil)
		if err != nil {
			r.warn("range pass of %s: DRAM floor not checked for %s: %s: %v", exp.Name, strings.Join(cs, ", "), f, err)
			for _, c := range cs {
				copies[c] = ingest.CopyTotals{Count: -1}
			}
			continue
		}
		for k, t := range ingest.CellCopies(tb) {
			if k.Experiment == exp.Name {
				copies[k.Variant+"/"+k.Shape] = t
			}
		}
		tb.Release()
	}
	for _, c := range todo {
		if copies[c].Count < 0 {
			continue
		}
		if err := r.floorCell(ctx, exp, c, copies[c]); err != nil {
			return err
		}
	}
	return r.write()
}

// floorCell checks one cell's range against its floor, replays it alone
// where a shared process measured it short, and records the check.
func (r *Runner) floorCell(ctx context.Context, exp *spec.Experiment, cell string, cp ingest.CopyTotals) error {
	v, s, _ := strings.Cut(cell, "/")
	f, ok, why := r.floorOf(exp.Name, cell, cp)
	if !ok {
		if why != "" {
			r.warn("range pass of %s/%s: DRAM floor not checked: %s", exp.Name, cell, why)
		}
		return nil
	}
	st, _ := r.m.Pass(exp.Name, v, s, rundir.PassRange)
	if f.Short && st.Process == rundir.ProcessShared {
		shared := f
		// A fresh range pass of the cell alone: its replays replace the
		// shared process's.
		if err := r.rangePass(ctx, exp, []string{cell}); err != nil {
			return err
		}
		st, _ = r.m.Pass(exp.Name, v, s, rundir.PassRange)
		if st.Status != rundir.StatusOK {
			r.warn("range pass of %s/%s: %s: %s; replayed alone, the range failed (%s): its DRAM claims are void", exp.Name, cell, rangerule.WarnRangeBelowFloor, shared.Describe(), st.Reason)
			return nil
		}
		st.Process = rundir.ProcessReplayedAlone
		for i := range st.Replays {
			if st.Replays[i].Process != "" {
				st.Replays[i].Process = rundir.ProcessReplayedAlone
			}
		}
		r.m.SetPass(exp.Name, v, s, rundir.PassRange, st)
		if f, ok, why = r.floorOf(exp.Name, cell, cp); !ok {
			r.warn("range pass of %s/%s: %s: %s; replayed alone, not checked again: %s", exp.Name, cell, rangerule.WarnRangeBelowFloor, shared.Describe(), why)
			return nil
		}
		f.ReplayedAlone, f.SharedDRAMBytes = true, shared.RangeDRAMBytes
		if f.Short {
			r.warn("range pass of %s/%s: %s: shared process %s; replayed alone, still short: %s: its DRAM claims are void", exp.Name, cell, rangerule.WarnRangeBelowFloor, shared.Describe(), f.Describe())
		}
	} else if f.Short {
		r.warn("range pass of %s/%s: %s: %s, measured alone: its DRAM claims are void", exp.Name, cell, rangerule.WarnRangeBelowFloor, f.Describe())
	}
	st.DRAMFloor = &f
	r.m.SetPass(exp.Name, v, s, rundir.PassRange, st)
	return nil
}

// floorOf computes a cell's DRAM floor from its kernel pass's CSV, its
// copies and its range replays' DRAM bytes; false (and why, "" for
// nothing to say) where a figure is missing.
func (r *Runner) floorOf(exp, cell string, cp ingest.CopyTotals) (rundir.DRAMFloor, bool, string) {
	v, s, _ := strings.Cut(cell, "/")
	st, ok := r.m.Pass(exp, v, s, rundir.PassNCU)
	if !ok || st.Status != rundir.StatusOK || len(st.Files) == 0 {
		return rundir.DRAMFloor{}, false, ""
	}
	f := st.Files[0]
	if path.Ext(f) != ".csv" || path.Base(path.Dir(f)) != v {
		return rundir.DRAMFloor{}, false, "" // the experiment's whole export: kernels not attributed to cells
	}
	t, rows, err := r.kernelCSV(f)
	if err != nil {
		return rundir.DRAMFloor{}, false, fmt.Sprintf("%s: %v", f, err)
	}
	dram, okD := rangerule.DRAM(t)
	if !okD || rows == 0 {
		return rundir.DRAMFloor{}, false, f + ": no DRAM bytes in the kernel pass"
	}
	l2 := 0.0
	if sz, ok := t[metric.DeviceL2]; ok && sz > 0 {
		l2 = sz / float64(rows)
	} else if r.m.GPU.L2Bytes > 0 {
		l2 = float64(r.m.GPU.L2Bytes)
	}
	if l2 <= 0 {
		return rundir.DRAMFloor{}, false, "the device's L2 capacity is unknown (no " + metric.DeviceL2 + " in " + f + ", none in the manifest)"
	}
	bytes, warn := r.rangeBytes(exp, cell)
	for _, w := range warn {
		r.warn("%s", w)
	}
	if len(bytes) == 0 {
		return rundir.DRAMFloor{}, false, "the range pass has no DRAM bytes"
	}
	return rundir.NewDRAMFloor(dram, float64(cp.DRAMBytes), rows, cp.Count, l2, bytes), true, ""
}

// kernelCSV sums the DRAM and L2-capacity columns of a kernel pass CSV.
func (r *Runner) kernelCSV(rel string) (rangerule.Totals, int, error) {
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, 0, err
	}
	t, rows, err := ncu.SumMetrics(data, metric.DRAMRead, metric.DRAMWrite, metric.DRAMBytes, metric.DeviceL2)
	return t, rows, err
}
