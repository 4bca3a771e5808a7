package diff

import (
	"sort"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// runKernels is what one run launched, per cell and normalized kernel name.
type runKernels struct {
	cells map[cellkey.Key]*cellKernels
}

type cellKernels struct {
	source   string   // nsys, kineto or ncu: where counts and times come from
	names    []string // normalized names: timeline (else ncu) launch order, then ncu-only names
	by       map[string]*kernelAgg
	total    kernelAgg
	warnings []string // analysis's passes-differ warnings of the cell
}

type kernelAgg struct {
	count       int
	timeNs      float64
	ncuCount    int
	dram        float64
	dramSeen    bool // the ncu kernel pass has this kernel
	dramMissing bool // ... and one of its launches lacks the DRAM counters
}

func (k *kernelAgg) side(source string) *KernelSide {
	s := &KernelSide{Count: k.count, TimeNs: k.timeNs, NCUCount: k.ncuCount, Source: source}
	if k.dramSeen && !k.dramMissing {
		v := k.dram
		s.DRAMBytes = &v
	}
	return s
}

// lacksDRAM says whether analysis found no DRAM counters for a kernel.
func lacksDRAM(f analysis.KernelFact) bool {
	for _, w := range f.Warnings {
		if w.Code == analysis.WarnMissing && strings.Contains(w.Msg, metric.DRAMRead) {
			return true
		}
	}
	return false
}

// countsFromNCU says whether a cell's kernel counts and times come from
// the ncu kernel pass (the cell has no timeline): analysis says so with a
// missing-metric warning on gpu_time_ns.
func countsFromNCU(c analysis.CellFact) bool {
	for _, w := range c.Warnings {
		if w.Code == analysis.WarnMissing && w.Metric == "gpu_time_ns" {
			return true
		}
	}
	return false
}

// timelineSources names, per cell, the sources of its timeline rows
// ("nsys", "kineto", or both joined with "+"), but for the cells whose nsys
// pass mask leaves out.
func timelineSources(t *ingest.Tables, mask analysis.PassMask) map[cellkey.Key]string {
	seen := map[cellkey.Key]map[string]bool{}
	for _, k := range t.Kernels() {
		if k.Pass != ingest.PassTimeline || k.Experiment == "" || k.Variant == "" || k.Shape == "" {
			continue
		}
		key := k.Key()
		if mask.Masked(key, rundir.PassNsys) {
			continue
		}
		if seen[key] == nil {
			seen[key] = map[string]bool{}
		}
		seen[key][k.Source] = true
	}
	out := map[cellkey.Key]string{}
	for k, m := range seen {
		var l []string
		for s := range m {
			l = append(l, s)
		}
		sort.Strings(l)
		out[k] = strings.Join(l, "+")
	}
	return out
}

// kernelsOf groups an analysed run's kernels by cell and normalized name:
// counts and times from the cell's facts (timeline, else ncu kernel pass),
// DRAM bytes from the ncu kernel facts. Cells with no kernel are left out.
func kernelsOf(an *analysis.Run, sources map[cellkey.Key]string) runKernels {
	rk := runKernels{cells: map[cellkey.Key]*cellKernels{}}
	get := func(k cellkey.Key) *cellKernels {
		c := rk.cells[k]
		if c == nil {
			c = &cellKernels{by: map[string]*kernelAgg{}}
			rk.cells[k] = c
		}
		return c
	}
	agg := func(c *cellKernels, name string) *kernelAgg {
		n := analysis.NormalizeKernelName(name)
		a := c.by[n]
		if a == nil {
			a = &kernelAgg{}
			c.by[n] = a
			c.names = append(c.names, n)
		}
		return a
	}
	for _, cf := range an.Cells {
		if cf.Status == "missing" || len(cf.KernelNames) == 0 {
			continue
		}
		k := cf.Key()
		c := get(k)
		c.source = ingest.SourceNCU
		if !countsFromNCU(cf) {
			c.source = sources[k]
			if c.source == "" {
				c.source = "timeline"
			}
		}
		for _, w := range cf.Warnings {
			if w.Code == analysis.WarnPassesDiffer {
				c.warnings = append(c.warnings, w.Msg)
			}
		}
		for i, n := range cf.KernelNames {
			a := agg(c, n)
			a.count++
			c.total.count++
			if i < len(cf.KernelTimesNs) {
				a.timeNs += cf.KernelTimesNs[i]
				c.total.timeNs += cf.KernelTimesNs[i]
			}
		}
	}
	for _, f := range an.Kernels {
		if f.Experiment == "" || f.Variant == "" || f.Shape == "" {
			continue
		}
		c := rk.cells[f.Key()]
		if c == nil {
			continue
		}
		for _, a := range []*kernelAgg{agg(c, f.Name), &c.total} {
			a.dramSeen = true
			a.ncuCount++
			if lacksDRAM(f) {
				a.dramMissing = true
			} else {
				a.dram += f.DRAMBytes
			}
		}
	}
	return rk
}

// diffKernels compares the kernels of the cells both runs have, in order.
func diffKernels(a, b runKernels, order []cellkey.Key, nameA, nameB string) ([]KernelCell, []KernelRow) {
	var cells []KernelCell
	var rows []KernelRow
	for _, k := range order {
		ca, cb := a.cells[k], b.cells[k]
		if ca == nil && cb == nil {
			continue
		}
		cd := KernelCell{Experiment: k.Experiment, Variant: k.Variant, Shape: k.Shape, Added: []string{}, Removed: []string{}}
		switch {
		case ca == nil:
			cd.New = cb.total.side(cb.source)
			cd.Note = "run " + nameA + " has no kernels for this cell"
			cells = append(cells, cd)
			continue
		case cb == nil:
			cd.Old = ca.total.side(ca.source)
			cd.Note = "run " + nameB + " has no kernels for this cell"
			cells = append(cells, cd)
			continue
		}
		cd.Old, cd.New = ca.total.side(ca.source), cb.total.side(cb.source)
		for _, w := range ca.warnings {
			cd.Warnings = append(cd.Warnings, "old: "+w)
		}
		for _, w := range cb.warnings {
			cd.Warnings = append(cd.Warnings, "new: "+w)
		}
		cd.TimeDelta, cd.DRAMDelta = sideDeltas(cd.Old, cd.New)
		// The new run's kernels in its launch order, then those it dropped
		// in the old run's.
		var names []string
		names = append(names, cb.names...)
		for _, n := range ca.names {
			if cb.by[n] == nil {
				names = append(names, n)
			}
		}
		for _, n := range names {
			r := KernelRow{Experiment: k.Experiment, Variant: k.Variant, Shape: k.Shape, Kernel: n, Status: Both}
			ka, kb := ca.by[n], cb.by[n]
			switch {
			case ka == nil:
				r.Status = Added
				cd.Added = append(cd.Added, n)
			case kb == nil:
				r.Status = Removed
				cd.Removed = append(cd.Removed, n)
			}
			if ka != nil {
				r.Old = ka.side(ca.source)
			}
			if kb != nil {
				r.New = kb.side(cb.source)
			}
			r.TimeDelta, r.DRAMDelta = sideDeltas(r.Old, r.New)
			rows = append(rows, r)
		}
		cells = append(cells, cd)
	}
	return cells, rows
}

func sideDeltas(o, n *KernelSide) (time, dram *float64) {
	if o == nil || n == nil {
		return nil, nil
	}
	time = ratio(o.TimeNs, n.TimeNs)
	// DRAM over other launches than counted (the passes differ) has no delta.
	if o.DRAMBytes != nil && n.DRAMBytes != nil && o.NCUCount == o.Count && n.NCUCount == n.Count {
		dram = ratio(*o.DRAMBytes, *n.DRAMBytes)
	}
	return time, dram
}
