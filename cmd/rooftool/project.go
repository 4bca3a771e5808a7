package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

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
const projectModel = `Per ncu kernel: measured = its duration on the run's GPU; bound = max over
DRAM bytes / DRAM bandwidth, L2 bytes / L2 bandwidth (where both GPUs' roofs
give one) and the FLOPs of each class / that class's roof (tensor bf16, fp32,
...); efficiency = bound(source) / measured; projected = bound(target) /
efficiency. Roofs are the catalog's datasheet figures of both GPUs. Per cell:
projected GPU time = source GPU time (nsys timeline, else the ncu kernel
pass; at most the wall time) x sum(projected) / sum(measured) over its
kernels; host and launch overhead (source wall - source GPU time) carried
over unchanged; projected wall = projected GPU time + overhead. Speedups are
baseline wall / candidate wall.`

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

A run may also be named by a run committed under testdata/runs (embedded in
the binary). Exit status: 0 done, 2 bad usage, an unknown GPU or a run with
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
	target, ok := gpu.Lookup(opts.GPU)
	if !ok {
		return usageErrorf("project: --gpu %s: not in the catalog (rooftool gpus lists it)", opts.GPU)
	}
	src, err := projectLoad(ctx, opts.Run)
	if err != nil {
		return err
	}
	srcSpec, ok := gpu.Lookup(src.Run.GPU)
	if !ok {
		return usageErrorf("project: run %s ran on %q, which is not in the catalog: no roofs to project from", src.Name, src.Run.GPU)
	}
	p := analysis.Project(src.Run, gpu.CeilingsFor(gpu.Ceilings{}, srcSpec.Key, nil), gpu.CeilingsFor(gpu.Ceilings{}, target.Key, nil))
	p.SourceRun = src.Name
	if len(p.Cells) == 0 {
		return usageErrorf("project: run %s has no cell with both a wall time and ncu kernels: nothing to project", src.Name)
	}
	if opts.Against != "" {
		m, err := projectLoad(ctx, opts.Against)
		if err != nil {
			return err
		}
		if !gpu.MatchGPU(target.Key, m.Run.GPU) {
			return usageErrorf("project: --against %s ran on %q, not on --gpu %s", m.Name, m.Run.GPU, opts.GPU)
		}
		p.Against(m.Name, m.Run)
	}
	return tableout.Write(opts.IO.Out, opts.Format, tableout.Output{
		CSV:  projectCSV(p),
		JSON: projectJSON(p),
		Text: func(w io.Writer) error { return projectTable(w, p, gpu.ShortName(srcSpec.Key), target.Key) },
	})
}

// projectLoad opens and analyses a run directory or committed run.
func projectLoad(ctx context.Context, name string) (*pipeline.Result, error) {
	run, _, err := openRun(name, "")
	if err != nil {
		return nil, err
	}
	return pipeline.Load(ctx, run, nil)
}

func fmtMs(v float64) string {
	if v <= 0 {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func fmtPct(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }

func fmtX(v float64) string {
	if v <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2fx", v)
}

func projectTable(w io.Writer, p *analysis.Projection, a, b string) error {
	fmt.Fprintf(w, "PROJECTION, not a measurement: run %s (%s) projected onto %s with the roofline model.\n", p.SourceRun, p.SourceGPU, p.TargetGPU)
	if p.AgainstRun != "" {
		fmt.Fprintf(w, "Checked against run %s, measured on %s.\n", p.AgainstRun, p.AgainstGPU)
	}
	fmt.Fprintf(w, "\nModel: %s\n\n", projectModel)
	against := p.AgainstRun != ""
	cells := tableout.Table{Header: []string{"experiment", "variant", "shape", "wall on " + a + " (measured) ms", "overhead ms", "kernel time ratio", "wall on " + b + " (PROJECTED) ms"}}
	if against {
		cells.Header = append(cells.Header, "measured on "+b+" ms", "error")
	}
	for _, c := range p.Cells {
		row := []string{c.Experiment, c.Variant, c.Shape, fmtMs(c.SourceWallMs), strconv.FormatFloat(c.OverheadMs, 'f', 4, 64), fmt.Sprintf("%.3f", c.KernelRatio), fmtMs(c.ProjectedWallMs)}
		if against {
			e := "—"
			if c.Error != nil {
				e = fmtPct(*c.Error)
			}
			row = append(row, fmtMs(c.MeasuredWallMs), e)
		}
		cells.Rows = append(cells.Rows, row)
	}
	if err := cells.WriteText(w, tableout.Markdown); err != nil {
		return err
	}
	if len(p.Speedups) > 0 {
		fmt.Fprintln(w)
		sp := tableout.Table{Header: []string{"experiment", "shape", "candidate vs baseline", "speedup on " + a + " (measured)", "speedup on " + b + " (PROJECTED)"}}
		if against {
			sp.Header = append(sp.Header, "speedup measured on "+b)
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
	if e := p.Error; e != nil {
		fmt.Fprintf(w, "\nProjection error of wall time (projected / measured on %s - 1) over %d cells: median %s (median |error| %.1f%%), worst %s (%s).\n",
			b, e.N, fmtPct(e.Median), 100*e.MedianAbs, fmtPct(e.Worst), e.WorstCell)
	}
	for _, wr := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wr.Error())
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
	t := tableout.Table{Header: []string{"row", "source_gpu", "projected_onto", "experiment", "variant", "shape", "baseline",
		"source_wall_ms", "overhead_ms", "kernel_ratio", "projected_wall_ms", "measured_wall_ms", "error",
		"source_speedup", "projected_speedup", "measured_speedup"}}
	for _, c := range p.Cells {
		e := ""
		if c.Error != nil {
			e = strconv.FormatFloat(*c.Error, 'g', 6, 64)
		}
		t.Rows = append(t.Rows, []string{"cell", p.SourceGPU, p.TargetGPU, c.Experiment, c.Variant, c.Shape, "",
			f(c.SourceWallMs), strconv.FormatFloat(c.OverheadMs, 'g', 6, 64), f(c.KernelRatio), f(c.ProjectedWallMs), f(c.MeasuredWallMs), e, "", "", ""})
	}
	for _, s := range p.Speedups {
		t.Rows = append(t.Rows, []string{"speedup", p.SourceGPU, p.TargetGPU, s.Experiment, s.Candidate, s.Shape, s.Baseline,
			"", "", "", "", "", "", f(s.Source), f(s.Projected), f(s.Measured)})
	}
	if e := p.Error; e != nil {
		t.Rows = append(t.Rows, []string{"error_median", p.SourceGPU, p.TargetGPU, "", "", "", "", "", "", "", "", "", strconv.FormatFloat(e.Median, 'g', 6, 64), "", "", ""},
			[]string{"error_worst", p.SourceGPU, p.TargetGPU, "", "", e.WorstCell, "", "", "", "", "", "", strconv.FormatFloat(e.Worst, 'g', 6, 64), "", "", ""})
	}
	return t
}

func projectJSON(p *analysis.Projection) any {
	return struct {
		Version      int    `json:"rooftool_project"`
		IsProjection bool   `json:"projection"`
		Note         string `json:"note"`
		Model        string `json:"model"`
		*analysis.Projection
	}{1, true, "every projected_* figure is a what-if of the roofline model, not a measurement", projectModel, p}
}
