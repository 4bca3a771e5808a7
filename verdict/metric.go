package verdict

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/spec"
)

// Metrics a claim can test (spec.Claim.Metric). Each is one row of
// metricTable.
const (
	MetricSpeedup            = "speedup"                  // baseline wall time / candidate wall time, 95% CI
	MetricGPUSpeedup         = "gpu_speedup"              // baseline device time / candidate device time, 95% CI
	MetricTimeUs             = "time_us"                  // candidate median wall time, microseconds
	MetricDRAMRatio          = "dram_ratio"               // candidate / baseline DRAM bytes (range pass)
	MetricDRAMReduction      = "dram_reduction"           // 1 - dram_ratio
	MetricDRAMBytes          = "dram_bytes"               // candidate DRAM bytes (range pass)
	MetricElementwiseDRAM    = "elementwise_dram_ratio"   // elementwise DRAM traffic, candidate / baseline
	MetricKernelCount        = "kernel_count"             // candidate kernel launches per iteration
	MetricKernelReduction    = "kernel_reduction"         // baseline kernels - candidate kernels
	MetricElementwiseKernels = "elementwise_kernel_count" // candidate kernels with no tensor work
	MetricRelError           = "rel_error"                // candidate relative error against the baseline's output (check pass)
)

// Families group metrics by what can void them (voids).
const (
	metricFamilyTime    = "time"   // wall time of the timing pass
	metricFamilyDevice  = "device" // device time free of host overhead
	metricFamilyDRAM    = "dram"
	metricFamilyKernels = "kernels"
	metricFamilyError   = "error"
)

// ModelLo and ModelHi bound the measured over the model DRAM bytes a cell
// may have without a model-mismatch warning.
const ModelLo, ModelHi = 0.5, 2.0

// metricRow is everything the verdicts know about one claim metric.
type metricRow struct {
	name     string
	family   string // which warnings void it
	pass     string // the pass whose failure leaves it unmeasured
	baseline bool   // compares the candidate with a baseline
	// quantity names what decides the metric and why, for the report.
	quantity string
	format   func(float64) string
	// measure returns the measured value, or why there is none, and a note
	// on how it was measured and what else was measured beside it.
	measure func(x *index, e *spec.Experiment, cand, base, shape string) (v Value, missing, note string)
	// theory is the metric under the claims.yaml models (nil: none).
	theory func(x *index, e *spec.Experiment, cand, base, shape string) *float64
}

// metricTable is filled by init: its measure functions reach metricOf
// (through whyMissing), which a package-level initialiser cannot.
var metricTable []metricRow

func init() {
	metricTable = metricRows
	Metrics = make([]string, len(metricTable))
	for i, r := range metricTable {
		Metrics[i] = r.name
	}
}

