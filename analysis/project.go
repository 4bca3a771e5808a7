package analysis

import (
	"math"
	"sort"
	"strconv"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
)

// Projection is a what-if: a run's cells as the roofline model projects
// them onto another GPU. Nothing in it was measured on the target GPU but
// the optional MeasuredWallMs of each cell (Against).
//
// The model, kernel by kernel (ncu kernel pass):
//
//	measured   = the kernel's duration on the source GPU
//	bound(G)   = max over the terms that both GPUs' roofs state of
//	             bytes/bandwidth (DRAM; L2 where the roofs give it) and
//	             FLOPs/roof of each FLOP class (tensor bf16, fp32, ...)
//	efficiency = bound(source) / measured
//	projected  = bound(target) / efficiency
//	           = measured x bound(target) / bound(source)
//
// A kernel with no term (no bytes, no FLOPs, or roofs missing on either
// side) is carried over at its measured time. A cell's projected GPU time
// is its source GPU time (the nsys timeline, else the sum of the ncu kernel
// pass, capped at the wall time) scaled by sum(projected) / sum(measured)
// over its ncu kernels; its host and launch overhead, source wall - source
// GPU time, is carried over unchanged; its projected wall time is projected
// GPU time + overhead.
type Projection struct {
	SourceRun string             `json:"source_run"`
	SourceGPU string             `json:"source_gpu"`
	TargetGPU string             `json:"target_gpu"`
	Cells     []CellProjection   `json:"cells"`
	Speedups  []ProjectedSpeedup `json:"speedups"`
	// AgainstRun names the run measured on the target GPU that Against
	// compared with ("" = none); Error sums up the per-cell errors.
	AgainstRun string           `json:"against_run,omitempty"`
	AgainstGPU string           `json:"against_gpu,omitempty"`
	Error      *ProjectionError `json:"error,omitempty"`
	Warnings   []Warning        `json:"warnings,omitempty"`
}

// KernelProjection is one ncu kernel of a cell, projected.
type KernelProjection struct {
	Name          string  `json:"name"`
	MeasuredNs    float64 `json:"measured_ns"`     // duration on the source GPU
	BoundSourceNs float64 `json:"bound_source_ns"` // roofline bound on the source GPU (0: no term)
	BoundTargetNs float64 `json:"bound_target_ns"` // roofline bound on the target GPU (0: no term)
	Efficiency    float64 `json:"efficiency"`      // bound_source / measured (0: no term)
	ProjectedNs   float64 `json:"projected_ns"`    // bound_target / efficiency, or measured where there is no term
	LimitSource   string  `json:"limit_source,omitempty"`
	LimitTarget   string  `json:"limit_target,omitempty"` // the roof that sets bound_target
	// NoTargetRoof lists the roofs of FLOP classes the kernel uses that the
	// source GPU has and the target lacks: left out of the bounds.
	NoTargetRoof []string `json:"no_target_roof,omitempty"`
}

// CellProjection is one (experiment, variant, shape) projected.
type CellProjection struct {
	Experiment      string             `json:"experiment"`
	Variant         string             `json:"variant"`
	Role            string             `json:"role"`
	Shape           string             `json:"shape"`
	SourceWallMs    float64            `json:"source_wall_ms"`             // measured median on the source GPU
	SourceGPUMs     float64            `json:"source_gpu_ms"`              // nsys timeline, else ncu kernel pass
	OverheadMs      float64            `json:"overhead_ms"`                // source wall - source GPU time, carried over
	KernelRatio     float64            `json:"kernel_ratio"`               // sum(projected) / sum(measured) over the ncu kernels
	ProjectedGPUMs  float64            `json:"projected_gpu_ms"`           // projection
	ProjectedWallMs float64            `json:"projected_wall_ms"`          // projection
	MeasuredWallMs  float64            `json:"measured_wall_ms,omitempty"` // measured median on the target (Against); 0 = not measured
	Error           *float64           `json:"error,omitempty"`            // projected / measured - 1
	Kernels         []KernelProjection `json:"kernels"`
}

// Key is the cell projected.
func (c CellProjection) Key() cellkey.Key {
	return cellkey.New(c.Experiment, c.Variant, c.Shape)
}

// ProjectedSpeedup is a candidate against its baseline at one shape:
// baseline wall / candidate wall on the source (measured), on the target
// (projected) and, with Against, on the target (measured; 0 = not).
type ProjectedSpeedup struct {
	Experiment string  `json:"experiment"`
	Shape      string  `json:"shape"`
	Baseline   string  `json:"baseline"`
	Candidate  string  `json:"candidate"`
	Source     float64 `json:"source"`
	Projected  float64 `json:"projected"`
	Measured   float64 `json:"measured,omitempty"`
}

