package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/roofline"
	"github.com/rooftool/rooftool/spec"
)

// RooflineOptions are the flags of `rooftool roofline`.
type RooflineOptions struct {
	IO       *IO
	Inputs   []string
	OutDir   string
	GPU      string // catalog name for the roofs the export does not state
	Ceilings string // ceilings.json of `rooftool ceilings`
	Format   string // table | json: the summary's form
}

func newRooflineCmd(io *IO) *cobra.Command {
	opts := &RooflineOptions{IO: io}
	c := &cobra.Command{
		Use:   "roofline INPUT... -o DIR",
		Short: "Draw the hierarchical roofline of an export or a run (PNG and SVG)",
		Long: `Roofline draws one hierarchical roofline per (experiment, shape) found in the
input, and for rooftool runs the sweep charts (speedup along each sweep, GPU time
per kernel). INPUT is one or more raw exports (ncu CSV, nsys SQLite, ...) or one
directory of ingested tables (a run directory or its tables/ folder).

Roofs come from the export's own ncu peak_sustained metrics where it has them,
else from the catalog entry of --gpu (or of the device name in the export; see
rooftool gpus); --ceilings adds measured ceilings (rooftool ceilings), drawn
dashed. A run directory's ceilings.json is used without the flag. A run
directory (one with manifest.json) is loaded as rooftool report loads it: its
specs snapshot, its manifest's GPU (unless --gpu), and no point, kernel time or
speedup from a pass its manifest marks failed or skipped.

Kernels of an export without rooftool's NVTX ranges go into one plot named
after the first input. A kernel needs FLOP counters (sm__ops_path_tensor_*.sum
or the SASS fadd/fmul/ffma, hadd/hmul/hfma, dadd/dmul/dfma _pred_on.sum counts;
fp64 counts as fp64) and byte counters (dram__bytes_read/write.sum,
dram__bytes.sum, lts__t_bytes.sum or l1tex__t_bytes.sum) for a point. When no
kernel gets one, the command fails with exit 2 and names what is missing,
with the ncu command line that collects the counters the export lacks,
unless the export states its own peaks (ncu peak_sustained metrics, as the
SpeedOfLight_RooflineChart section collects): then the roofs are drawn and a
warning says that no kernel point could be placed, with the same command. A
device name the catalog lacks (an RTX PRO 6000 Blackwell, say) is named in a
warning; --gpu with such a name is exit 2. --gpu of another compute
capability than the export's device (its CC column, or the catalog entry of
its name) is a warning naming both. Other warnings (points left off the log
axes, missing counters) are printed; they do not fail the command.

--format table (default) prints the paths of the charts on stdout, the roofs
and the warnings on stderr; json prints one object on stdout instead,
{"rooftool_roofline": 1, "gpu", "files", "roofs", "warnings"} (JSON.md).`,
		Example: `  rooftool roofline --gpu rtx-a4500 testdata/realdata/ESMM-Research/metrics.csv -o out/
  rooftool roofline --gpu rtx-5090 report.ncu.csv -o out/
  rooftool roofline runs/2026-11-22-h100-1 -o runs/2026-11-22-h100-1/plots`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Inputs = args
			if opts.OutDir == "" {
				return usageErrorf("roofline: -o DIR is required")
			}
			return runRoofline(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "output", "o", "", "directory to write the plots to")
	c.Flags().StringVar(&opts.GPU, "gpu", "", "GPU whose catalog roofs fill in what the export lacks (default: the export's device name)")
	c.Flags().StringVar(&opts.Ceilings, "ceilings", "", "measured ceilings JSON (rooftool ceilings -o FILE)")
	c.Flags().StringVar(&opts.Format, "format", "table", "summary format: table (chart paths on stdout, roofs and warnings on stderr) or json (one object on stdout)")
	mustRegisterCompletion(c, "gpu", completeGPU)
	mustRegisterCompletion(c, "format", completeOneOf(summaryFormats...))
	return c
}

func runRoofline(ctx context.Context, opts *RooflineOptions) error {
	if err := checkSummaryFormat("roofline", opts.Format); err != nil {
		return err
	}
	if opts.GPU != "" {
		if _, err := gpu.Find(opts.GPU); err != nil {
			return usageErrorf("roofline: --gpu %q: %v", opts.GPU, err)
		}
	}
	if err := distinctInputs("roofline", opts.Inputs); err != nil {
		return err
	}
	var measured *gpu.Measured
	if opts.Ceilings != "" {
		var err error
		if measured, err = gpu.ReadMeasured(opts.Ceilings); err != nil {
			return usageErrorf("roofline: --ceilings: %v", err)
		}
	}
	isRun, err := rooflineRunArg(opts.Inputs)
	if err != nil {
		return err
	}
	if isRun {
		// A run directory: loaded as the report loads it, the passes its
		// manifest marks failed or skipped masked.
		run, res, err := loadRun(ctx, opts.Inputs[0], pipeline.Options{GPU: opts.GPU, Measured: measured})
		if err != nil {
			return fmt.Errorf("roofline: %w", err)
		}
		an := *res.Run
		an.Warnings = append(append([]analysis.Warning{}, res.Warnings...), res.Run.Warnings...)
		tables := ""
		if run.Dir != "" {
			tables = filepath.Join(run.Dir, rundir.TablesDir)
		}
		return drawRoofline(opts, tables, res.GPUs, res.Experiments, res.Run.Ceilings, &an)
	}
	in, err := openRooflineInput(opts.Inputs, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	if measured == nil && in.runDir != "" {
		r, err := pipeline.Open(in.runDir)
		if err != nil {
			return &ingest.InputError{File: in.runDir, Err: err}
		}
		if measured, err = pipeline.MeasuredCeilings(r); err != nil {
			return usageErrorf("roofline: %v", err)
		}
	}
	exps, err := spec.Load()
	if err != nil {
		return err
	}
	ceil := gpu.CeilingsFor(analysis.DeviceCeilingsIndexed(in.t, in.metrics), opts.GPU, measured)
	an, err := analysis.AnalyzeIndexed(in.t, in.metrics, exps, analysis.Options{Ceilings: ceil})
	if err != nil {
		return fmt.Errorf("roofline: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return drawRoofline(opts, in.dir, in.t.GPUs(), exps, ceil, an)
}

// rooflineRunArg reports whether the inputs are one run directory: a
// directory with a manifest (rundir.ManifestFile) and tables.
func rooflineRunArg(inputs []string) (bool, error) {
	if len(inputs) != 1 {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(inputs[0], rundir.ManifestFile)); err != nil {
		return false, nil
	}
	if err := checkTablesDir(inputs[0]); err != nil {
		return false, err
	}
	return true, nil
}

// rooflineJSONVersion is the "rooftool_roofline" field of the JSON
// summary; it changes when a key is renamed or removed or a value changes
// meaning.
const rooflineJSONVersion = 1

// rooflineSummary is what roofline says once its charts are drawn: with
// --format json, one object on stdout; as text, the files on stdout and
// the roofs and warnings on stderr.
type rooflineSummary struct {
	Version  int           `json:"rooftool_roofline"`
	GPU      string        `json:"gpu"`      // the device the kernels ran on, as the input names it ("" unknown)
	Files    []string      `json:"files"`    // the charts written, PNG and SVG
	Roofs    []gpu.Ceiling `json:"roofs"`    // the roofs drawn: name, kind, value (byte/s or FLOP/s), source
	Warnings []string      `json:"warnings"` // what the command warned about, in order
	// before is how many of Warnings the text prints before the roofs
	// (those about --gpu and the export's device).
	before int
}

// drawRoofline writes the charts of run (analysed with exps against ceil)
// to opts.OutDir and their summary (writeRooflineSummary): the files, the
// roofs and the warnings; gpus are the rows of the gpus table, which name
// a device the catalog lacks or one of another compute capability than
// --gpu. tables is the folder of the tables run was analysed from ("":
// not known); where an export's kernels get no point, the counters its
// metrics table lacks are named with the ncu command that collects them.
// Where it fails, the warnings gathered so far go to stderr with it.
func drawRoofline(opts *RooflineOptions, tables string, gpus []ingest.GPU, exps []*spec.Experiment, ceil gpu.Ceilings, run *analysis.Run) error {
	s := rooflineSummary{Version: rooflineJSONVersion, GPU: run.GPU, Files: []string{}, Roofs: append([]gpu.Ceiling{}, ceil.Items...)}
	s.Warnings = append([]string{}, ccMismatch(opts.GPU, gpus)...)
	s.before = len(s.Warnings)
	if err := drawCharts(opts, tables, exps, ceil, run, &s); err != nil {
		for _, w := range s.Warnings {
			fmt.Fprintf(opts.IO.Err, "warning: %s\n", w)
		}
		return err
	}
	runWarnings := run.Warnings
	if opts.GPU == "" && len(ceil.Items) == 0 {
		if name, cc, ok := uncataloguedGPU(gpus, run.GPU); ok {
			// The analysis says "no GPU was named"; the export names one
			// that the catalog lacks.
			runWarnings = nil
			for _, w := range run.Warnings {
				if w.Code != analysis.WarnMissing || w.Metric != "pct_of_roof" {
					runWarnings = append(runWarnings, w)
				}
			}
			runWarnings = append([]analysis.Warning{{Code: analysis.WarnMissing, Metric: "pct_of_roof",
				Msg: fmt.Sprintf("no ceilings: the export states no peaks and its GPU %q%s is not in the catalog; %% of roof is left out: name a catalog GPU with --gpu (rooftool gpus)", name, cc)}}, runWarnings...)
		}
	}
	// The run's warnings come before those of drawing the charts.
	var ws []string
	for _, w := range runWarnings {
		ws = append(ws, w.Error())
	}
	s.Warnings = slices.Insert(s.Warnings, s.before, ws...)
	return writeRooflineSummary(opts, s)
}

// drawCharts draws the charts of run (analysed with exps against ceil)
// into opts.OutDir, adding to s the files written and the warnings of
// drawing them.
func drawCharts(opts *RooflineOptions, tables string, exps []*spec.Experiment, ceil gpu.Ceilings, run *analysis.Run, s *rooflineSummary) error {
	charts := roofline.Plan(run, exps)
	if len(charts) == 0 {
		return &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: errors.New("no ncu kernels or rooftool cells to draw")}
	}
	noPoints := "" // why the export's chart has roofs but no kernel point
	for _, c := range charts {
		var fs []string
		var ws []analysis.Warning
		if c.Experiment == "" && c.Shape == "" && c.Sweep == nil {
			// An export without rooftool's NVTX ranges: one roofline named after it.
			// A chart without a single kernel point is drawn only where the
			// export states its own peaks; else it is bad input.
			if placed, why := roofline.KernelPoints(run, "", ""); placed == 0 && why != "" {
				hint := collectHint(missingPointCounters(run, "", "", exportMetricNames(tables)))
				if !deviceRoofs(ceil) {
					return &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: errors.New(why + "; nothing to draw (the export states no peaks either)" + onNextLine(hint))}
				}
				noPoints = why + "; the chart shows the export's roofs only" + onNextLine(hint)
			}
			p, w, err := roofline.RooflinePlot(run, "", "")
			if err != nil {
				return err
			}
			p.Title.Text = filepath.Base(opts.Inputs[0]) + "  on " + orUnknownGPU(run.GPU)
			base := strings.TrimSuffix(filepath.Base(opts.Inputs[0]), filepath.Ext(opts.Inputs[0]))
			if fs, err = roofline.SaveRoofline(p, opts.OutDir, roofline.FileName(base, "", "roofline")); err != nil {
				return err
			}
			ws = w
		} else {
			var err error
			fs, ws, err = c.Write(opts.OutDir, run)
			if errors.Is(err, roofline.ErrNoData) {
				continue
			}
			if err != nil {
				return err
			}
		}
		s.Files = append(s.Files, fs...)
		for _, w := range ws {
			s.Warnings = append(s.Warnings, w.Error())
		}
	}
	if noPoints != "" {
		s.Warnings = append(s.Warnings, noPoints)
	}
	return nil
}

// writeRooflineSummary writes s: with --format json as one object on
// stdout; as text the warnings about the GPU, the roofs (a catalog roof's
// source shortened to its entry) and the other warnings on stderr, then
// the files on stdout.
func writeRooflineSummary(opts *RooflineOptions, s rooflineSummary) error {
	if opts.Format == tableout.FormatJSON {
		return tableout.WriteJSON(opts.IO.Out, s)
	}
	for _, w := range s.Warnings[:s.before] {
		fmt.Fprintf(opts.IO.Err, "warning: %s\n", w)
	}
	for _, it := range s.Roofs {
		src := it.Source
		if i := strings.Index(src, " ("); i > 0 && strings.HasPrefix(src, "catalog:") {
			src = src[:i] // the catalog entry; `rooftool gpus NAME` shows its sources
		}
		fmt.Fprintf(opts.IO.Err, "roof %-12s %-14s %s\n", it.Name, gpu.FormatRate(it.Value, it.Kind), src)
	}
	for _, w := range s.Warnings[s.before:] {
		fmt.Fprintf(opts.IO.Err, "warning: %s\n", w)
	}
	for _, f := range s.Files {
		fmt.Fprintln(opts.IO.Out, f)
	}
	return nil
}

// rooflineInput is what roofline draws from: the tables without their
// metrics and the metric index (analysis.ReadIndexed), read from dir, and
// the run directory where the input is one.
type rooflineInput struct {
	t       *ingest.Tables
	metrics *analysis.MetricIndex
	dir     string // the tables read
	runDir  string
	tmp     *ingest.TempTables // ingested exports, removed by Close
}

func (in *rooflineInput) Close() {
	in.t.Release()
	if in.tmp != nil {
		in.tmp.Remove()
	}
}

// openRooflineInput reads inputs: one directory of ingested tables as it
// is, raw exports once ingested into a temporary directory
// (detect.WriteTemp); the metrics table batchRows rows a batch (<= 0: the
// scan's default).
func openRooflineInput(inputs []string, batchRows int) (*rooflineInput, error) {
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			if err := checkTablesDir(inputs[0]); err != nil {
				return nil, err
			}
			if _, err := pipeline.Open(inputs[0]); err != nil {
				return nil, &ingest.InputError{File: inputs[0], Err: err}
			}
			in := &rooflineInput{dir: tablesDir(inputs[0])}
			if in.t, in.metrics, err = analysis.ReadIndexed(in.dir, batchRows); err != nil {
				return nil, &ingest.InputError{File: inputs[0], Err: err}
			}
			if st, err := os.Stat(filepath.Join(inputs[0], rundir.TablesDir)); err == nil && st.IsDir() {
				in.runDir = inputs[0]
			}
			return in, nil
		}
	}
	var files []ingest.Input
	for _, p := range inputs {
		files = append(files, ingest.Input{Path: p})
	}
	tmp, err := detect.WriteTemp(files, "rooftool-roofline-*")
	if err != nil {
		return nil, err
	}
	in := &rooflineInput{dir: tmp.Dir, tmp: tmp}
	if in.t, in.metrics, err = analysis.ReadIndexed(in.dir, batchRows); err != nil {
		tmp.Remove()
		return nil, err
	}
	return in, nil
}

