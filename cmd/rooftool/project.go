package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/spf13/cobra"
)

// ProjectOptions are the flags of `rooftool project`.
type ProjectOptions struct {
	IO      *IO
	Run     string // run directory or committed run
	GPU     string // target GPU: a catalog key, name or alias
	Against string // run measured on the target GPU ("" = none)
	Format  string // table | csv | json
}

// projectModel states the model in one paragraph; the help, the table and
// the JSON carry it.
const projectModel = `Per ncu kernel of the run's GPU: its measured time t is taken as the soft
maximum (dram^n + compute^n + other^n)^(1/n), n = 2, of three terms: dram =
its DRAM bytes at the bandwidth a streaming kernel attains (a fraction of the
datasheet's: the run's measured DRAM ceiling or its best kernel's rate);
compute = its FLOPs of the class that takes longest at that class's
datasheet roof, scaled to the SM clock the kernel ran at (ncu); other = what
the two leave (latency, issue, synchronisation). The largest term is the
kernel's class: bandwidth-, compute- or latency-bound. On the target GPU dram
scales by the ratio of the datasheet bandwidths, compute by the ratio of the
roofs and of the clocks, other by the ratio of the clocks and of the waves
its grid takes (grid / (SMs x blocks per SM)), and the terms combine the same
way. Clock: each kernel runs at the same share of the catalog boost clock as
on the source (the boost clocks' ratio times the clock it ran at); "at boost
clock" projects every kernel at the target's boost clock instead. Per cell:
the kernel sum of the ncu kernel pass is projected kernel by kernel; the GPU
time of the nsys timeline and the CUDA-graph device time are scaled by the
kernel sums' ratio; the wall time is the projected device time plus the
source's host overhead where that overhead is under a third of the wall,
and not projected (host-bound) where it is more. Speedups are baseline /
candidate kernel sums.`

// projectRecord is the model's error as measured on committed runs: the
// H100 default run projected onto the H200 and compared with the 4 x H200
// run of the same grid (TestProjectRecord recomputes it). project states
// it beside projections between the same two GPUs when no --against run is
// given.
var projectRecord = struct {
	Source, Target       string // committed runs
	SourceGPU, TargetGPU string // catalog keys
	N                    int
	MedianAbs, Worst     float64
	WorstCell            string
	NaiveMedianAbs       float64
}{"2026-11-23-h100-161238", "2026-11-26-h200x4-085514", "h100-sxm", "h200", 31, 0.0249, 0.3278,
	"gated_ssm/cutlass-evt/B=16,T=2048,d=2048,H=16,dk=128,n=16", 0.0302}

