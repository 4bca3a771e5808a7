// Package analysis is the stage after ingest: from ingested tables (and the
// experiment specs) to the facts a report states — per-kernel FLOPs, bytes,
// arithmetic intensity and bound class; per-cell kernel counts, times and
// bytes; candidate-versus-baseline comparisons with significance; sweep
// crossovers. It draws nothing and writes nothing.
//
// It is the fact core: two packages sit beside it, after it, and read its
// facts — suggest (the fusion chains a run or an export offers, and what
// fusing them would save) and project (a run's kernels and cells projected
// onto another GPU) — and a third, stats (nsys's kernel summary and stats
// reports, from ingested kernels), sits beside them; it imports none of
// them. pipeline runs it; roofline, reports and cmd/rooftool read what it
// gives.
//
// This file is the contract with roofline and reports.
package analysis

import (
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// Warning codes. A warning is a fact about a measurement, never a failure.
const (
	WarnL2Resident    = "l2-resident"    // working set fits in L2: DRAM bytes undercount
	WarnLaunchBound   = "launch-bound"   // kernels shorter than ~5 us
	WarnFewSamples    = "few-samples"    // fewer than 6 timing samples
	WarnClocks        = "clocks-differ"  // ncu clocks vs timing clocks
	WarnMissing       = "missing-metric" // a metric the fact needs is absent
	WarnZeroOnLog     = "zero-on-log"    // values left off a log axis
	WarnModelMismatch = "model-mismatch" // measured bytes far from the theoretical model
	WarnTablesChanged = "tables-changed" // a run's tables differ from the digests its manifest recorded at ingest
)

// Warning travels beside results (benchmath style). Metric names what it
// voids ("" = informational), e.g. "dram_bytes", "speedup".
type Warning struct {
	Code   string `json:"code"`
	Metric string `json:"metric,omitempty"`
	Msg    string `json:"message"`
}

func (w Warning) Error() string { return w.Code + ": " + w.Msg }

// Interval is a point estimate with a 95% confidence interval.
type Interval struct {
	Center float64 `json:"center"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	N      int     `json:"n"` // samples behind it
}

// Bound classes.
const (
	ClassMemory  = "memory-bound"
	ClassCompute = "compute-bound"
	ClassLatency = "latency-bound"
	ClassUnknown = "unknown"
)

// KernelFact is what analysis derives for one kernel row of the ncu kernel pass.
type KernelFact struct {
	KernelID       int64              `json:"kernel_id"`
	Experiment     string             `json:"experiment"`
	Variant        string             `json:"variant"`
	Shape          string             `json:"shape"`
	Name           string             `json:"name"`
	ShortName      string             `json:"short_name"`
	DurationNs     float64            `json:"duration_ns"`
	SMCycles       float64            `json:"sm_cycles,omitempty"`   // sm__cycles_elapsed.avg: the duration at any clock
	SMClockHz      float64            `json:"sm_clock_hz,omitempty"` // the SM clock it ran at
	FLOPs          map[string]float64 `json:"flops"`                 // by class: tensor_bf16, tensor_fp16, tensor_fp8, tensor_tf32, fp32, fp16, fp64
	TotalFLOPs     float64            `json:"total_flops"`
	FLOPsKnown     bool               `json:"flops_known"` // the export has FLOP counters (tensor or SASS) for this kernel
	TensorFLOPs    float64            `json:"tensor_flops"`
	DRAMReadBytes  float64            `json:"dram_read_bytes"`
	DRAMWriteBytes float64            `json:"dram_write_bytes"`
	DRAMBytes      float64            `json:"dram_bytes"` // read + write, or dram__bytes.sum where the export has only that
	L2Bytes        float64            `json:"l2_bytes"`
	L1Bytes        float64            `json:"l1_bytes"`
	AI             map[string]float64 `json:"ai"`            // FLOP/byte per level: dram, l2, l1
	FLOPRate       float64            `json:"flop_rate"`     // FLOP/s
	ByteRate       map[string]float64 `json:"byte_rate"`     // byte/s per level
	PctOfRoof      map[string]float64 `json:"pct_of_roof"`   // % of each ceiling (by gpu.Ceiling.Name)
	SOL            map[string]float64 `json:"sol,omitempty"` // ncu's own SOL %: "dram", "compute", "l2", "l1"
	Class          string             `json:"class"`
	Elementwise    bool               `json:"elementwise"`      // no tensor work
	Limits         *Limits            `json:"limits,omitempty"` // what ncu says holds it back; nil: not collected
	Warnings       []Warning          `json:"warnings,omitempty"`

	// Launch is the kernel's launch configuration (grid, block, registers,
	// shared memory) as the ncu row gives it; zero fields are unknown.
	Launch Launch `json:"-"`
}

// Launch is a kernel's launch configuration.
type Launch struct {
	GridBlocks   int64 // blocks in the grid (x * y * z)
	BlockThreads int64 // threads per block (x * y * z)
	Registers    int64 // registers per thread
	SharedBytes  int64 // shared memory per block, static + dynamic
}

// Key is the kernel's cell.
func (k KernelFact) Key() cellkey.Key {
	return cellkey.New(k.Experiment, k.Variant, k.Shape)
}

// CellFact is what analysis derives for one (experiment, variant, shape).
type CellFact struct {
	Experiment         string         `json:"experiment"`
	Variant            string         `json:"variant"`
	Role               string         `json:"role"`
	Shape              string         `json:"shape"`
	Kernels            int            `json:"kernels"`             // launches per iteration (nsys, else ncu)
	ElementwiseKernels int            `json:"elementwise_kernels"` // kernels with no tensor work
	KernelNames        []string       `json:"kernel_names"`        // in launch order
	KernelTimesNs      []float64      `json:"kernel_times_ns"`     // duration of each of KernelNames (nsys, else ncu)
	KernelElementwise  []bool         `json:"kernel_elementwise"`  // whether each of KernelNames does no tensor work
	GPUTimeNs          float64        `json:"gpu_time_ns"`         // sum of kernel durations (nsys timeline)
	Wall               Interval       `json:"wall_ms"`             // timing pass: median and 95% CI, ms
	WallSamplesMs      []float64      `json:"-"`
	DRAMBytesRange     float64        `json:"dram_bytes_range"`              // ncu range pass, read+write (L2 reuse included): the median of DRAMBytesRangeReplays
	DRAMBytesKernels   float64        `json:"dram_bytes_kernels"`            // sum over ncu kernel pass
	L2Bytes            float64        `json:"l2_bytes"`                      // sum over ncu kernel pass
	KernelPassTimeNs   float64        `json:"kernel_pass_time_ns,omitempty"` // sum of gpu__time_duration over the ncu kernel pass
	RangeTimeNs        float64        `json:"range_time_ns,omitempty"`       // ncu range pass gpu__time_duration (replay overhead included)
	RangeL2Bytes       float64        `json:"range_l2_bytes,omitempty"`      // ncu range pass lts__t_bytes
	RangeCoverage      *RangeCoverage `json:"range_coverage,omitempty"`      // range over kernel pass (nil: one of them absent)
	RangePartial       bool           `json:"range_partial,omitempty"`       // the range covers less than the cell (WarnRangePartial)
	Device             Interval       `json:"device_ms"`                     // timing pass, CUDA-graph replay of the call: median and 95% CI, ms (N=0: not measured)
	DeviceSamplesMs    []float64      `json:"-"`
	HostRatio          float64        `json:"host_ratio,omitempty"` // wall / device time (DeviceTimeMs)
	// LaunchMethod is how the cell's speedups are judged: "graph" where it
	// is host-bound and its call was timed captured in a CUDA graph (a
	// model would launch it so), else "eager"; LaunchError says why no
	// graph could be timed (the capture's exception, timing JSON
	// device_error), where none was.
	LaunchMethod    string    `json:"launch_method,omitempty"`
	LaunchError     string    `json:"launch_error,omitempty"`
	FLOPs           float64   `json:"flops"`
	Class           string    `json:"class"` // class of the cell's heaviest kernel
	TheoryDRAMBytes float64   `json:"theory_dram_bytes,omitempty"`
	TheoryFLOPs     float64   `json:"theory_flops,omitempty"`
	Status          string    `json:"status"` // ok | failed | missing
	Warnings        []Warning `json:"warnings,omitempty"`

	// DRAMBytesRangeReplays are the DRAM bytes (read+write) of each replay
	// of the range pass, in replay order (one in runs that replayed once).
	DRAMBytesRangeReplays []float64 `json:"dram_bytes_range_replays,omitempty"`

	// RangeProcess is the ncu process that measured the range, as the
	// manifest records it (rundir.PassStatus.Process: "shared", "alone",
	// "retried-alone", "replayed-alone"); "" where it does not.
	RangeProcess string `json:"range_process,omitempty"`
	// RangeBelowFloor holds the figures of a range short of its DRAM floor
	// (WarnRangeBelowFloor); nil where it is not.
	RangeBelowFloor *rundir.DRAMFloor `json:"range_below_floor,omitempty"`
}

// Key is the cell the facts are of.
func (c CellFact) Key() cellkey.Key {
	return cellkey.New(c.Experiment, c.Variant, c.Shape)
}

// Comparison is a candidate against the baseline at one shape.
type Comparison struct {
	Experiment    string    `json:"experiment"`
	Shape         string    `json:"shape"`
	Baseline      string    `json:"baseline"`
	Candidate     string    `json:"candidate"`
	Speedup       Interval  `json:"speedup"`        // baseline time / candidate time, 95% CI
	P             float64   `json:"p"`              // Mann-Whitney U p-value
	Significant   bool      `json:"significant"`    // P < alpha (0.05)
	DRAMRatio     float64   `json:"dram_ratio"`     // candidate / baseline DRAM bytes (range pass)
	DRAMReduction float64   `json:"dram_reduction"` // 1 - DRAMRatio
	KernelDelta   int       `json:"kernel_delta"`   // candidate kernels - baseline kernels
	Warnings      []Warning `json:"warnings,omitempty"`
}

// BaselineKey is the cell of the comparison's baseline.
func (c Comparison) BaselineKey() cellkey.Key {
	return cellkey.New(c.Experiment, c.Baseline, c.Shape)
}

// CandidateKey is the cell of the comparison's candidate.
func (c Comparison) CandidateKey() cellkey.Key {
	return cellkey.New(c.Experiment, c.Candidate, c.Shape)
}

// Crossover names where, along a sweep, a candidate stops (or starts) winning.
type Crossover struct {
	Experiment string `json:"experiment"`
	Sweep      string `json:"sweep"`
	Var        string `json:"var"`
	Candidate  string `json:"candidate"`
	Baseline   string `json:"baseline"`
	Text       string `json:"text"` // e.g. "dual-acc wins for M <= 1024"
	// Unreliable says which sweep points rest on host-bound or bimodal
	// wall times: the crossover is flagged, not announced ("" = none).
	Unreliable string `json:"unreliable,omitempty"`
}

// Run is everything analysis knows about one run.
type Run struct {
	GPU         string       `json:"gpu"`
	Ceilings    gpu.Ceilings `json:"ceilings"`
	Kernels     []KernelFact `json:"kernels"`
	Cells       []CellFact   `json:"cells"`
	Comparisons []Comparison `json:"comparisons"`
	Crossovers  []Crossover  `json:"crossovers"`
	Warnings    []Warning    `json:"warnings,omitempty"`
}
