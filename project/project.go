package project

import (
	"fmt"
	"math"
	"sort"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
)

// Projection is a what-if: a run's cells as a per-kernel model projects
// them onto another GPU. Nothing in it was measured on the target GPU but
// the Measured* figures Against fills in.
//
// The model, kernel by kernel (ncu kernel pass; ModelText states it
// for readers): a kernel's measured time t is taken as the soft maximum
//
//	t = (dram^n + compute^n + other^n)^(1/n)
//
// of three terms: dram = its DRAM bytes at the bandwidth a streaming
// kernel attains on the source GPU; compute = its FLOPs of the class that
// takes longest at that class's datasheet roof scaled to the SM clock the
// kernel ran at; other = what the two leave unexplained (latency, issue,
// synchronisation: whatever no roof bounds). On the target, dram scales by
// the ratio of the DRAM bandwidths, compute by the ratio of the roofs and
// of the clocks, other by the ratio of the clocks and of the waves its grid
// takes; the terms combine the same way. A kernel whose largest term is
// other is latency-bound: it keeps its time but for the clock.
type Projection struct {
	SourceRun string             `json:"source_run"`
	SourceGPU string             `json:"source_gpu"`
	TargetGPU string             `json:"target_gpu"`
	Model     Model              `json:"model"`
	Cells     []CellProjection   `json:"cells"`
	Speedups  []ProjectedSpeedup `json:"speedups"`
	// AgainstRun names the run measured on the target GPU that Against
	// compared with ("" = none); Errors sum up the per-cell errors, one
	// entry per measure (ErrKernels, ErrGPU, ErrDevice, ErrWall).
	AgainstRun string            `json:"against_run,omitempty"`
	AgainstGPU string            `json:"against_gpu,omitempty"`
	Errors     []ProjectionError `json:"errors,omitempty"`
	// KernelErrors are the errors of single kernels, by the class the
	// model gave each (ClassAll: all of them), over the kernels the target
	// ran under the same name at the same place of the cell.
	KernelErrors []ProjectionError `json:"kernel_errors,omitempty"`
	// TargetClock compares the SM clocks of those kernels: target (ncu) /
	// source (ncu), beside the ratio the projection assumed.
	TargetClock *ClockCheck        `json:"target_clock,omitempty"`
	Warnings    []analysis.Warning `json:"warnings,omitempty"`
}