var metricRows = []metricRow{
	{MetricSpeedup, metricFamilyTime, rundir.PassTiming, true,
		"wall time of one call, timing pass (CUDA events, inputs rotated past L2): what a caller waits for; device time shown beside",
		figure.Ratio, (*index).measureSpeedup, (*index).theorySpeedup},
	{MetricGPUSpeedup, metricFamilyDevice, rundir.PassTiming, true,
		"device time of one call free of host overhead (CUDA-graph replay in the timing pass, else the nsys kernel sum): the GPU work a profiler trace of the forward pass shows; wall time shown beside",
		figure.Ratio, (*index).measureGPUSpeedup, (*index).theorySpeedup},
	{MetricTimeUs, metricFamilyTime, rundir.PassTiming, false,
		"median wall time of one call, timing pass",
		func(v float64) string { return figure.SI(v/1e6, "s") }, (*index).measureTime, (*index).theoryTime},
	{MetricDRAMRatio, metricFamilyDRAM, rundir.PassRange, true,
		"DRAM (HBM) bytes of the whole cell, ncu range pass with L2 reuse between kernels: the traffic HBM serves; L2 bytes shown beside",
		figure.Ratio, (*index).measureDRAMRatio, (*index).theoryDRAMRatio},
	{MetricDRAMReduction, metricFamilyDRAM, rundir.PassRange, true,
		"1 - DRAM (HBM) byte ratio, ncu range pass of the whole cell; L2 bytes shown beside",
		figure.Pct, (*index).measureDRAMReduction, (*index).theoryDRAMRatio},
	{MetricDRAMBytes, metricFamilyDRAM, rundir.PassRange, false,
		"DRAM (HBM) bytes of the whole cell, ncu range pass",
		func(v float64) string { return figure.SI(v, "B") }, (*index).measureDRAMBytes, (*index).theoryDRAMBytes},
	{MetricElementwiseDRAM, metricFamilyDRAM, rundir.PassNCU, true,
		"DRAM bytes of the elementwise work per kernel, ncu kernel pass (GEMM traffic taken as unchanged)",
		figure.Ratio, (*index).elementwiseDRAM, (*index).theoryDRAMRatio},
	{MetricKernelCount, metricFamilyKernels, rundir.PassNsys, false,
		"kernel launches per call on the nsys timeline",
		count, (*index).measureKernelCount, (*index).theoryKernelCount},
	{MetricKernelReduction, metricFamilyKernels, rundir.PassNsys, true,
		"baseline minus candidate kernel launches per call, nsys timeline",
		count, (*index).measureKernelReduction, (*index).theoryKernelReduction},
	{MetricElementwiseKernels, metricFamilyKernels, rundir.PassNsys, false,
		"kernels without tensor work per call (ncu tensor counters, nsys timeline)",
		count, (*index).measureElementwiseKernels, nil},
	{MetricRelError, metricFamilyError, rundir.PassCheck, false,
		"norm-wise relative error against the baseline variant's output on the same inputs, as the seeds state it; error against the float32 reference shown beside",
		func(v float64) string { return fmt.Sprintf("%.2e", v) }, (*index).measureRelError, nil},
}

func count(v float64) string { return fmt.Sprintf("%.0f", v) }

// Metrics lists every metric a claim may name, in metricTable's order.
var Metrics []string

// metricOf returns the row of a claim metric.
func metricOf(name string) (metricRow, bool) {
	for _, r := range metricTable {
		if r.name == name {
			return r, true
		}
	}
	return metricRow{}, false
}

// warningFamilies is the family of each name a warning's Metric may carry
// besides the claim metrics (whose family is their metricTable row's); ""
// voids no claim metric. Every name analysis, suggest, project, pipeline,
// verdict and reports give a warning is here (a test reads their sources):
// a name missing would void nothing.
var warningFamilies = map[string]string{
	"wall_ms": metricFamilyTime, // timing samples: none, or too few
	// No nsys timeline: kernel count and GPU time come from the ncu
	// kernel pass, which serialises the kernels.
	"gpu_time_ns": metricFamilyKernels,
	"kernel":      metricFamilyKernels, // a kernel's ncu metrics are missing
	"error":       metricFamilyError,
	"theory":      "", // a claims.yaml model that cannot be evaluated
	"projection":  "",
	"pct_of_roof": "",
	"ceilings":    "",
	"claims":      "",
	"tables":      "",
}

// family groups a metric, or the metric a warning names ("wall_ms",
// "dram_bytes", ...), by what can void it: the claim metric's row, else
// warningFamilies; "" (voids nothing) for a name in neither.
func family(metric string) string {
	if r, ok := metricOf(metric); ok {
		return r.family
	}
	return warningFamilies[metric]
}

// passFor is the pass whose failure leaves a metric unmeasured.
func passFor(metric string) string {
	r, _ := metricOf(metric)
	return r.pass
}

func needsBaseline(metric string) bool {
	r, _ := metricOf(metric)
	return r.baseline
}

// FormatMetric formats a value of a claim metric in its natural unit, as
// the reasons quote it: "1.234x", "12.35 µs", "61.5%".
func FormatMetric(metric string, v float64) string {
	if r, ok := metricOf(metric); ok && r.format != nil {
		return r.format(v)
	}
	return figure.Num(v)
}

// FormatBound formats an end of a claim metric's interval as FormatMetric
// does, without a ratio's "x" ("[1.220, 1.280]"); an end too few samples
// leave unbounded is "+∞" or "-∞".
func FormatBound(metric string, b float64) string {
	if figure.Unbounded(b) {
		if b > 0 {
			return "+∞"
		}
		return "-∞"
	}
	s := FormatMetric(metric, b)
	return strings.TrimSuffix(s, "x")
}
