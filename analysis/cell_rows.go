package analysis

import (
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// cellRows gathers the rows of the tables by cell: the cells in the order
// rows first name them, and each cell's ncu kernel facts, timeline rows,
// range-pass replays and timing samples.
type cellRows struct {
	cells     map[cellkey.Key]*CellFact
	order     []cellkey.Key
	expByName map[string]*spec.Experiment

	kfByCell            map[cellkey.Key][]KernelFact
	timeline            map[cellkey.Key][]ingest.Kernel   // nsys/Kineto timeline rows
	replays             map[cellkey.Key][]rangeReplay     // ncu range-pass rows
	samples, devSamples map[cellkey.Key][]float64         // wall and device times, ms
	copies              map[cellkey.Key]ingest.CopyTotals // nsys memory copies and memsets in each cell's range
	launchErr           map[cellkey.Key]string            // why no CUDA-graph launch was timed (timing meta)
}

// newCellRows is an empty cellRows for the experiments exps.
func newCellRows(exps []*spec.Experiment) *cellRows {
	s := &cellRows{
		cells:      map[cellkey.Key]*CellFact{},
		expByName:  map[string]*spec.Experiment{},
		kfByCell:   map[cellkey.Key][]KernelFact{},
		timeline:   map[cellkey.Key][]ingest.Kernel{},
		samples:    map[cellkey.Key][]float64{},
		devSamples: map[cellkey.Key][]float64{},
	}
	for _, e := range exps {
		s.expByName[e.Name] = e
	}
	return s
}

// cell is the fact of cell k, made (status "ok", role from the spec) the
// first time a row names it.
func (s *cellRows) cell(k cellkey.Key) *CellFact {
	c := s.cells[k]
	if c == nil {
		c = &CellFact{Experiment: k.Experiment, Variant: k.Variant, Shape: k.Shape, Status: "ok"}
		if e := s.expByName[k.Experiment]; e != nil {
			if v := e.Variant(k.Variant); v != nil {
				c.Role = v.Role
			}
		}
		s.cells[k] = c
		s.order = append(s.order, k)
	}
	return c
}

// inCell says whether a row names a cell. A cell needs all three names: rows
// inside the experiment range but outside a variant/shape range (warm-up
// launches) belong to no cell.
func inCell(exp, variant, shape string) bool { return exp != "" && variant != "" && shape != "" }

// addKernelFacts files the ncu kernel facts by cell, those of a masked ncu
// pass only naming their cell.
func (s *cellRows) addKernelFacts(kfacts []KernelFact, mask PassMask) {
	for _, f := range kfacts {
		if !inCell(f.Experiment, f.Variant, f.Shape) {
			continue
		}
		k := f.Key()
		s.cell(k)
		if mask.Masked(k, rundir.PassNCU) {
			continue
		}
		s.kfByCell[k] = append(s.kfByCell[k], f)
	}
}

// addKernelRows files the timeline rows and the ncu range-pass replays by
// cell, those of a masked pass only naming their cell; ncu kernel-pass rows
// name their cell (their facts come from addKernelFacts).
func (s *cellRows) addKernelRows(t *ingest.Tables, byKernel metricIndex, mask PassMask) {
	s.replays = rangeReplays(t, byKernel)
	for _, k := range t.Kernels() {
		if !inCell(k.Experiment, k.Variant, k.Shape) {
			continue
		}
		key := k.Key()
		switch {
		case k.Pass == ingest.PassTimeline:
			s.cell(key)
			if !mask.Masked(key, rundir.PassNsys) {
				s.timeline[key] = append(s.timeline[key], k)
			}
		case k.Source == ingest.SourceNCU && k.Pass == ingest.PassRange:
			s.cell(key) // its rows: rangeReplays
			if mask.Masked(key, rundir.PassRange) {
				delete(s.replays, key)
			}
		case k.Source == ingest.SourceNCU:
			s.cell(key) // its facts: kfacts, where its ncu pass is not masked
		}
	}
}

// addTimings files the wall and device timing samples by cell; a masked
// timing pass only names its cell and drops the cell's clock spreads.
func (s *cellRows) addTimings(t *ingest.Tables, mask PassMask, spreads, devSpreads map[cellkey.Key]ClockSpread) {
	for _, tm := range t.Timings() {
		if !inCell(tm.Experiment, tm.Variant, tm.Shape) || ingest.IsPairedTiming(tm.Method) {
			continue // a paired record's arms are no cell's own samples (PairedSpeedups)
		}
		key := tm.Key()
		s.cell(key)
		if mask.Masked(key, rundir.PassTiming) {
			delete(spreads, key)
			delete(devSpreads, key)
			continue
		}
		if ingest.IsDeviceTiming(tm.Method) {
			s.devSamples[key] = append(s.devSamples[key], tm.Ms)
			continue
		}
		s.samples[key] = append(s.samples[key], tm.Ms)
	}
}

// addLaunchErrors files each cell's reason for having no CUDA-graph
// launch: the timing JSON's launch_error, else its device_error.
func (s *cellRows) addLaunchErrors(t *ingest.Tables) {
	s.launchErr = map[cellkey.Key]string{}
	cellOf := TimingFileCells(t.Timings())
	for _, m := range t.Metas() {
		if m.Source != ingest.SourceTiming || (m.Key != "launch_error" && m.Key != "device_error") {
			continue
		}
		k, _, ok := cellOf(m.File)
		if !ok || (m.Key == "device_error" && s.launchErr[k] != "") {
			continue
		}
		s.launchErr[k] = m.Value
	}
}

// addMissing adds a cell with status "missing" for every spec cell without
// data, in the experiments that have data.
func (s *cellRows) addMissing(exps []*spec.Experiment) {
	hasData := map[string]bool{}
	for k := range s.cells {
		hasData[k.Experiment] = true
	}
	for _, e := range exps {
		if !hasData[e.Name] {
			continue
		}
		for _, v := range e.Variants {
			for _, sh := range e.AllShapes() {
				k := cellkey.New(e.Name, v.Name, sh)
				if s.cells[k] == nil {
					s.cell(k).Status = "missing"
				}
			}
		}
	}
}
