// Package pipeline is the driver between analysis and the outputs: it opens
// a run directory (package ingest/rundir), reads its tables, ceilings.json
// (or the catalog's ceilings, package gpu), the experiments and claims the
// run is judged with (its own specs snapshot, else those built into
// rooftool, package spec), the check and timing JSON files, and runs
// package analysis over them, handing back one typed Result (Load,
// LoadWith). Every consumer of a run's facts (reports and its plots, the
// roofline command on a run directory, and the project and suggest
// commands) loads the run here, and a comparison of two runs opens their
// tables here (OpenTables), so that all of them state the same facts: the
// passes the run's manifest marks failed or skipped are masked in the
// analysis itself, before any fact is derived.
//
// OpenInput is the one opener of what a command's user named: a run
// directory or a committed run's name, a directory of ingested tables, or
// export files become a typed Input (its kind, the run or tables, and the
// GPU --gpu and --ceilings name, resolved once), and what is none of these
// is bad input naming the path and what was expected. Input.Facts
// analyses it for the roofline command, Input.Suggest finds the fusion
// chains of package suggest in it. Ingest writes an ingest's tables into
// the folder it names, and DefaultCostsRun picks the committed run whose
// pass seconds predict a plan.
//
// Place in the pipeline: ingest -> analysis -> pipeline -> roofline,
// reports -> cmd. Nothing above this package reads a run's files.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// Result is a run loaded and analysed: everything a report, a plot, a
// projection or a suggestion needs of it.
type Result struct {
	Name          string // run name, e.g. the run directory's base name
	Run           *analysis.Run
	Experiments   []*spec.Experiment
	ClaimsFrom    string // where Experiments' specs and claims came from
	Manifest      *rundir.Manifest
	Checks        []Check
	TimingDevices map[string][]string             // experiment -> devices named by its timing JSON
	TimingMethods map[string][]string             // experiment -> cuda-events / cuda-graph
	TimingClocks  map[string]map[string][]float64 // experiment -> "sm_mhz"/"mem_mhz" -> [min, max]
	CellSMClocks  map[cellkey.Key]float64         // cell -> SM MHz of its timed loop (median of its clock samples)
	// CellDeviceSMClocks: cell -> SM MHz of its device-time loop (median of
	// its device clock samples), for timing files that have them.
	CellDeviceSMClocks map[cellkey.Key]float64
	// Paired: the paired records' speedups (kernels/run.py pair), by
	// claim pair, shape and launch method.
	Paired   map[analysis.PairKey]*analysis.Paired
	GPUs     []ingest.GPU       // rows of the gpus table: the devices the run's exports name
	Warnings []analysis.Warning // run-level warnings of loading (manifest, claims, tables, ceilings)
}

// Options adjust Load for a caller that names the roofs itself (rooftool
// roofline's --gpu and --ceilings).
type Options struct {
	Mem memory.Allocator // allocates the tables while they are read (nil: the default allocator)
	// GPU names the catalog GPU whose roofs fill in what the tables do not
	// state, in place of the manifest's GPU ("": the manifest's).
	GPU string
	// Measured are measured ceilings in place of the run's ceilings.json
	// (nil: MeasuredCeilings of the run).
	Measured *gpu.Measured
}

// RunInputError says a directory cannot be read as a run: it holds no
// tables, or no cell of any experiment (a plain `rooftool ingest`
// directory), or its specs snapshot does not load.
type RunInputError struct {
	Run string // the run's name
	Msg string
}

func (e *RunInputError) Error() string { return fmt.Sprintf("run %s: %s", e.Run, e.Msg) }

