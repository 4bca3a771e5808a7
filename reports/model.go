package reports

import (
	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/verdict"
)

// Report is everything report.md states; report.json is its JSON encoding
// (keys sorted, floats as Go formats them).
type Report struct {
	Version int     `json:"rooftool_report"` // format version, 5 (the answer table; voided_by and pass_not_run in decisions)
	Run     RunInfo `json:"run"`
	// Answer is the table the report opens with: each claim judged on its
	// best implementation, derived from Decisions (package verdict).
	Answer      []verdict.Answer   `json:"answer"`
	Decisions   []verdict.Decision `json:"decisions"`
	Experiments []ExperimentReport `json:"experiments"`
	Warnings    []analysis.Warning `json:"warnings,omitempty"` // run-level
	Time        *TimeReport        `json:"time,omitempty"`     // where the run's time went (manifest)
}

// RunInfo describes the run: where, on what, with which tools.
type RunInfo struct {
	Name         string              `json:"name"` // base name of the run directory
	Tool         string              `json:"tool,omitempty"`
	Version      string              `json:"version,omitempty"`
	Command      []string            `json:"command,omitempty"`
	Created      string              `json:"created,omitempty"` // RFC 3339, UTC
	Finished     string              `json:"finished,omitempty"`
	GitCommit    string              `json:"git_commit,omitempty"`
	GPURequested string              `json:"gpu_requested,omitempty"`
	GPU          rundir.GPUInfo      `json:"gpu"`
	Versions     map[string]string   `json:"versions,omitempty"`
	Options      map[string]string   `json:"options,omitempty"`
	Passes       []string            `json:"passes,omitempty"`
	Ceilings     gpu.Ceilings        `json:"ceilings"`
	Notes        []string            `json:"notes,omitempty"` // manifest warnings
	TimingClocks map[string]float64  `json:"timing_clocks,omitempty"`
	ClaimsFrom   string              `json:"claims_from,omitempty"` // which specs and claims the run is judged with
	Resumed      []rundir.Invocation `json:"resumed,omitempty"`     // later invocations that continued the run
	MergedFrom   []rundir.MergedPart `json:"merged_from,omitempty"` // the runs a merged run was made of
	// Incomplete says why the run is not whole (no finish time, a pass
	// that never ran for cells that ran others); absent for a whole run.
	Incomplete []string `json:"incomplete,omitempty"`
}

// ExperimentReport is one experiment's section of the report.
type ExperimentReport struct {
	Name       string                  `json:"name"`
	Title      string                  `json:"title"`
	Seeds      []string                `json:"seeds"`
	Baseline   string                  `json:"baseline"`
	InRun      bool                    `json:"in_run"` // the run has cells of it
	Env        Env                     `json:"environment"`
	Shapes     []verdict.ShapeTable    `json:"shapes"`
	Plots      []Plot                  `json:"plots,omitempty"`
	Crossovers []analysis.Crossover    `json:"crossovers,omitempty"`
	Quality    []verdict.QualityRow    `json:"kernel_quality,omitempty"`
	FusionBest []verdict.FusionBestRow `json:"fusion_best,omitempty"` // per shape, the best member of each fusion by the quality table
	Warnings   []analysis.Warning      `json:"warnings,omitempty"`
}

// Env is the environment an experiment's numbers were taken in.
type Env struct {
	GPU            string   `json:"gpu"`
	TimingDevices  []string `json:"timing_devices,omitempty"` // as the timing JSON names them
	TimingMethods  []string `json:"timing_methods,omitempty"` // cuda-events, cuda-graph
	SMClockMHz     float64  `json:"sm_clock_mhz,omitempty"`
	MemClockMHz    float64  `json:"mem_clock_mhz,omitempty"`
	MaxSMClockMHz  float64  `json:"max_sm_clock_mhz,omitempty"`
	MaxMemClockMHz float64  `json:"max_mem_clock_mhz,omitempty"`
	Versions       []string `json:"versions,omitempty"` // "torch 2.9.0", sorted
	// Clocks the timing pass read (NVML) after each cell's repetitions:
	// lowest and highest over the experiment's cells, MHz.
	TimingSMMHz []float64 `json:"timing_sm_mhz,omitempty"`
	// Launch lists the Triton launch paths the variants went through
	// ("plan", "triton-dispatch"); one entry means every variant was
	// launched the same way. Knobs lists every code-changing setting.
	Launch       []string  `json:"triton_launch,omitempty"`
	Knobs        []string  `json:"knobs,omitempty"`
	TimingMemMHz []float64 `json:"timing_mem_mhz,omitempty"`
}

// Plot is one chart written under plots/.
type Plot struct {
	Title string `json:"title"`
	Path  string `json:"path"` // relative to the report, e.g. "plots/swiglu-M-sweep.png"
}
