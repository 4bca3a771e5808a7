package verdict

import (
	"encoding/json"
	"fmt"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// Result is what Build gives: the verdict of every claim of every
// experiment at each of its shapes, the answer table derived from them,
// and per experiment the facts they were judged on.
type Result struct {
	Decisions []Decision
	// Answer is the table a report opens with: each claim judged on its
	// best implementation, derived from Decisions (answers).
	Answer      []Answer
	Experiments []Experiment // sorted by name
	// Warnings are the run-level warnings (the run's own and those of
	// loading the Result), each once; they are listed under the decisions.
	Warnings []analysis.Warning
}

// Experiment is what one experiment's verdicts were judged on: per shape
// the run has, a row per variant; the kernel quality table of its
// candidates and the best member of each fusion; the warnings of its cells
// and comparisons, each once.
type Experiment struct {
	Spec       *spec.Experiment
	Name       string
	InRun      bool // the run has cells of it
	Shapes     []ShapeTable
	Quality    []QualityRow
	FusionBest []FusionBestRow // per shape, the best member of each fusion by the quality table
	Warnings   []analysis.Warning
}

// Verdicts of a claim at a shape (METHOD.md "Claims and verdicts").
const (
	VerdictGo           = "GO"           // measured and its 95% interval clear the threshold
	VerdictNoGo         = "NO-GO"        // measured and its 95% interval miss it
	VerdictInconclusive = "INCONCLUSIVE" // the interval straddles it, or a warning voids the metric
	VerdictNotMeasured  = "NOT MEASURED" // the cell failed, was skipped or is absent
)

// Value is a measured value with its 95% interval (Lo = Hi = Center for
// counts and single-shot counters).
type Value struct {
	Center float64 `json:"center"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	N      int     `json:"n,omitempty"` // samples behind it (0: a single counter reading)
}

// Decision is the verdict on one claim at one shape.
type Decision struct {
	Experiment string   `json:"experiment"`
	Claim      string   `json:"claim"` // claim id
	Seed       string   `json:"seed"`
	Source     string   `json:"source,omitempty"` // the claim's own document (path or URL) instead of a seed
	Line       int      `json:"line"`
	Quote      string   `json:"quote"`
	Metric     string   `json:"metric"`
	Quantity   string   `json:"quantity,omitempty"` // what decides the metric, and why
	Candidate  string   `json:"candidate"`
	Baseline   string   `json:"baseline,omitempty"`
	Op         string   `json:"op"`
	Threshold  float64  `json:"threshold"`
	Shape      string   `json:"shape"`
	Theory     *float64 `json:"theory,omitempty"`   // the metric under the claims.yaml models
	Measured   *Value   `json:"measured,omitempty"` // nil: not measured
	Verdict    string   `json:"verdict"`
	Reason     string   `json:"reason"`
	Note       string   `json:"note,omitempty"`
	// VoidedBy are the warning codes that void the metric (an INCONCLUSIVE
	// that would otherwise be GO or NO-GO, or one the interval already
	// made INCONCLUSIVE); range-replays-cut where the replays the rule
	// asked for and the cells lack could turn the verdict. PassNotRun says
	// which cells lack the pass the metric is decided by, where that made
	// a GO or NO-GO INCONCLUSIVE.
	VoidedBy   []string `json:"voided_by,omitempty"`
	PassNotRun string   `json:"pass_not_run,omitempty"`
	// Launch is how a speedup's two cells were launched where it was
	// judged ("eager" | "graph": host-bound cells launched as a CUDA
	// graph); Timing how they were timed ("paired": alternating in one
	// process; "separate": each cell's own timing loop).
	Launch string `json:"launch,omitempty"`
	Timing string `json:"timing,omitempty"`
	// BoundFraction is the candidate's roofline floor under its model over
	// its measured device time (1: at the roof).
	BoundFraction *float64 `json:"bound_fraction,omitempty"`
	// LimitedBy is "implementation" when the candidate is measurably below
	// the best implementation of its fusion in the run, or its GEMMs are
	// below the baseline's library GEMMs by more than its epilogue's own
	// cost (Limit has the figures); MainLoops has the GEMM comparison and
	// Counterfactual the metric at best had they matched the library's (an
	// optimistic bound with its assumptions, never a verdict).
	// L2AlreadySaves is the share of the DRAM saving the models claim that
	// the unfused baseline already gets from L2 as measured (its model
	// bytes minus its range-pass bytes), where that share is 10% or more.
	L2AlreadySaves *float64            `json:"l2_already_saves,omitempty"`
	LimitedBy      string              `json:"limited_by,omitempty"`
	MainLoops      *analysis.MainLoops `json:"main_loops,omitempty"`
	Counterfactual *Counterfactual     `json:"counterfactual,omitempty"`
	// Limit is the figures of the implementation-limited rule wherever it
	// compared the candidate with the library GEMMs or with its fusion's
	// best member, limited or not.
	Limit *ImplementationLimit `json:"implementation_limit,omitempty"`
	// BestOf says how a best-of claim's candidate was picked.
	BestOf *BestOf `json:"best_of,omitempty"`

	// RangeReplays are, for a range-decided DRAM metric, the range replays
	// each of its cells rests on and why that many (candidate first).
	RangeReplays []ReplayBasis `json:"range_replays,omitempty"`

	// Warnings are facts about this decision's figures that do not void
	// it (e.g. dram-one-replay: DRAM bytes of one range replay, no spread).
	Warnings []analysis.Warning `json:"warnings,omitempty"`
}

// Cite is where a decision's claim comes from: "seed 001:155", or
// "path-or-URL:12" for a claim that cites its own document (source:).
func (d Decision) Cite() string {
	if d.Source != "" {
		if d.Line > 0 {
			return fmt.Sprintf("%s:%d", d.Source, d.Line)
		}
		return d.Source
	}
	return fmt.Sprintf("seed %s:%d", d.Seed, d.Line)
}

// ShapeTable is the per-variant table of one shape.
type ShapeTable struct {
	Shape string    `json:"shape"`
	Rows  []CellRow `json:"rows"`
}

// CellRow is one variant at one shape.
type CellRow struct {
	Variant            string   `json:"variant"`
	Role               string   `json:"role"`
	Status             string   `json:"status"`           // ok | failed | skipped | missing
	Reason             string   `json:"reason,omitempty"` // why not ok
	Kernels            int      `json:"kernels"`
	ElementwiseKernels int      `json:"elementwise_kernels"`
	KernelNames        []string `json:"kernel_names,omitempty"` // in launch order
	GPUTimeNs          float64  `json:"gpu_time_ns"`            // sum of kernel durations (nsys, else ncu)
	WallMs             *Value   `json:"wall_ms,omitempty"`
	// DeviceMs is the device time of the call (CUDA-graph replay in the
	// timing pass); HostRatio is wall over device time (DeviceTimeMs).
	DeviceMs  *Value   `json:"device_ms,omitempty"`
	HostRatio *float64 `json:"host_ratio,omitempty"`
	// LaunchMethod: how the cell's speedups are judged, "graph" (host-bound,
	// timed captured in a CUDA graph) or "eager" (cells with wall time);
	// LaunchError why no graph could be timed.
	LaunchMethod     string                  `json:"launch_method,omitempty"`
	LaunchError      string                  `json:"launch_error,omitempty"`
	RangeCoverage    *analysis.RangeCoverage `json:"range_coverage,omitempty"` // range over kernel pass
	BoundFraction    *float64                `json:"bound_fraction,omitempty"` // roofline floor of the model / device time
	TimingSMMHz      float64                 `json:"timing_sm_mhz,omitempty"`  // SM clock of the timed loop (median of its NVML readings)
	Speedup          *Value                  `json:"speedup,omitempty"`        // against the baseline
	P                *float64                `json:"p,omitempty"`              // Mann-Whitney U p-value of the speedup
	DRAMBytes        float64                 `json:"dram_bytes"`               // ncu range pass (0: not measured)
	DRAMBytesKernels float64                 `json:"dram_bytes_kernels"`
	TheoryDRAMBytes  float64                 `json:"theory_dram_bytes,omitempty"`
	ModelRatio       *float64                `json:"model_ratio,omitempty"`    // measured / theory DRAM bytes
	L2Bytes          float64                 `json:"l2_bytes"`                 // sum over the ncu kernel pass
	RangeL2Bytes     float64                 `json:"range_l2_bytes,omitempty"` // ncu range pass, where it covers the cell
	FLOPs            float64                 `json:"flops"`
	TheoryFLOPs      float64                 `json:"theory_flops,omitempty"`
	Class            string                  `json:"class,omitempty"`
	RelError         *float64                `json:"rel_error,omitempty"` // check pass, max relative error
	Warnings         []string                `json:"warnings,omitempty"`  // warning codes

	// RangeProcess is the ncu process that measured the range pass:
	// "per-experiment" (shared), "per-cell" (alone), "retried alone" or
	// "replayed alone" (analysis.RangeProcessWord); absent where the
	// manifest does not say.
	RangeProcess string `json:"range_process,omitempty"`

	// DRAMBytesReplays are the DRAM bytes of each range replay (n and spread
	// of DRAMBytes, their median); absent where no range pass measured it.
	DRAMBytesReplays []float64 `json:"dram_bytes_replays,omitempty"`
}

// MarshalJSON writes a cell that is not ok or partial (failed, skipped or
// missing) with each of its measured figures that is 0 as null: kernels,
// elementwise_kernels, gpu_time_ns, dram_bytes, dram_bytes_kernels,
// l2_bytes and flops. A 0 there would read as a measurement.
func (r CellRow) MarshalJSON() ([]byte, error) {
	type plain CellRow // without this method
	if r.Status == rundir.StatusOK || r.Status == cellPartial || r.Status == "" {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Kernels            *int     `json:"kernels"`
		ElementwiseKernels *int     `json:"elementwise_kernels"`
		GPUTimeNs          *float64 `json:"gpu_time_ns"`
		DRAMBytes          *float64 `json:"dram_bytes"`
		DRAMBytesKernels   *float64 `json:"dram_bytes_kernels"`
		L2Bytes            *float64 `json:"l2_bytes"`
		FLOPs              *float64 `json:"flops"`
	}{plain(r), nonZero(r.Kernels), nonZero(r.ElementwiseKernels), nonZero(r.GPUTimeNs), nonZero(r.DRAMBytes),
		nonZero(r.DRAMBytesKernels), nonZero(r.L2Bytes), nonZero(r.FLOPs)})
}

// nonZero is &v, or nil for 0.
func nonZero[T int | float64](v T) *T {
	if v == 0 {
		return nil
	}
	return &v
}