// CheckTables checks that a run has every table, in tables/ or, for a
// directory written by `rooftool ingest -o DIR`, in the folder itself; a
// run without them is a *RunInputError.
func CheckTables(run *rundir.Run) error {
	dir := rundir.TablesDir
	if fi, err := fs.Stat(run.FS, dir); err != nil || !fi.IsDir() {
		dir = "."
	}
	var missing []string
	for _, n := range ingest.TableNames {
		_, errP := fs.Stat(run.FS, path.Join(dir, n+"."+ingest.FormatParquet))
		_, errA := fs.Stat(run.FS, path.Join(dir, n+"."+ingest.FormatArrow))
		if errors.Is(errP, fs.ErrNotExist) && errors.Is(errA, fs.ErrNotExist) {
			missing = append(missing, n)
		}
	}
	switch {
	case len(missing) == len(ingest.TableNames):
		return &RunInputError{Run: run.Name, Msg: fmt.Sprintf("no tables in %s (no %s.parquet or .arrow): not an ingested run (rooftool ingest writes them)", run.Path(dir), ingest.TableKernels)}
	case len(missing) > 0:
		return &RunInputError{Run: run.Name, Msg: fmt.Sprintf("tables in %s lack %s (.parquet or .arrow)", run.Path(dir), strings.Join(missing, ", "))}
	}
	return nil
}

// Tables are a run's tables with its name and manifest, for a consumer
// that reads their rows itself (reports' comparison of two runs). The rows
// of the passes the manifest marks failed or skipped are still in them:
// analysis.MaskOf(Manifest) names them, and analysis (Options.Manifest)
// leaves them out. Release frees the tables.
type Tables struct {
	Name     string
	Manifest *rundir.Manifest
	*ingest.Tables
}

// OpenTables reads a run's tables (CheckTables, then the tables), through
// mem (nil: the default allocator). A run without tables is a
// *RunInputError.
func OpenTables(ctx context.Context, run *rundir.Run, mem memory.Allocator) (*Tables, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if err := CheckTables(run); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := run.Tables(mem)
	if err != nil {
		return nil, err
	}
	return &Tables{Name: run.Name, Manifest: run.Manifest, Tables: t}, nil
}

// hasCells reports whether any kernel or timing row of t belongs to an
// experiment (rooftool's NVTX cell ranges or timing files).
func hasCells(t *ingest.Tables) bool {
	for _, k := range t.Kernels() {
		if k.Experiment != "" {
			return true
		}
	}
	for _, tm := range t.Timings() {
		if tm.Experiment != "" {
			return true
		}
	}
	return false
}

// Load reads a run (manifest.json, tables/, ceilings.json, raw/check/, the
// timing JSON files, and the specs and claims snapshot) and analyses it.
// The manifest goes into the analysis with the tables: no fact of a cell is
// derived from a pass the manifest marks failed or skipped (analysis
// Options.Manifest), so every consumer of the Result states the same facts
// of the run as masked. mem allocates the tables while they are read (nil: the default
// allocator); they are released before Load returns. A directory without
// tables, or one without a manifest whose tables hold no cell of any
// experiment, is a *RunInputError.
func Load(ctx context.Context, run *rundir.Run, mem memory.Allocator) (*Result, error) {
	return LoadWith(ctx, run, Options{Mem: mem})
}

