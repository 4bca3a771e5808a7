package analysis

// Analysis over a metric index built outside the tables: a caller that
// reads the metrics table batch by batch (ingest.ScanMetrics) adds each
// valid row to a MetricIndex and hands it here with the other tables, so
// that no step holds every metric row. The results are those of Analyze,
// DeviceCeilings and KernelFacts over tables holding the same metric rows.

import (
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// AnalyzeIndexed is Analyze with the metrics of x instead of t's metrics
// table (which it does not read).
func AnalyzeIndexed(t *ingest.Tables, x *MetricIndex, exps []*spec.Experiment, opts Options) (*Run, error) {
	return analyzeIndexed(t, x.byKernel, exps, opts)
}

// DeviceCeilingsIndexed is DeviceCeilings with the metrics of x.
func DeviceCeilingsIndexed(t *ingest.Tables, x *MetricIndex) gpu.Ceilings {
	return deviceCeilings(t, x.byKernel)
}

// KernelFactsIndexed is KernelFacts with the metrics of x.
func KernelFactsIndexed(t *ingest.Tables, x *MetricIndex, c gpu.Ceilings, opts Options) []KernelFact {
	return kernelFacts(t, x.byKernel, c, opts)
}
