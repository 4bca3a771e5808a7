package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
	"github.com/rooftool/rooftool/roofline"
)

// WarnPlotFailed is the code of a warning for a plot that could not be
// drawn: the report is still written, and says so.
const WarnPlotFailed = "plot-failed"

func writeRunMem(ctx context.Context, run *rundir.Run, outDir string, formats []string, mem memory.Allocator) error {
	formats, err := ParseFormats(formats)
	if err != nil {
		return err
	}
	if outDir == "" {
		outDir = run.Dir
	}
	if outDir == "" {
		return fmt.Errorf("run %s is not on disk: name an output directory", run.Name)
	}
	in, tables, err := LoadRun(ctx, run, mem)
	if err != nil {
		return err
	}
	defer tables.Release()
	if err := ctx.Err(); err != nil {
		return err
	}
	plotDir := filepath.Join(outDir, "plots")
	in.Plots, in.Warnings = writePlots(ctx, plotDir, MaskRun(in.Run, in.Manifest), in.Experiments, in.Warnings)
	rep := Build(*in)
	return writeFormats(outDir, rep, formats)
}

// writeFormats writes report.<format> for each format, atomically.
func writeFormats(outDir string, rep *Report, formats []string) error {
	for _, f := range formats {
		var buf bytes.Buffer
		var err error
		switch f {
		case FormatMarkdown:
			err = WriteMarkdown(&buf, rep)
		case FormatJSON:
			err = WriteJSON(&buf, rep)
		case FormatHTML:
			err = WriteHTML(&buf, rep, os.DirFS(outDir))
		}
		if err != nil {
			return err
		}
		p := filepath.Join(outDir, "report."+f)
		if err := rundir.WriteFileAtomic(p, buf.Bytes()); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// RunInputError says a directory cannot be reported on: it holds no tables,
// or no cell of any experiment (a plain `rooftool ingest` directory).
type RunInputError struct {
	Run string // the run's name
	Msg string
}

func (e *RunInputError) Error() string { return fmt.Sprintf("run %s: %s", e.Run, e.Msg) }

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

// LoadRun reads a run (manifest.json, tables/, ceilings.json, raw/check/,
// the timing JSON files, and the specs and claims snapshot) and analyses
// it: everything Build needs but the plots. The caller releases the tables.
// A directory without tables, or one without a manifest whose tables hold
// no cell of any experiment, is a *RunInputError.
func LoadRun(ctx context.Context, run *rundir.Run, mem memory.Allocator) (*Input, *ingest.Tables, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	in := &Input{Name: run.Name, Manifest: run.Manifest}
	if err := hasTables(run); err != nil {
		var de *DiffInputError
		if errors.As(err, &de) {
			return nil, nil, &RunInputError{Run: de.Run, Msg: de.Msg}
		}
		return nil, nil, err
	}
	if run.Manifest == nil {
		in.Warnings = append(in.Warnings, analysis.Warning{Code: analysis.WarnMissing, Msg: "no manifest.json in " + run.Path("") + ": cell status, GPU clocks and versions unknown"})
	}
	tables, err := run.Tables(mem)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*Input, *ingest.Tables, error) {
		tables.Release()
		return nil, nil, err
	}
	if run.Manifest == nil && !hasCells(tables) {
		// A directory `rooftool ingest -o` wrote from an export made outside
		// rooftool profile: judging the built-in claims against it would list
		// every one NOT MEASURED.
		return fail(&RunInputError{Run: run.Name, Msg: "no rooftool cells: use stats or roofline for exports made outside rooftool profile " +
			"(no manifest.json, and no kernel or timing in its tables belongs to an experiment)"})
	}
	var measured *gpu.Measured
	if data, err := run.ReadFile(rundir.CeilingsFile); err == nil {
		if measured, err = gpu.ParseMeasured(data); err != nil {
			return fail(fmt.Errorf("%s: %w", run.Path(rundir.CeilingsFile), err))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}
	exps, claimsFrom, warns, err := experimentsOf(run)
	if err != nil {
		return fail(err)
	}
	in.Experiments, in.ClaimsFrom = exps, claimsFrom
	in.Warnings = append(in.Warnings, warns...)
	if run.Manifest != nil && len(run.Manifest.TableDigests) > 0 {
		have, err := rundir.TableDigests(run.FS)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", run.Path(rundir.TablesDir), err))
		}
		if diff := rundir.DigestsDiffer(run.Manifest.TableDigests, have); len(diff) > 0 {
			in.Warnings = append(in.Warnings, analysis.Warning{Code: analysis.WarnTablesChanged, Metric: "tables",
				Msg: fmt.Sprintf("%s differ from what the run's ingest wrote (manifest table_digests): %s; the report is of these tables, not necessarily of the run's exports (rooftool profile --ingest-only -o %s rebuilds them)",
					run.Path(rundir.TablesDir), strings.Join(diff, ", "), run.Path(""))})
		}
	}
	gpuName := ""
	if run.Manifest != nil {
		gpuName = run.Manifest.GPU.Name
		if measured != nil && measured.UUID != "" && run.Manifest.GPU.UUID != "" && measured.UUID != run.Manifest.GPU.UUID {
			in.Warnings = append(in.Warnings, analysis.Warning{Code: analysis.WarnMissing, Metric: "ceilings",
				Msg: fmt.Sprintf("ceilings.json was measured on GPU %s, the run ran on %s (same model: %s)", measured.UUID, run.Manifest.GPU.UUID, gpuName)})
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	ceil := gpu.CeilingsFor(analysis.DeviceCeilings(tables), gpuName, measured)
	an, err := analysis.Analyze(tables, exps, analysis.Options{Ceilings: ceil})
	if err != nil {
		return fail(fmt.Errorf("analyse %s: %w", run.Name, err))
	}
	in.Run = an
	if in.Checks, err = ReadChecks(run); err != nil {
		return fail(err)
	}
	in.TimingDevices, in.TimingMethods = timingEnv(tables.Timings())
	in.TimingClocks = timingClocks(tables.Metas(), tables.Timings(), exps)
	if in.CellSMClocks, in.CellDeviceSMClocks, err = cellSMClocks(run, tables); err != nil {
		return fail(err)
	}
	return in, tables, nil
}

// experimentsOf loads the experiments a run is judged with: its own
// snapshot of the specs and claims (specs/) where it has one, else the
// ones built into rooftool, and says which; for a snapshot, the warnings
// of missingClaims.
func experimentsOf(run *rundir.Run) ([]*kernels.Experiment, string, []analysis.Warning, error) {
	if fsys, ok := run.Specs(); ok {
		exps, err := kernels.LoadFS(fsys)
		if err != nil { // a snapshot that does not parse or validate is bad input (exit 2)
			return nil, "", nil, &RunInputError{Run: run.Name, Msg: fmt.Sprintf("%s: %v", run.Path(rundir.SpecsDir), err)}
		}
		var warns []analysis.Warning
		if builtin, err := kernels.Load(); err == nil {
			fillEpilogues(exps, builtin)
			warns = missingClaims(exps, builtin, run)
		}
		return exps, "the run's own snapshot (" + rundir.SpecsDir + "/)", warns, nil
	}
	exps, err := kernels.Load()
	return exps, "the claims built into this rooftool (the run keeps no snapshot of its own)", nil, err
}

// missingClaims warns, for each experiment of a run's specs snapshot that
// has no claims.yaml, where rooftool's built-in experiment of that name has
// claims: those claims are not judged (a run of a --cmd program without
// --claims has no built-in experiment of its name, and no warning).
func missingClaims(exps, builtin []*kernels.Experiment, run *rundir.Run) []analysis.Warning {
	byName := map[string]*kernels.Experiment{}
	for _, e := range builtin {
		byName[e.Name] = e
	}
	var out []analysis.Warning
	for _, e := range exps {
		if b := byName[e.Name]; b != nil && len(e.Claims) == 0 && len(b.Claims) > 0 {
			out = append(out, analysis.Warning{Code: analysis.WarnMissing, Metric: "claims",
				Msg: fmt.Sprintf("%s has no claims.yaml: the %d claims rooftool has for %s are not judged",
					run.Path(rundir.SpecsPath(e.Name, "")), len(b.Claims), e.Name)})
		}
	}
	return out
}

// fillEpilogues gives the variants of a run's snapshot that state no
// epilogue operands (snapshots taken before claims.yaml had epilogue_bytes)
// those of the same experiment and variant built into rooftool, marked as
// such in Epilogue: a model of what the fused kernel must move, not a
// measurement, used only by the implementation-limited counterfactual.
func fillEpilogues(exps, builtin []*kernels.Experiment) {
	for _, e := range exps {
		for _, b := range builtin {
			if b.Name != e.Name {
				continue
			}
			for v, th := range e.Theory {
				if bt, ok := b.Theory[v]; ok && th.EpilogueBytes == "" && bt.EpilogueBytes != "" {
					th.EpilogueBytes, th.Epilogue = bt.EpilogueBytes, bt.Epilogue+"; from the claims built into rooftool, the run's snapshot states none"
					e.Theory[v] = th
				}
			}
		}
	}
}

// timingEnv lists per experiment the devices and methods of its timing pass.
func timingEnv(ts []ingest.Timing) (devices, methods map[string][]string) {
	dev := map[string]map[string]bool{}
	met := map[string]map[string]bool{}
	for _, t := range ts {
		if dev[t.Experiment] == nil {
			dev[t.Experiment], met[t.Experiment] = map[string]bool{}, map[string]bool{}
		}
		if t.Device != "" {
			dev[t.Experiment][t.Device] = true
		}
		if t.Method != "" {
			met[t.Experiment][t.Method] = true
		}
	}
	flat := func(m map[string]map[string]bool) map[string][]string {
		out := map[string][]string{}
		for k, set := range m {
			var l []string
			for s := range set {
				l = append(l, s)
			}
			sort.Strings(l)
			if len(l) > 0 {
				out[k] = l
			}
		}
		return out
	}
	return flat(dev), flat(met)
}

// timingClocks gathers the clocks the timing JSON files recorded (meta
// rows clock.sm_mhz, clock.mem_mhz of source timing), per experiment: a
// timing file is named after its shape, and shapes tell experiments apart.
func timingClocks(metas []ingest.Meta, timings []ingest.Timing, exps []*kernels.Experiment) map[string]map[string][]float64 {
	// Timing meta rows name their file experiment/variant/<shape>.json. Tables
	// ingested before that held the base name (<shape>.json) alone: such a
	// file is attributed to the experiment of the run that owns that shape;
	// only experiments with timings in this run count, and a shape two of them
	// share (swiglu and swiglu_fp8) is left out rather than misattributed.
	inRun := map[string]bool{}
	for _, t := range timings {
		inRun[t.Experiment] = true
	}
	owner := map[string]string{}
	for _, e := range exps {
		if !inRun[e.Name] {
			continue
		}
		for _, s := range e.AllShapes() {
			if o, ok := owner[s+".json"]; ok && o != e.Name {
				owner[s+".json"] = "" // two experiments of the run: attribute to neither
				continue
			}
			owner[s+".json"] = e.Name
		}
	}
	out := map[string]map[string][]float64{}
	for _, m := range metas {
		if m.Source != ingest.SourceTiming || !strings.HasPrefix(m.Key, "clock.") {
			continue
		}
		exp, ok := owner[m.File]
		if i := strings.Index(m.File, "/"); i > 0 {
			exp, ok = m.File[:i], true // experiment/variant/<shape>.json
		}
		if !ok || exp == "" {
			continue
		}
		v, err := strconv.ParseFloat(m.Value, 64)
		if err != nil || v <= 0 {
			continue
		}
		k := strings.TrimPrefix(m.Key, "clock.")
		if out[exp] == nil {
			out[exp] = map[string][]float64{}
		}
		r := out[exp][k]
		switch {
		case r == nil:
			out[exp][k] = []float64{v, v}
		case v < r[0]:
			r[0] = v
		case v > r[1]:
			r[1] = v
		}
	}
	return out
}

// cellSMClocks gives the SM clock each cell's timed loop ran at (the median
// of its clock samples, else the reading after the loop) and, where the
// timing file has device_clock_samples, the clock of its device-time loop,
// from the run's tables (analysis.LoopSMClocks, TimingDeviceSMClocks).
// Tables ingested before the timing meta rows named their cell (File
// "<shape>.json" alone: the committed 2026-11-22 runs 003504, 022317 and
// 004838) cannot tell the variants of a shape apart; for those the clocks
// are read from the timing JSON the tables were ingested from
// (raw/timing/<exp>/<variant>/<shape>.json), the only place the raw timing
// files are read for them. A run without clocks gives none.
func cellSMClocks(run *rundir.Run, tables *ingest.Tables) (wall, device map[rundir.Key]float64, err error) {
	if out, perCell := analysis.LoopSMClocks(tables); perCell {
		return out, analysis.TimingDeviceSMClocks(tables), nil
	}
	return timingJSONClocks(run)
}

// timingJSONClocks reads the SM clocks of every timing JSON of a run, keyed
// by the cell the file names: the median of clock_samples (else
// clocks.sm_mhz) and of device_clock_samples.
func timingJSONClocks(run *rundir.Run) (wall, device map[rundir.Key]float64, err error) {
	wall, device = map[rundir.Key]float64{}, map[rundir.Key]float64{}
	err = run.WalkJSON(rundir.TimingDir, ".json", func(rel string, data []byte) error {
		if strings.HasSuffix(rel, ".check.json") || strings.HasSuffix(rel, ".time-error.json") {
			return nil
		}
		var tf ingest.TimingFile
		if err := json.Unmarshal(data, &tf); err != nil {
			return err
		}
		if tf.Experiment == "" || tf.Variant == "" || tf.Shape == "" {
			return nil
		}
		k := key(tf.Experiment, tf.Variant, tf.Shape)
		if v := sampleMedian(tf.ClockSamples); v > 0 {
			wall[k] = v
		} else if v := tf.Clocks["sm_mhz"]; v > 0 {
			wall[k] = v
		}
		if v := sampleMedian(tf.DeviceClockSamples); v > 0 {
			device[k] = v
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read timing clocks: %w", err)
	}
	return wall, device, nil
}

// sampleMedian is the median SM clock of clock samples, MHz (0: none).
func sampleMedian(cs []ingest.ClockSample) float64 {
	var v []float64
	for _, c := range cs {
		if c.SMMHz > 0 {
			v = append(v, c.SMMHz)
		}
	}
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// ReadChecks reads every raw/check/**/*.check.json of a run (kernels/README.md,
// mode check). A run without checks gives none.
func ReadChecks(run *rundir.Run) ([]Check, error) {
	var out []Check
	err := run.WalkJSON(rundir.CheckDir, ".check.json", func(rel string, data []byte) error {
		var c Check
		if err := json.Unmarshal(data, &c); err != nil {
			return err
		}
		if c.Experiment == "" || c.Variant == "" || c.Shape == "" {
			// Fall back to the path: raw/check/<exp>/<variant>/<shape>.check.json.
			if k, err := rundir.ParseKey(strings.TrimSuffix(rel, ".check.json")); err == nil {
				c.Experiment = or(c.Experiment, k.Experiment)
				c.Variant = or(c.Variant, k.Variant)
				c.Shape = or(c.Shape, k.Shape)
			}
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read checks: %w", err)
	}
	sort.Slice(out, func(i, j int) bool {
		// "exp/variant/shape" string order
		return key(out[i].Experiment, out[i].Variant, out[i].Shape).String() < key(out[j].Experiment, out[j].Variant, out[j].Shape).String()
	})
	return out, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// writePlots draws the charts roofline.Plan calls for into dir. A plot
// that fails becomes a warning in the report, never a failure of the report.
func writePlots(ctx context.Context, dir string, run *analysis.Run, exps []*kernels.Experiment, ws []analysis.Warning) (map[string][]Plot, []analysis.Warning) {
	plots := map[string][]Plot{}
	charts := roofline.Plan(run, exps)
	if len(charts) == 0 {
		return plots, ws
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plots, append(ws, analysis.Warning{Code: WarnPlotFailed, Msg: fmt.Sprintf("plots: %v", err)})
	}
	for _, c := range charts {
		if ctx.Err() != nil {
			break
		}
		files, pw, err := safePlot(func() ([]string, []analysis.Warning, error) { return c.Write(dir, run) })
		title := c.Title()
		ws = append(ws, pw...)
		if err != nil {
			ws = append(ws, analysis.Warning{Code: WarnPlotFailed, Msg: fmt.Sprintf("%s not drawn: %v", title, err)})
		}
		sort.Strings(files)
		for _, f := range files {
			if !strings.HasSuffix(f, ".png") {
				continue
			}
			t := title
			switch base := strings.TrimSuffix(filepath.Base(f), ".png"); {
			case strings.HasSuffix(base, "-kernels"):
				t = "GPU time per kernel, " + title
			case strings.HasSuffix(base, "-sweep"):
				t = "speedup against the baseline, " + title
			}
			plots[c.Experiment] = append(plots[c.Experiment], Plot{Title: t, Path: plotPath(f)})
		}
	}
	return plots, ws
}

// safePlot runs a plot function, turning a panic (gonum panics on some
// degenerate data, e.g. zeros on a log axis) into an error.
func safePlot(f func() ([]string, []analysis.Warning, error)) (files []string, ws []analysis.Warning, err error) {
	defer func() {
		if r := recover(); r != nil {
			files, ws, err = nil, nil, fmt.Errorf("plotting panicked: %v", r)
		}
	}()
	return f()
}
