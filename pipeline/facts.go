package pipeline

import (
	"context"
	"errors"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/spec"
)

// Indexed is an input's tables read for a scan of their metrics, batch by
// batch (analysis.ReadIndexed): the tables without the metrics, and the
// metric index of what analysis reads. Close releases them.
type Indexed struct {
	Tables  *ingest.Tables
	Metrics *analysis.MetricIndex
	Dir     string             // the folder of the tables read
	tmp     *ingest.TempTables // ingested exports, removed by Close
}

// ReadIndexed reads the input's tables as they are, or its exports once
// ingested into a temporary directory (detect.WriteTemp); the metrics
// table batchRows rows a batch (<= 0: the scan's default).
func (in *Input) ReadIndexed(batchRows int) (*Indexed, error) {
	if in.TablesDir != "" {
		x := &Indexed{Dir: in.TablesDir}
		var err error
		if x.Tables, x.Metrics, err = analysis.ReadIndexed(x.Dir, batchRows); err != nil {
			return nil, &ingest.InputError{File: in.Args[0], Err: err}
		}
		return x, nil
	}
	if in.Kind != KindExports {
		return nil, &ingest.InputError{File: in.Args[0], Err: errors.New("a committed run has no tables on disk to scan")}
	}
	var files []ingest.Input
	for _, p := range in.Args {
		files = append(files, ingest.Input{Path: p})
	}
	tmp, err := detect.WriteTemp(files, "rooftool-input-*")
	if err != nil {
		return nil, err
	}
	x := &Indexed{Dir: tmp.Dir, tmp: tmp}
	if x.Tables, x.Metrics, err = analysis.ReadIndexed(x.Dir, batchRows); err != nil {
		tmp.Remove()
		return nil, err
	}
	return x, nil
}

// Close releases the tables and removes the ingested exports.
func (x *Indexed) Close() {
	if x == nil {
		return
	}
	if x.Tables != nil {
		x.Tables.Release()
	}
	if x.tmp != nil {
		x.tmp.Remove()
	}
}

// Facts are an input analysed for drawing its rooflines: the analysed
// run, the experiments it was analysed with, its roofs and the devices its
// exports name. Close releases what they were read from.
type Facts struct {
	Input       *Input
	Run         *analysis.Run // a run's warnings of loading first
	Experiments []*spec.Experiment
	Ceilings    gpu.Ceilings
	GPUs        []ingest.GPU // rows of the gpus table
	// TablesDir is the folder of the tables analysed ("" not on disk).
	TablesDir string
	indexed   *Indexed
}

// Facts analyses the input for its rooflines. A run (KindRun) is loaded as
// a report loads it (Load): its specs snapshot, its ceilings.json, no fact
// from a pass its manifest marks failed or skipped. Tables and exports are
// analysed with the experiments built into rooftool, the metrics table
// scanned batchRows rows a batch (ReadIndexed), against the roofs the
// exports state with the input's GPU's (GPU.Roofs; the ceilings.json of a
// run directory without a manifest counts).
func (in *Input) Facts(ctx context.Context, batchRows int) (*Facts, error) {
	if in.Kind == KindRun {
		res, err := in.Load(ctx, nil)
		if err != nil {
			return nil, err
		}
		an := *res.Run
		an.Warnings = append(append([]analysis.Warning{}, res.Warnings...), res.Run.Warnings...)
		return &Facts{Input: in, Run: &an, Experiments: res.Experiments, Ceilings: res.Run.Ceilings, GPUs: res.GPUs, TablesDir: in.TablesDir}, nil
	}
	x, err := in.ReadIndexed(batchRows)
	if err != nil {
		return nil, err
	}
	f := &Facts{Input: in, GPUs: x.Tables.GPUs(), TablesDir: x.Dir, indexed: x}
	var measured *gpu.Measured
	if in.GPU.Measured == nil && in.runTables {
		if measured, err = MeasuredCeilings(in.Run); err != nil {
			x.Close()
			return nil, &BadInputError{err}
		}
	}
	if f.Experiments, err = spec.Load(); err != nil {
		x.Close()
		return nil, err
	}
	f.Ceilings = in.GPU.Roofs(analysis.DeviceCeilingsIndexed(x.Tables, x.Metrics), measured)
	if f.Run, err = analysis.AnalyzeIndexed(x.Tables, x.Metrics, f.Experiments, analysis.Options{Ceilings: f.Ceilings}); err != nil {
		x.Close()
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		x.Close()
		return nil, err
	}
	return f, nil
}

// MetricNames are the names in the metrics table of the tables analysed
// (nil where they are not on disk or cannot be read).
func (f *Facts) MetricNames() map[string]bool {
	if f.TablesDir == "" {
		return nil
	}
	names := map[string]bool{}
	err := ingest.ScanMetrics(f.TablesDir, []string{"metric"}, 0, func(b *ingest.MetricBatch) error {
		for _, n := range b.Name.Dict {
			names[n] = true
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return names
}

// Close releases the tables the facts were read from.
func (f *Facts) Close() { f.indexed.Close() }