func newProjectCmd(io *IO) *cobra.Command {
	opts := &ProjectOptions{IO: io}
	c := &cobra.Command{
		Use:   "project RUN --gpu GPU",
		Short: "Project a run onto another catalog GPU with the roofline model (a what-if, not a measurement)",
		Long: `Project is a what-if: it projects each cell of RUN (wall time, GPU time, and
each candidate's speedup over its baseline) onto another GPU of the catalog
(rooftool gpus), with the efficiency each kernel reached on the run's GPU
carried over. Everything it prints for the target GPU is a PROJECTION, not a
measurement, unless a column says "measured".

Model:
` + projectModel + `

It ignores what the roofs do not hold: latency-bound kernels (they do not
speed up with bandwidth), clocks, cache sizes, and host overhead that differs
between machines.

--against RUN2 compares the projection with a run measured on the target GPU
(the same experiments and shapes; a timing-only run will do): a "measured on"
column, the error projected / measured - 1 of each cell's wall time, and its
median and worst.

--format table (default) is Markdown-compatible; csv is one long table whose
"row" column says what a row holds (cell, speedup, error_median, error_worst)
and whose "projected_onto" column names the target GPU; json is one object
with "rooftool_project": 1 and "projection": true.

A run may also be named by a run committed under testdata/runs (the default
run is embedded in the binary; the others are read from the repository that
holds the working directory). Exit status: 0 done, 2 bad usage, an unknown GPU or a run with
nothing to project, 1 anything else.`,
		Example: `  rooftool project 2026-11-23-h100-140505 --gpu h200
  rooftool project 2026-11-22-h100-003504 --gpu h200 --against 2026-11-22-h200-004838
  rooftool project runs/my-run --gpu a100-sxm-80 --format json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeRunArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Run = args[0]
			return runProject(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.GPU, "gpu", "", "target GPU: a key, name or alias of the catalog (rooftool gpus)")
	c.Flags().StringVar(&opts.Against, "against", "", "a run measured on the target GPU to compare the projection with")
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	mustRegisterCompletion(c, "gpu", completeGPU)
	mustRegisterCompletion(c, "against", func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completeRunArgs(1)(c, nil, toComplete)
	})
	return c
}

func runProject(ctx context.Context, opts *ProjectOptions) error {
	if err := checkDataFormat("project", opts.Format); err != nil {
		return err
	}
	if opts.GPU == "" {
		return usageErrorf("project: --gpu is required (a GPU of rooftool gpus, e.g. --gpu h200)")
	}
	target, err := gpu.Find(opts.GPU)
	if err != nil {
		return usageErrorf("project: --gpu %s: %v", opts.GPU, err)
	}
	_, src, err := loadRun(ctx, opts.Run, pipeline.Options{})
	if err != nil {
		return err
	}
	srcSpec, ok := gpu.Lookup(src.Run.GPU)
	if !ok {
		return usageErrorf("project: run %s ran on %q, which is not in the catalog: no roofs to project from", src.Name, src.Run.GPU)
	}
	p := analysis.Project(src.Run, srcSpec, target, analysis.ProjectOptions{})
	p.SourceRun = src.Name
	if len(p.Cells) == 0 {
		return usageErrorf("project: run %s has no cell with ncu kernels: nothing to project", src.Name)
	}
	if opts.Against != "" {
		_, m, err := loadRun(ctx, opts.Against, pipeline.Options{})
		if err != nil {
			return err
		}
		if !gpu.MatchGPU(target.Key, m.Run.GPU) {
			return usageErrorf("project: --against %s ran on %q, not on --gpu %s", m.Name, m.Run.GPU, opts.GPU)
		}
		p.Against(m.Name, m.Run)
	}
	a, b := gpu.ShortName(srcSpec.Key), target.Key
	return writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  projectCSV(p),
		JSON: projectJSON(p, srcSpec.Key, target.Key),
		Text: func(w io.Writer) error { return projectTable(w, p, a, b, srcSpec.Key, target.Key) },
	})
}

// fmtUs writes ms as us; "—" for 0 (not measured, not projected).
func fmtUs(ms float64) string {
	if ms <= 0 {
		return "—"
	}
	return strconv.FormatFloat(ms*1e3, 'f', 1, 64)
}

func fmtMs(v float64) string {
	if v <= 0 {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func fmtPct(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }

func fmtErr(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmtPct(*v)
}

func fmtX(v float64) string {
	if v <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2fx", v)
}

// classShort writes a cell's class shares, largest first: "B 62% C 30% L 8%".
func classShort(shares map[string]float64) string {
	type cs struct {
		c string
		v float64
	}
	var l []cs
	for c, v := range shares {
		l = append(l, cs{c, v})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].v != l[j].v {
			return l[i].v > l[j].v
		}
		return l[i].c < l[j].c
	})
	var out []string
	for _, x := range l {
		if r := math.Round(100 * x.v); r > 0 {
			out = append(out, fmt.Sprintf("%s %.0f%%", strings.ToUpper(x.c[:1]), r))
		}
	}
	return strings.Join(out, " ")
}

// projectTrust says how far the projection's kernel sums can be trusted:
// the error against the --against run, else the error measured on the
// committed runs where the GPUs are the same two, else that none is known.
func projectTrust(p *analysis.Projection, srcKey, dstKey string) string {
	if e := p.Error(analysis.ErrKernels); e != nil {
		return fmt.Sprintf("median |error| %.1f%%, worst %s", 100*e.MedianAbs, fmtPct(e.Worst))
	}
	r := projectRecord
	if srcKey == r.SourceGPU && dstKey == r.TargetGPU {
		return fmt.Sprintf("error measured on committed runs: median |error| %.1f%%, worst %s", 100*r.MedianAbs, fmtPct(r.Worst))
	}
	return "error not measured for this pair of GPUs"
}

func projectTable(w io.Writer, p *analysis.Projection, a, b, srcKey, dstKey string) error {
	fmt.Fprintf(w, "PROJECTION, not a measurement: run %s (%s) projected onto %s with a per-kernel model.\n", p.SourceRun, p.SourceGPU, p.TargetGPU)
	if p.AgainstRun != "" {
		fmt.Fprintf(w, "Checked against run %s, measured on %s.\n", p.AgainstRun, p.AgainstGPU)
	}
	fmt.Fprintf(w, "\nModel: %s\n", projectModel)
	m := p.Model
	fmt.Fprintf(w, "\nAssumed: n = %g; attainable DRAM bandwidth %.1f%% of each datasheet's, from %s; clock: %s.\n",
		m.Exponent, 100*m.DRAMAttainable, m.DRAMAttainableFrom, m.Clock)
	r := projectRecord
	switch {
	case len(p.Errors) > 0:
		if err := projectErrorTables(w, p, a, b); err != nil {
			return err
		}
	case srcKey == r.SourceGPU && dstKey == r.TargetGPU:
		fmt.Fprintf(w, "\nHow far to trust it: run %s projected onto %s and set against run %s (the same grid measured there), the kernel sums of %d cells erred by median |error| %.1f%%, worst %s (%s; the target ran other kernels); the naive projection (%s time = %s time) by %.1f%%.\n",
			r.Source, b, r.Target, r.N, 100*r.MedianAbs, fmtPct(r.Worst), r.WorstCell, b, a, 100*r.NaiveMedianAbs)
	default:
		fmt.Fprintf(w, "\nHow far to trust it: the model's error has been measured for %s -> %s only (median |error| %.1f%% of the kernel sums); for %s -> %s it is unknown.\n",
			r.SourceGPU, r.TargetGPU, 100*r.MedianAbs, a, b)
	}
	trust := projectTrust(p, srcKey, dstKey)
	against := p.AgainstRun != ""
	fmt.Fprintln(w)
	cells := tableout.Table{Header: []string{"experiment", "variant", "shape", "classes",
		"kernel sum on " + a + " (measured) us", "on " + b + " (PROJECTED; " + trust + ") us", "at " + b + " boost clock us"}}
	if against {
		cells.Header = append(cells.Header, "measured on "+b+" us", "error", "naive error")
	}
	cells.Header = append(cells.Header, "GPU time on "+a+" (nsys) us", "on "+b+" (PROJECTED) us")
	if against {
		cells.Header = append(cells.Header, "measured on "+b+" us", "error")
	}
	cells.Header = append(cells.Header, "wall on "+a+" (measured) ms", "wall on "+b+" (PROJECTED) ms")
	if against {
		cells.Header = append(cells.Header, "measured on "+b+" ms", "error", "note")
	}
	var notes []string
	for _, c := range p.Cells {
		row := []string{c.Experiment, c.Variant, c.Shape, classShort(c.ClassShares),
			fmtUs(c.SourceKernelMs), fmtUs(c.ProjectedKernelMs), fmtUs(c.ProjectedKernelBoostMs)}
		if against {
			row = append(row, fmtUs(c.MeasuredKernelMs), fmtErr(c.KernelError), fmtErr(c.NaiveErrors.Kernel))
		}
		row = append(row, fmtUs(c.SourceGPUMs), fmtUs(c.ProjectedGPUMs))
		if against {
			row = append(row, fmtUs(c.MeasuredGPUMs), fmtErr(c.GPUError))
		}
		wall := fmtMs(c.ProjectedWallMs)
		if c.ProjectedWallMs <= 0 && strings.HasPrefix(c.WallNote, "host-bound") {
			wall = "host-bound: not projected"
		}
		row = append(row, fmtMs(c.SourceWallMs), wall)
		if against {
			row = append(row, fmtMs(c.MeasuredWallMs), fmtErr(c.WallError), orDash(c.TargetNote))
		}
		cells.Rows = append(cells.Rows, row)
		if c.WallNote != "" {
			notes = append(notes, c.Key().String()+": "+c.WallNote)
		}
	}
	if err := cells.WriteText(w, tableout.Markdown); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nclasses: the share of the cell's kernel time (ncu) in bandwidth- (B), compute- (C) and latency-bound (L) kernels.")
	for _, n := range notes {
		fmt.Fprintf(w, "wall: %s\n", n)
	}
	if len(p.Speedups) > 0 {
		fmt.Fprintln(w)
		sp := tableout.Table{Header: []string{"experiment", "shape", "candidate vs baseline", "kernel-sum speedup on " + a + " (measured)", "on " + b + " (PROJECTED)"}}
		if against {
			sp.Header = append(sp.Header, "measured on "+b)
		}
		for _, s := range p.Speedups {
			row := []string{s.Experiment, s.Shape, s.Candidate + " vs " + s.Baseline, fmtX(s.Source), fmtX(s.Projected)}
			if against {
				row = append(row, fmtX(s.Measured))
			}
			sp.Rows = append(sp.Rows, row)
		}
		if err := sp.WriteText(w, tableout.Markdown); err != nil {
			return err
		}
	}
	for _, wr := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wr.Error())
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// projectErrorTables writes the errors against the --against run: per
// measure, per kernel class, and the clock check.
func projectErrorTables(w io.Writer, p *analysis.Projection, a, b string) error {
	fmt.Fprintf(w, "\nError against run %s (projected / measured on %s - 1), beside the naive projection (%s time = %s time) and the projection with every kernel at %s's boost clock:\n\n", p.AgainstRun, b, b, a, b)
	t := tableout.Table{Header: []string{"measure", "cells", "median |error|", "median", "worst", "worst cell", "naive median |error|", "naive worst", "at boost clock median |error|"}}
	for _, e := range p.Errors {
		worst := e.WorstCell
		if e.WorstNote != "" {
			worst += " (" + e.WorstNote + ")"
		}
		t.Rows = append(t.Rows, []string{e.Measure, strconv.Itoa(e.N), fmt.Sprintf("%.1f%%", 100*e.MedianAbs), fmtPct(e.Median), fmtPct(e.Worst), worst,
			fmt.Sprintf("%.1f%%", 100*e.NaiveMedianAbs), fmtPct(e.NaiveWorst) + " (" + e.NaiveWorstCell + ")", fmt.Sprintf("%.1f%%", 100*e.BoostMedianAbs)})
	}
	if err := t.WriteText(w, tableout.Markdown); err != nil {
		return err
	}
	if len(p.KernelErrors) > 0 {
		fmt.Fprintf(w, "\nSingle kernels (those %s ran under the same name at the same place of the cell), by the class the model gave each:\n\n", b)
		k := tableout.Table{Header: []string{"class", "kernels", "median |error|", "worst", "worst kernel", "naive median |error|", "naive worst", "at boost clock median |error|"}}
		for _, e := range p.KernelErrors {
			k.Rows = append(k.Rows, []string{e.Measure, strconv.Itoa(e.N), fmt.Sprintf("%.1f%%", 100*e.MedianAbs), fmtPct(e.Worst), e.WorstCell,
				fmt.Sprintf("%.1f%%", 100*e.NaiveMedianAbs), fmtPct(e.NaiveWorst), fmt.Sprintf("%.1f%%", 100*e.BoostMedianAbs)})
		}
		if err := k.WriteText(w, tableout.Markdown); err != nil {
			return err
		}
	}
	if c := p.TargetClock; c != nil {
		fmt.Fprintf(w, "\nClock check: the SM clock of those %d kernels on %s over their clock on %s (ncu): median %.3f, %.3f to %.3f; assumed %.3f.\n", c.N, b, a, c.Median, c.Min, c.Max, c.Assumed)
	}
	return nil
}

func projectCSV(p *analysis.Projection) tableout.Table {
	f := func(v float64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	e := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', 6, 64)
	}
	t := tableout.Table{Header: []string{"row", "source_gpu", "projected_onto", "experiment", "variant", "shape", "baseline",
		"source_kernel_ms", "projected_kernel_ms", "projected_kernel_boost_ms", "measured_kernel_ms", "kernel_error", "naive_kernel_error",
		"source_gpu_ms", "projected_gpu_ms", "measured_gpu_ms", "gpu_error",
		"source_wall_ms", "projected_wall_ms", "measured_wall_ms", "wall_error", "wall_note",
		"source_speedup", "projected_speedup", "measured_speedup",
		"measure", "n", "median_abs", "worst", "worst_at", "naive_median_abs", "boost_median_abs"}}
	pad := func(r []string) []string { return append(r, make([]string, len(t.Header)-len(r))...) }
	for _, c := range p.Cells {
		t.Rows = append(t.Rows, pad([]string{"cell", p.SourceGPU, p.TargetGPU, c.Experiment, c.Variant, c.Shape, "",
			f(c.SourceKernelMs), f(c.ProjectedKernelMs), f(c.ProjectedKernelBoostMs), f(c.MeasuredKernelMs), e(c.KernelError), e(c.NaiveErrors.Kernel),
			f(c.SourceGPUMs), f(c.ProjectedGPUMs), f(c.MeasuredGPUMs), e(c.GPUError),
			f(c.SourceWallMs), f(c.ProjectedWallMs), f(c.MeasuredWallMs), e(c.WallError), c.WallNote}))
	}
	for _, s := range p.Speedups {
		r := pad([]string{"speedup", p.SourceGPU, p.TargetGPU, s.Experiment, s.Candidate, s.Shape, s.Baseline})
		r[22], r[23], r[24] = f(s.Source), f(s.Projected), f(s.Measured)
		t.Rows = append(t.Rows, r)
	}
	for _, g := range []struct {
		row string
		es  []analysis.ProjectionError
	}{{"error", p.Errors}, {"kernel_error", p.KernelErrors}} {
		for _, x := range g.es {
			r := pad([]string{g.row, p.SourceGPU, p.TargetGPU})
			r[25], r[26], r[27], r[28], r[29] = x.Measure, strconv.Itoa(x.N), strconv.FormatFloat(x.MedianAbs, 'g', 6, 64), strconv.FormatFloat(x.Worst, 'g', 6, 64), x.WorstCell
			r[30], r[31] = strconv.FormatFloat(x.NaiveMedianAbs, 'g', 6, 64), strconv.FormatFloat(x.BoostMedianAbs, 'g', 6, 64)
			t.Rows = append(t.Rows, r)
		}
	}
	return t
}

// projectJSONVersion is the "rooftool_project" field of the JSON output.
const projectJSONVersion = 2

func projectJSON(p *analysis.Projection, srcKey, dstKey string) any {
	return struct {
		Version      int    `json:"rooftool_project"`
		IsProjection bool   `json:"projection"`
		Note         string `json:"note"`
		ModelText    string `json:"model_text"`
		Trust        string `json:"trust"`
		*analysis.Projection
	}{projectJSONVersion, true, "every projected_* figure is a what-if of the model, not a measurement", projectModel, projectTrust(p, srcKey, dstKey), p}
}