// MeasuredCeilings reads a run's ceilings.json (rooftool ceilings); nil
// where the run has none.
func MeasuredCeilings(run *rundir.Run) (*gpu.Measured, error) {
	data, err := run.ReadFile(rundir.CeilingsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	measured, err := gpu.ParseMeasured(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", run.Path(rundir.CeilingsFile), err)
	}
	return measured, nil
}

// LoadWith is Load with the roofs opts names.
func LoadWith(ctx context.Context, run *rundir.Run, opts Options) (*Result, error) {
	res := &Result{Name: run.Name, Manifest: run.Manifest}
	opened, err := OpenTables(ctx, run, opts.Mem)
	if err != nil {
		return nil, err
	}
	defer opened.Release()
	tables := opened.Tables
	if run.Manifest == nil {
		res.Warnings = append(res.Warnings, analysis.Warning{Code: analysis.WarnMissing, Msg: "no manifest.json in " + run.Path("") + ": cell status, GPU clocks and versions unknown"})
	}
	if run.Manifest == nil && !hasCells(tables) {
		// A directory `rooftool ingest -o` wrote from an export made outside
		// rooftool profile: judging the built-in claims against it would list
		// every one NOT MEASURED.
		return nil, &RunInputError{Run: run.Name, Msg: "no rooftool cells: use stats or roofline for exports made outside rooftool profile " +
			"(no manifest.json, and no kernel or timing in its tables belongs to an experiment)"}
	}
	measured := opts.Measured
	if measured == nil {
		if measured, err = MeasuredCeilings(run); err != nil {
			return nil, err
		}
	}
	exps, claimsFrom, warns, err := experimentsOf(run)
	if err != nil {
		return nil, err
	}
	res.Experiments, res.ClaimsFrom = exps, claimsFrom
	res.Warnings = append(res.Warnings, warns...)
	if run.Manifest != nil && len(run.Manifest.TableDigests) > 0 {
		have, err := rundir.TableDigests(run.FS)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", run.Path(rundir.TablesDir), err)
		}
		if diff := rundir.DigestsDiffer(run.Manifest.TableDigests, have); len(diff) > 0 {
			res.Warnings = append(res.Warnings, analysis.Warning{Code: analysis.WarnTablesChanged, Metric: "tables",
				Msg: fmt.Sprintf("%s differ from what the run's ingest wrote (manifest table_digests): %s; the report is of these tables, not necessarily of the run's exports (rooftool profile --ingest-only -o %s rebuilds them)",
					run.Path(rundir.TablesDir), strings.Join(diff, ", "), run.Path(""))})
		}
	}
	gpuName := opts.GPU
	if run.Manifest != nil {
		if gpuName == "" {
			gpuName = run.Manifest.GPU.Name
		}
		if measured != nil && measured.UUID != "" && run.Manifest.GPU.UUID != "" && measured.UUID != run.Manifest.GPU.UUID {
			src := "ceilings.json"
			if opts.Measured != nil {
				src = "the measured ceilings"
			}
			res.Warnings = append(res.Warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "ceilings",
				Msg: fmt.Sprintf("%s was measured on GPU %s, the run ran on %s (same model: %s)", src, measured.UUID, run.Manifest.GPU.UUID, run.Manifest.GPU.Name)})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ceil := gpu.CeilingsFor(analysis.DeviceCeilings(tables), gpuName, measured)
	an, err := analysis.Analyze(tables, exps, analysis.Options{Ceilings: ceil, Manifest: run.Manifest})
	if err != nil {
		return nil, fmt.Errorf("analyse %s: %w", run.Name, err)
	}
	res.Run = an
	for _, g := range tables.GPUs() {
		// Rows outlive the tables, released before Load returns.
		g.Source, g.File, g.Name, g.Bus = strings.Clone(g.Source), strings.Clone(g.File), strings.Clone(g.Name), strings.Clone(g.Bus)
		res.GPUs = append(res.GPUs, g)
	}
	if res.Checks, err = ReadChecks(run); err != nil {
		return nil, err
	}
	// The devices, methods and clocks of the timing pass, and the clocks
	// of a cell's loops, are facts of the cells' timing passes.
	mask := analysis.MaskOf(run.Manifest)
	res.TimingDevices, res.TimingMethods = timingEnv(tables.Timings(), mask)
	res.TimingClocks = timingClocks(tables.Metas(), tables.Timings(), exps, mask)
	res.Paired = analysis.PairedSpeedups(tables, mask, analysis.DefaultStats().Confidence)
	if res.CellSMClocks, res.CellDeviceSMClocks, err = cellSMClocks(run, tables); err != nil {
		return nil, err
	}
	for _, clocks := range []map[cellkey.Key]float64{res.CellSMClocks, res.CellDeviceSMClocks} {
		for k := range clocks {
			if mask.Masked(k, rundir.PassTiming) {
				delete(clocks, k)
			}
		}
	}
	return res, nil
}