// ClockCheck is how the SM clocks of the kernels the target ran compare with
// the source's: the median, lowest and highest ratio target / source, and
// the ratio the projection assumed.
type ClockCheck struct {
	N       int     `json:"n"`
	Median  float64 `json:"median"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Assumed float64 `json:"assumed"`
}

// ClassAll names the summary over every matched kernel in KernelErrors.
const ClassAll = "all"

// Model holds the figures the projection assumed.
type Model struct {
	Exponent float64 `json:"exponent"` // n of the soft maximum
	// DRAMAttainable is the fraction of each GPU's datasheet DRAM bandwidth
	// a streaming kernel attains; DRAMAttainableFrom says where it came from.
	DRAMAttainable     float64 `json:"dram_attainable"`
	DRAMAttainableFrom string  `json:"dram_attainable_from"`
	SourceBoostMHz     float64 `json:"source_boost_mhz"` // catalog
	TargetBoostMHz     float64 `json:"target_boost_mhz"` // catalog
	// Clock states the clock assumed for each kernel on the target.
	Clock string `json:"clock"`
}

// Classes of a projected kernel: its largest term.
const (
	ProjBandwidth = "bandwidth-bound"
	ProjCompute   = "compute-bound"
	ProjLatency   = "latency-bound"
)

// KernelProjection is one ncu kernel of a cell, projected.
type KernelProjection struct {
	Name       string  `json:"name"`
	MeasuredNs float64 `json:"measured_ns"`            // duration on the source GPU
	SMClockMHz float64 `json:"sm_clock_mhz,omitempty"` // the SM clock it ran at (ncu), 0: unknown
	Class      string  `json:"class"`                  // bandwidth-bound, compute-bound or latency-bound: its largest term
	// The terms on the source GPU, ns: DRAM bytes at the attainable
	// bandwidth, FLOPs at the roof of ComputeRoof at the kernel's clock, and
	// the rest.
	DRAMNs      float64 `json:"dram_ns"`
	ComputeNs   float64 `json:"compute_ns"`
	ComputeRoof string  `json:"compute_roof,omitempty"`
	OtherNs     float64 `json:"other_ns"`
	// GridBlocks, BlocksPerSM and Waves are its launch on the source (0:
	// unknown); TargetWaves on the target. UnderOneWave: the grid does not
	// fill the source GPU once (fewer blocks than SMs x blocks per SM).
	GridBlocks   int64 `json:"grid_blocks,omitempty"`
	BlocksPerSM  int64 `json:"blocks_per_sm,omitempty"`
	Waves        int64 `json:"waves,omitempty"`
	TargetWaves  int64 `json:"target_waves,omitempty"`
	UnderOneWave bool  `json:"under_one_wave,omitempty"`
	// ProjectedNs is the projection at the assumed clock (Model.Clock);
	// ProjectedBoostNs with every kernel at the target's boost clock.
	ProjectedNs      float64 `json:"projected_ns"`
	ProjectedBoostNs float64 `json:"projected_boost_ns"`
	// NoTargetRoof lists the roofs of FLOP classes the kernel uses that the
	// source GPU has and the target lacks: left out of the terms.
	NoTargetRoof []string `json:"no_target_roof,omitempty"`
}

// CellProjection is one (experiment, variant, shape) projected. Times are
// ms; 0 is "not measured" (source) or "not projected".
type CellProjection struct {
	Experiment string `json:"experiment"`
	Variant    string `json:"variant"`
	Role       string `json:"role"`
	Shape      string `json:"shape"`
	// ClassShares: the share of the source kernel time in each class.
	ClassShares map[string]float64 `json:"class_shares"`
	// Kernel sums of the ncu kernel pass: measured on the source,
	// projected, and projected with every kernel at the target's boost clock.
	SourceKernelMs         float64 `json:"source_kernel_ms"`
	ProjectedKernelMs      float64 `json:"projected_kernel_ms"`
	ProjectedKernelBoostMs float64 `json:"projected_kernel_boost_ms"`
	// GPU time: the sum of the cell's kernels on the nsys timeline (0: the
	// cell has none), projected by the kernel sums' ratio.
	SourceGPUMs    float64 `json:"source_gpu_ms,omitempty"`
	ProjectedGPUMs float64 `json:"projected_gpu_ms,omitempty"`
	// Device time: the CUDA-graph replay of the call (timing pass; 0: not
	// measured), projected by the same ratio.
	SourceDeviceMs    float64 `json:"source_device_ms,omitempty"`
	ProjectedDeviceMs float64 `json:"projected_device_ms,omitempty"`
	// Wall time: the timing pass's median. A host-bound cell (wall above
	// DefaultHostBoundFactor x its device time) is not projected: its wall
	// is host overhead of the source machine (WallNote says so). Otherwise
	// projected wall = projected device time + the source's overhead.
	SourceWallMs    float64 `json:"source_wall_ms,omitempty"`
	OverheadMs      float64 `json:"overhead_ms,omitempty"`
	ProjectedWallMs float64 `json:"projected_wall_ms,omitempty"`
	WallNote        string  `json:"wall_note,omitempty"`

	// Measured on the target (Against): each figure with the error of the
	// projection (projected / measured - 1) and of the naive projection
	// (the source's figure / measured - 1).
	MeasuredKernelMs float64   `json:"measured_kernel_ms,omitempty"`
	KernelError      *float64  `json:"kernel_error,omitempty"`
	MeasuredGPUMs    float64   `json:"measured_gpu_ms,omitempty"`
	GPUError         *float64  `json:"gpu_error,omitempty"`
	MeasuredDeviceMs float64   `json:"measured_device_ms,omitempty"`
	DeviceError      *float64  `json:"device_error,omitempty"`
	MeasuredWallMs   float64   `json:"measured_wall_ms,omitempty"`
	WallError        *float64  `json:"wall_error,omitempty"`
	NaiveErrors      naiveErrs `json:"naive_errors,omitzero"`
	// TargetNote says what differs on the target beyond the model's reach
	// (it ran other kernels).
	TargetNote string `json:"target_note,omitempty"`

	Kernels []KernelProjection `json:"kernels"`
}

// Key is the cell projected.
func (c CellProjection) Key() cellkey.Key {
	return cellkey.New(c.Experiment, c.Variant, c.Shape)
}

type naiveErrs struct {
	Kernel *float64 `json:"kernel,omitempty"`
	GPU    *float64 `json:"gpu,omitempty"`
	Device *float64 `json:"device,omitempty"`
	Wall   *float64 `json:"wall,omitempty"`
}

// ProjectedSpeedup is a candidate against its baseline at one shape, on
// the ncu kernel sums: baseline / candidate on the source (measured), on
// the target (projected) and, with Against, on the target (measured; 0 =
// not).
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

// Measures an error is stated for.
const (
	ErrKernels = "kernel sum (ncu kernel pass)"
	ErrGPU     = "GPU time (nsys timeline)"
	ErrDevice  = "device time (CUDA-graph replay)"
	ErrWall    = "wall time"
)

// ProjectionError sums up projected / measured - 1 of one measure over the
// cells projected and measured on the target, beside the same figures for
// the naive projection (the source's time unchanged).
type ProjectionError struct {
	Measure   string  `json:"measure"`
	N         int     `json:"n"`
	Median    float64 `json:"median"`     // median of the signed errors
	MedianAbs float64 `json:"median_abs"` // median of |error|
	Worst     float64 `json:"worst"`      // the signed error of largest magnitude
	WorstCell string  `json:"worst_cell"` // experiment/variant/shape
	WorstNote string  `json:"worst_note,omitempty"`

	NaiveMedianAbs float64 `json:"naive_median_abs"`
	NaiveWorst     float64 `json:"naive_worst"`
	NaiveWorstCell string  `json:"naive_worst_cell"`
	// BoostMedianAbs is the median |error| of the projection with every
	// kernel at the target's boost clock: the clock assumption's weight.
	BoostMedianAbs float64 `json:"boost_median_abs"`
}

// Options tune Run; the zero value takes the defaults.
type Options struct {
	// Exponent is n of the soft maximum, finite and at least 1
	// (SoftMaxExponent otherwise).
	Exponent float64
	// DRAMAttainable overrides the attainable fraction of the datasheet
	// DRAM bandwidth (0: derived from the run, see dramAttainable).
	DRAMAttainable float64
}

// projector projects kernels from one catalog GPU onto another.
type projector struct {
	src, dst gpu.Spec
	n        float64
	attain   float64
}

func (m projector) clockRatio() float64 {
	if m.src.BoostMHz > 0 && m.dst.BoostMHz > 0 {
		return m.dst.BoostMHz / m.src.BoostMHz
	}
	return 1
}

// flopRoofs returns, of the FLOP class of f that takes longest, the roof
// name and its time (ns) on src at clock cs and on dst at clock cd, each
// roof scaled from its GPU's boost clock; noRoof lists the classes src
// has a roof for and dst lacks.
func (m projector) computeTerms(f analysis.KernelFact, cs, cd float64) (name string, ts, td float64, noRoof []string) {
	classes := make([]string, 0, len(f.FLOPs))
	for c := range f.FLOPs {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	scale := func(g gpu.Spec, clk float64) float64 {
		if g.BoostMHz > 0 && clk > 0 {
			return clk / g.BoostMHz
		}
		return 1
	}
	for _, c := range classes {
		v := f.FLOPs[c]
		roof := gpu.CeilingFor(c)
		ps, pd := m.src.Peak(roof), m.dst.Peak(roof)
		if v <= 0 || ps <= 0 {
			continue
		}
		if pd <= 0 {
			noRoof = append(noRoof, roof)
			continue
		}
		s := v / (ps * scale(m.src, cs)) * 1e9
		if s > ts {
			name, ts, td = roof, s, v/(pd*scale(m.dst, cd))*1e9
		}
	}
	return name, ts, td, noRoof
}

func (m projector) softmax(xs ...float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Pow(x, m.n)
	}
	return math.Pow(s, 1/m.n)
}

// kernel projects one kernel (see Projection).
func (m projector) kernel(f analysis.KernelFact) KernelProjection {
	kp := KernelProjection{Name: f.ShortName, MeasuredNs: f.DurationNs, ProjectedNs: f.DurationNs, ProjectedBoostNs: f.DurationNs,
		SMClockMHz: f.SMClockHz / 1e6, GridBlocks: f.Launch.GridBlocks, Class: ProjLatency}
	if kp.Name == "" {
		kp.Name = f.Name
	}
	kp.BlocksPerSM = analysis.BlocksPerSM(f.Launch, m.src.CC)
	kp.Waves = analysis.Waves(f.Launch, m.src.CC, m.src.SMs)
	kp.TargetWaves = analysis.Waves(f.Launch, m.dst.CC, m.dst.SMs)
	kp.UnderOneWave = kp.BlocksPerSM > 0 && kp.GridBlocks > 0 && kp.GridBlocks < kp.BlocksPerSM*int64(m.src.SMs)
	t := f.DurationNs
	if t <= 0 {
		return kp
	}
	// Clocks: the kernel's on the source (ncu), else the source's boost.
	cs := kp.SMClockMHz
	if cs <= 0 {
		cs = m.src.BoostMHz
	}
	cd, cb := cs*m.clockRatio(), m.dst.BoostMHz
	if cb <= 0 {
		cb = cd
	}
	var dS, dT float64
	if f.DRAMBytes > 0 && m.src.DRAMBW > 0 && m.dst.DRAMBW > 0 {
		dS = f.DRAMBytes / (m.attain * m.src.DRAMBW) * 1e9
		dT = f.DRAMBytes / (m.attain * m.dst.DRAMBW) * 1e9
	}
	roof, cS, cT, noRoof := m.computeTerms(f, cs, cd)
	_, _, cTB, _ := m.computeTerms(f, cs, cb)
	kp.NoTargetRoof = noRoof
	kp.DRAMNs, kp.ComputeNs, kp.ComputeRoof = dS, cS, roof
	var oS float64
	if r := math.Pow(t, m.n) - math.Pow(dS, m.n) - math.Pow(cS, m.n); r > 0 {
		oS = math.Pow(r, 1/m.n)
	}
	kp.OtherNs = oS
	switch {
	case oS >= dS && oS >= cS:
		kp.Class = ProjLatency
	case dS >= cS:
		kp.Class = ProjBandwidth
	default:
		kp.Class = ProjCompute
	}
	// The model's time on the source (t itself unless the terms exceed it)
	// calibrates the target's: the same share of t the terms leave.
	model := m.softmax(dS, cS, oS)
	if model <= 0 {
		return kp
	}
	waves := 1.0
	if kp.Waves > 0 && kp.TargetWaves > 0 {
		waves = float64(kp.TargetWaves) / float64(kp.Waves)
	}
	kp.ProjectedNs = t / model * m.softmax(dT, cT, oS*cs/cd*waves)
	kp.ProjectedBoostNs = t / model * m.softmax(dT, cTB, oS*cs/cb*waves)
	return kp
}

// dramAttainable is the fraction of src's datasheet DRAM bandwidth a
// streaming kernel attains, from the run itself: the larger of its
// measured DRAM ceiling (rooftool ceilings, ceilings.json) and the best
// DRAM rate any of its ncu kernels reached, at most 1. Below one half (no
// kernel of the run streams DRAM) the datasheet's bandwidth stands.
func dramAttainable(run *analysis.Run, src gpu.Spec) (float64, string) {
	if src.DRAMBW <= 0 {
		return 1, "the source's DRAM bandwidth is not in the catalog"
	}
	best, bestName := 0.0, ""
	for _, k := range run.Kernels {
		if k.DRAMBytes > 0 && k.DurationNs > 0 {
			if f := k.DRAMBytes / (k.DurationNs / 1e9) / src.DRAMBW; f > best {
				best, bestName = f, k.ShortName
			}
		}
	}
	from := ""
	if best > 0 {
		from = fmt.Sprintf("the best DRAM rate of the run's ncu kernels (%s: %.1f%% of the datasheet's %.2f TB/s)", bestName, 100*best, src.DRAMBW/1e12)
	}
	if c, ok := run.Ceilings.Best(gpu.CeilDRAM, gpu.Precedence{"measured:"}); ok {
		if f := c.Value / src.DRAMBW; f > best {
			best, from = f, fmt.Sprintf("the run's measured DRAM ceiling (%.2f TB/s, %.1f%% of the datasheet's %.2f TB/s)", c.Value/1e12, 100*f, src.DRAMBW/1e12)
		}
	}
	if best < 0.5 {
		return 1, "the datasheet bandwidth: no kernel of the run reached half of it"
	}
	if best > 1 {
		return 1, from + ", capped at the datasheet's"
	}
	return best, from
}

// Run projects every cell of run that has ncu kernels from GPU src
// (the run's) onto dst, both catalog entries. See Projection for the model.
func Run(run *analysis.Run, src, dst gpu.Spec, opt Options) *Projection {
	m := projector{src: src, dst: dst, n: opt.Exponent}
	if m.n < 1 || math.IsInf(m.n, 0) || math.IsNaN(m.n) {
		m.n = analysis.SoftMaxExponent
	}
	p := &Projection{SourceGPU: src.Name, TargetGPU: dst.Name}
	p.Model = Model{Exponent: m.n, SourceBoostMHz: src.BoostMHz, TargetBoostMHz: dst.BoostMHz}
	if opt.DRAMAttainable > 0 {
		m.attain, p.Model.DRAMAttainableFrom = opt.DRAMAttainable, "given"
	} else {
		m.attain, p.Model.DRAMAttainableFrom = dramAttainable(run, src)
	}
	p.Model.DRAMAttainable = m.attain
	if r := m.clockRatio(); src.BoostMHz > 0 && dst.BoostMHz > 0 {
		p.Model.Clock = fmt.Sprintf("each kernel at the SM clock it ran at on the source (ncu) x %.3f, the ratio of the catalog boost clocks (%.0f / %.0f MHz): the same share of its boost clock as on the source", r, dst.BoostMHz, src.BoostMHz)
	} else {
		p.Model.Clock = "each kernel at the SM clock it ran at on the source (ncu): a catalog boost clock is missing"
	}
	byCell := map[cellkey.Key][]analysis.KernelFact{}
	for _, k := range run.Kernels {
		byCell[k.Key()] = append(byCell[k.Key()], k)
	}
	noTerm := 0
	noRoof := map[string]int{}
	for _, c := range run.Cells {
		ks := byCell[c.Key()]
		if len(ks) == 0 {
			continue
		}
		cp := CellProjection{Experiment: c.Experiment, Variant: c.Variant, Role: c.Role, Shape: c.Shape, ClassShares: map[string]float64{}}
		var meas, proj, boost float64
		for _, k := range ks {
			kp := m.kernel(k)
			if kp.DRAMNs == 0 && kp.ComputeNs == 0 {
				noTerm++
			}
			for _, r := range kp.NoTargetRoof {
				noRoof[r]++
			}
			meas += kp.MeasuredNs
			proj += kp.ProjectedNs
			boost += kp.ProjectedBoostNs
			cp.ClassShares[kp.Class] += kp.MeasuredNs
			cp.Kernels = append(cp.Kernels, kp)
		}
		if meas <= 0 {
			continue
		}
		for cl := range cp.ClassShares {
			cp.ClassShares[cl] /= meas
		}
		ratio := proj / meas
		cp.SourceKernelMs, cp.ProjectedKernelMs, cp.ProjectedKernelBoostMs = meas/1e6, proj/1e6, boost/1e6
		if analysis.HasTimeline(c) {
			cp.SourceGPUMs = c.GPUTimeNs / 1e6
			cp.ProjectedGPUMs = cp.SourceGPUMs * ratio
		}
		if c.Device.N > 0 && c.Device.Center > 0 {
			cp.SourceDeviceMs = c.Device.Center
			cp.ProjectedDeviceMs = c.Device.Center * ratio
		}
		projectWall(&cp, c, ratio)
		p.Cells = append(p.Cells, cp)
	}
	if noTerm > 0 {
		p.Warnings = append(p.Warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "projection",
			Msg: plural(noTerm, "kernel") + " with no DRAM bytes or FLOPs against a roof both GPUs state: carried over as latency-bound (the clock's ratio only)"})
	}
	roofs := make([]string, 0, len(noRoof))
	for r := range noRoof {
		roofs = append(roofs, r)
	}
	sort.Strings(roofs)
	for _, r := range roofs {
		p.Warnings = append(p.Warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "projection",
			Msg: plural(noRoof[r], "kernel") + " with " + r + " FLOPs, a roof " + dst.Name + " lacks: left out of their terms (the target may not run them as they are)"})
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
			Source: cb.SourceKernelMs / cc.SourceKernelMs, Projected: cb.ProjectedKernelMs / cc.ProjectedKernelMs})
	}
	return p
}

// projectWall projects a cell's wall time, or says why not: the GPU-busy
// part of the call (device time: graph replay, else the nsys kernel sum)
// scales by ratio; the rest, host and launch overhead of the source
// machine, is carried over where it is under a third of the wall and not
// projected where it is more (a host-bound cell).
func projectWall(cp *CellProjection, c analysis.CellFact, ratio float64) {
	if c.Wall.N == 0 || c.Wall.Center <= 0 {
		return
	}
	cp.SourceWallMs = c.Wall.Center
	dev := cp.SourceDeviceMs
	if dev <= 0 {
		dev = cp.SourceGPUMs
	}
	if dev <= 0 {
		cp.WallNote = "no device time on the source (no graph replay, no nsys timeline): wall not projected"
		return
	}
	dev = math.Min(dev, cp.SourceWallMs)
	cp.OverheadMs = cp.SourceWallMs - dev
	if cp.SourceWallMs > analysis.DefaultHostBoundFactor*dev {
		cp.WallNote = fmt.Sprintf("host-bound on the source (wall %.1f us, %.2fx its device time %.1f us): its wall is the source machine's host overhead, not projected", 1e3*cp.SourceWallMs, cp.SourceWallMs/dev, 1e3*dev)
		return
	}
	cp.ProjectedWallMs = dev*ratio + cp.OverheadMs
}
