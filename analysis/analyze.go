package analysis

import (
	"fmt"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// Options tune Analyze. The zero value is usable.
type Options struct {
	// Ceilings are the roofs (gpu.CeilingsFor). Empty: the device's own
	// ncu peak_sustained ceilings (DeviceCeilings) where the export has them.
	Ceilings gpu.Ceilings
	// L2Bytes is the GPU's L2 size for the working-set warning; 0: from
	// Ceilings.L2Bytes, else the gpus table.
	L2Bytes int64
	// Alpha is the significance level of the Mann-Whitney test (0.05).
	Alpha float64
	// Confidence of the intervals (0.95).
	Confidence float64
	// LaunchBoundNs: kernels shorter than this are launch-bound (5000 ns).
	LaunchBoundNs float64
	// MinSamples: fewer timing samples than this warn (6).
	MinSamples int
	// BoundPct: a kernel with neither roof at this % or more is
	// latency-bound (60).
	BoundPct float64
	// Manifest is the run's manifest, where it has one: how ncu replayed
	// each cell's range pass (PassStatus.Method, each replay's in Replays),
	// which decides what of its coverage is judged (rundir.Coverage.Complete).
	// nil, or a cell it does not list: judged as range replay. It also
	// masks: no fact of a cell is derived from the rows of a pass the
	// manifest marks failed or skipped (PassMask).
	Manifest *rundir.Manifest
	// HostBoundFactor: wall time above this multiple of device time is
	// host-bound (DefaultHostBoundFactor).
	HostBoundFactor float64
	// BimodalGap and BimodalShare tune the two-groups test of timing samples.
	BimodalGap, BimodalShare float64
}

// Analyze derives every fact of a run from its ingested tables and the
// experiment specs (exps may be nil: cells are then taken from the tables
// and no comparison has a baseline role to go by).
func Analyze(t *ingest.Tables, exps []*spec.Experiment, opts Options) (*Run, error) {
	if t == nil {
		return nil, fmt.Errorf("analyze: no tables")
	}
	return analyzeIndexed(t, metricsByKernel(t), exps, opts)
}

func (o Options) withDefaults() Options {
	st := o.Stats() // the statistical thresholds, defaulted in one place
	o.Alpha, o.Confidence, o.MinSamples = st.Alpha, st.Confidence, st.MinSamples
	if o.LaunchBoundNs <= 0 {
		o.LaunchBoundNs = 5000
	}
	if o.BoundPct <= 0 {
		o.BoundPct = 60
	}
	if o.HostBoundFactor <= 0 {
		o.HostBoundFactor = DefaultHostBoundFactor
	}
	if o.BimodalGap <= 0 {
		o.BimodalGap = DefaultBimodalGap
	}
	if o.BimodalShare <= 0 {
		o.BimodalShare = DefaultBimodalShare
	}
	return o
}