// deviceRoofs reports whether some roof comes from the export's own peak
// metrics (ncu's peak_sustained, as its SpeedOfLight_RooflineChart section
// records them) rather than the catalog or measured ceilings.
func deviceRoofs(c gpu.Ceilings) bool {
	for _, it := range c.Items {
		if strings.HasPrefix(it.Source, "device:") {
			return true
		}
	}
	return false
}

// uncataloguedGPU returns the device name the export states when the
// catalog has no entry for it, with its compute capability (" (CC 12.0)")
// where the export (its gpus rows) states that too.
func uncataloguedGPU(gpus []ingest.GPU, name string) (string, string, bool) {
	if name == "" {
		return "", "", false
	}
	if _, ok := gpu.Lookup(name); ok {
		return "", "", false
	}
	cc := ""
	for _, g := range gpus {
		if g.Name == name && (g.CCMajor > 0 || g.CCMinor > 0) {
			cc = fmt.Sprintf(" (CC %d.%d)", g.CCMajor, g.CCMinor)
			break
		}
	}
	return name, cc, true
}

// onNextLine is s on a line of its own after what precedes it ("" stays "").
func onNextLine(s string) string {
	if s == "" {
		return ""
	}
	return "\n" + s
}

func orUnknownGPU(s string) string {
	if s == "" {
		return "unknown GPU (use --gpu)"
	}
	return s
}