// BaselineKey is the cell of the speedup's baseline.
func (s ProjectedSpeedup) BaselineKey() cellkey.Key {
	return cellkey.New(s.Experiment, s.Baseline, s.Shape)
}

// CandidateKey is the cell of the speedup's candidate.
func (s ProjectedSpeedup) CandidateKey() cellkey.Key {
	return cellkey.New(s.Experiment, s.Candidate, s.Shape)
}

// ProjectionError sums up projected / measured - 1 of the wall time over
// the cells projected and measured on the target.
type ProjectionError struct {
	N         int     `json:"n"`
	Median    float64 `json:"median"`     // median of the signed errors
	MedianAbs float64 `json:"median_abs"` // median of |error|
	Worst     float64 `json:"worst"`      // the signed error of largest magnitude
	WorstCell string  `json:"worst_cell"` // experiment/variant/shape
}

// bwTerms are the byte levels a bound takes: the KernelFact field and the
// ceiling name.
var bwTerms = []struct {
	ceiling string
	bytes   func(KernelFact) float64
}{
	{gpu.CeilDRAM, func(f KernelFact) float64 { return f.DRAMBytes }},
	{gpu.CeilL2, func(f KernelFact) float64 { return f.L2Bytes }},
}

// kernelBound returns the roofline bound (ns) of f on each of src and dst
// and the ceilings that set them, taking only the terms whose roof both
// state (with a positive value); noRoof lists the FLOP classes of f whose
// roof src states and dst does not (the target may lack the path).
func kernelBound(f KernelFact, src, dst gpu.Ceilings) (bs, bt float64, ls, lt string, noRoof []string) {
	any := gpu.Precedence{""}
	term := func(name string, amount float64) {
		if amount <= 0 {
			return
		}
		cs, ok1 := src.Best(name, any)
		ct, ok2 := dst.Best(name, any)
		if ok1 && !ok2 {
			noRoof = append(noRoof, name)
		}
		if !ok1 || !ok2 {
			return
		}
		if t := amount / cs.Value * 1e9; t > bs {
			bs, ls = t, name
		}
		if t := amount / ct.Value * 1e9; t > bt {
			bt, lt = t, name
		}
	}
	for _, b := range bwTerms {
		term(b.ceiling, b.bytes(f))
	}
	classes := make([]string, 0, len(f.FLOPs))
	for c := range f.FLOPs {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		term(gpu.CeilingFor(c), f.FLOPs[c])
	}
	return bs, bt, ls, lt, noRoof
}

// ProjectKernel projects one kernel from the roofs src onto dst.
func ProjectKernel(f KernelFact, src, dst gpu.Ceilings) KernelProjection {
	kp := KernelProjection{Name: f.ShortName, MeasuredNs: f.DurationNs, ProjectedNs: f.DurationNs}
	if kp.Name == "" {
		kp.Name = f.Name
	}
	bs, bt, ls, lt, noRoof := kernelBound(f, src, dst)
	kp.NoTargetRoof = noRoof
	if bs <= 0 || bt <= 0 || f.DurationNs <= 0 {
		return kp
	}
	kp.BoundSourceNs, kp.BoundTargetNs, kp.LimitSource, kp.LimitTarget = bs, bt, ls, lt
	kp.Efficiency = bs / f.DurationNs
	kp.ProjectedNs = bt / kp.Efficiency
	return kp
}

