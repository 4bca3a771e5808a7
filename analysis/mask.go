package analysis

import (
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// PassMask names, per cell, the passes whose rows Analyze leaves out: those
// the run's manifest (Options.Manifest) marks failed or skipped. Tables can
// still hold rows of such a pass (an attempt the runner superseded, a pass
// that wrote its export and then failed its checks); no fact of the cell is
// derived from them, so that every consumer of the facts states only what
// the run itself accepted. A cell whose check pass failed or was skipped has
// every pass masked. Which rows belong to which pass:
//
//	timing  timings rows (wall and device time) and the timing meta rows of the cell's loops (clock samples)
//	ncu     ncu kernel-pass rows (KernelFacts, and the cell's FLOPs, bytes and class)
//	range   ncu range-pass rows (DRAMBytesRange and the range coverage)
//	nsys    timeline rows (nsys, Kineto): the cell's kernel list then comes from the ncu kernel pass
//
// A cell the manifest does not list, or a pass it does not record, is used
// as the tables hold it. A consumer that reads rows of the tables itself
// (reports' comparison of two runs) leaves out the same ones.
type PassMask map[cellkey.Key]map[string]bool

// MaskOf reads the pass mask of a manifest (nil: none).
func MaskOf(man *rundir.Manifest) PassMask {
	if man == nil {
		return nil
	}
	m := PassMask{}
	for i := range man.Cells {
		c := &man.Cells[i]
		for p, ps := range c.Passes {
			if ps.Status == rundir.StatusOK {
				continue
			}
			k := c.Key()
			if m[k] == nil {
				m[k] = map[string]bool{}
			}
			m[k][p] = true
		}
	}
	return m
}

// Masked reports whether the rows of pass in cell k are left out.
func (m PassMask) Masked(k cellkey.Key, pass string) bool {
	ps := m[k]
	return ps[pass] || ps[rundir.PassCheck]
}

// KernelMasked reports whether the kernel row k is of a pass m leaves out:
// an ncu range-pass row by its cell's range pass, another ncu row by its
// ncu pass, a timeline row (nsys, Kineto) by its nsys pass.
func (m PassMask) KernelMasked(k ingest.Kernel) bool {
	if m == nil {
		return false
	}
	switch {
	case k.Pass == ingest.PassTimeline:
		return m.Masked(k.Key(), rundir.PassNsys)
	case k.Source == ingest.SourceNCU && k.Pass == ingest.PassRange:
		return m.Masked(k.Key(), rundir.PassRange)
	case k.Source == ingest.SourceNCU:
		return m.Masked(k.Key(), rundir.PassNCU)
	}
	return false
}