// Project projects every cell of run that has a wall time and ncu kernels
// from the roofs src (the run's GPU) onto dst (the target GPU). See
// Projection for the model.
func Project(run *Run, src, dst gpu.Ceilings) *Projection {
	p := &Projection{SourceGPU: run.GPU, TargetGPU: dst.GPU}
	if src.GPU != "" {
		p.SourceGPU = src.GPU
	}
	byCell := map[cellkey.Key][]KernelFact{}
	for _, k := range run.Kernels {
		key := k.Key()
		byCell[key] = append(byCell[key], k)
	}
	noTerm := 0
	noRoof := map[string]int{}
	for _, c := range run.Cells {
		ks := byCell[c.Key()]
		if c.Wall.Center <= 0 || len(ks) == 0 {
			continue
		}
		cp := CellProjection{Experiment: c.Experiment, Variant: c.Variant, Role: c.Role, Shape: c.Shape, SourceWallMs: c.Wall.Center}
		var meas, proj float64
		for _, k := range ks {
			kp := ProjectKernel(k, src, dst)
			if kp.Efficiency == 0 {
				noTerm++
			}
			for _, r := range kp.NoTargetRoof {
				noRoof[r]++
			}
			meas += kp.MeasuredNs
			proj += kp.ProjectedNs
			cp.Kernels = append(cp.Kernels, kp)
		}
		if meas <= 0 {
			continue
		}
		cp.KernelRatio = proj / meas
		gpuNs := c.GPUTimeNs
		if gpuNs <= 0 {
			gpuNs = meas
		}
		cp.SourceGPUMs = math.Min(gpuNs/1e6, cp.SourceWallMs)
		cp.OverheadMs = cp.SourceWallMs - cp.SourceGPUMs
		cp.ProjectedGPUMs = cp.SourceGPUMs * cp.KernelRatio
		cp.ProjectedWallMs = cp.ProjectedGPUMs + cp.OverheadMs
		p.Cells = append(p.Cells, cp)
	}
	if noTerm > 0 {
		p.Warnings = append(p.Warnings, Warning{Code: WarnMissing, Metric: "projection",
			Msg: plural(noTerm, "kernel") + " with no byte or FLOP count against a roof both GPUs state: carried over at the measured time"})
	}
	roofs := make([]string, 0, len(noRoof))
	for r := range noRoof {
		roofs = append(roofs, r)
	}
	sort.Strings(roofs)
	for _, r := range roofs {
		p.Warnings = append(p.Warnings, Warning{Code: WarnMissing, Metric: "projection",
			Msg: plural(noRoof[r], "kernel") + " with " + r + " FLOPs, a roof " + dst.GPU + " lacks: left out of their bounds (the target may not run them as they are)"})
	}
	idx := p.index()
	for _, cmp := range run.Comparisons {
		b, okb := idx[cmp.BaselineKey()]
		c, okc := idx[cmp.CandidateKey()]
		if !okb || !okc {
			continue
		}
		cb, cc := p.Cells[b], p.Cells[c]
		p.Speedups = append(p.Speedups, ProjectedSpeedup{Experiment: cmp.Experiment, Shape: cmp.Shape, Baseline: cmp.Baseline, Candidate: cmp.Candidate,
			Source: cb.SourceWallMs / cc.SourceWallMs, Projected: cb.ProjectedWallMs / cc.ProjectedWallMs})
	}
	return p
}

func (p *Projection) index() map[cellkey.Key]int {
	idx := map[cellkey.Key]int{}
	for i, c := range p.Cells {
		idx[c.Key()] = i
	}
	return idx
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Against compares the projection with a run measured on the target GPU
// (same experiments and shapes): each cell both hold gets MeasuredWallMs
// and Error, each speedup both runs can form gets Measured, and p.Error
// sums up the errors. name names the measured run.
func (p *Projection) Against(name string, measured *Run) {
	p.AgainstRun, p.AgainstGPU = name, measured.GPU
	wall := map[cellkey.Key]float64{}
	for _, c := range measured.Cells {
		if c.Wall.Center > 0 {
			wall[c.Key()] = c.Wall.Center
		}
	}
	var errs []float64
	e := &ProjectionError{}
	for i := range p.Cells {
		c := &p.Cells[i]
		m, ok := wall[c.Key()]
		if !ok {
			continue
		}
		c.MeasuredWallMs = m
		v := c.ProjectedWallMs/m - 1
		c.Error = &v
		errs = append(errs, v)
		if math.Abs(v) > math.Abs(e.Worst) || e.WorstCell == "" {
			e.Worst, e.WorstCell = v, c.Key().String()
		}
	}
	for i := range p.Speedups {
		s := &p.Speedups[i]
		b := wall[s.BaselineKey()]
		c := wall[s.CandidateKey()]
		if b > 0 && c > 0 {
			s.Measured = b / c
		}
	}
	if len(errs) == 0 {
		p.Error = nil
		p.Warnings = append(p.Warnings, Warning{Code: WarnMissing, Metric: "error",
			Msg: "run " + name + " has a wall time for no projected cell: no error to state"})
		return
	}
	e.N = len(errs)
	e.Median = median(errs)
	abs := make([]float64, len(errs))
	for i, v := range errs {
		abs[i] = math.Abs(v)
	}
	e.MedianAbs = median(abs)
	p.Error = e
}
