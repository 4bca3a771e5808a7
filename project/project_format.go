package project

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/internal/tableout"
)

// The output of a projection (Projection) as rooftool project writes it:
// the model in words (ModelText), its error measured on committed runs
// (Record), a text table (WriteProjectionTable), CSV (ProjectionCSV)
// and JSON (ProjectionJSON).

// ModelText states the model in one paragraph; the help, the table and
// the JSON carry it.
const ModelText = `Per ncu kernel of the run's GPU: its measured time t is taken as the soft
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

// Record is the model's error as measured on committed runs: the
// H100 default run projected onto the H200 and compared with the 4 x H200
// run of the same grid (TestProjectRecord recomputes it). project states
// it beside projections between the same two GPUs when no --against run is
// given.
var Record = struct {
	Source, Target       string // committed runs
	SourceGPU, TargetGPU string // catalog keys
	N                    int
	MedianAbs, Worst     float64
	WorstCell            string
	NaiveMedianAbs       float64
}{"2026-11-23-h100-161238", "2026-11-28-h200x4-084633", "h100-sxm", "h200", 32, 0.0270, 0.3478,
	"gated_ssm/cutlass-evt/B=16,T=2048,d=2048,H=16,dk=128,n=16", 0.0354}

// fmtUs writes ms as us; "—" for 0 (not measured, not projected).
func fmtUs(ms float64) string {
	if ms <= 0 {
		return "—"
	}
	return strconv.FormatFloat(ms*1e3, 'f', 1, 64)
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

// projectionTrust says how far the projection's kernel sums can be trusted:
// the error against the --against run, else the error measured on the
// committed runs where the GPUs are the same two, else that none is known.
func projectionTrust(p *Projection, srcKey, dstKey string) string {
	if e := p.Error(ErrKernels); e != nil {
		return fmt.Sprintf("median |error| %.1f%%, worst %s", 100*e.MedianAbs, fmtPct(e.Worst))
	}
	r := Record
	if srcKey == r.SourceGPU && dstKey == r.TargetGPU {
		return fmt.Sprintf("error measured on committed runs: median |error| %.1f%%, worst %s", 100*r.MedianAbs, fmtPct(r.Worst))
	}
	return "error not measured for this pair of GPUs"
}

func WriteProjectionTable(w io.Writer, p *Projection, a, b, srcKey, dstKey string) error {
	fmt.Fprintf(w, "PROJECTION, not a measurement: run %s (%s) projected onto %s with a per-kernel model.\n", p.SourceRun, p.SourceGPU, p.TargetGPU)
	if p.AgainstRun != "" {
		fmt.Fprintf(w, "Checked against run %s, measured on %s.\n", p.AgainstRun, p.AgainstGPU)
	}
	fmt.Fprintf(w, "\nModel: %s\n", ModelText)
	m := p.Model
	fmt.Fprintf(w, "\nAssumed: n = %g; attainable DRAM bandwidth %.1f%% of each datasheet's, from %s; clock: %s.\n",
		m.Exponent, 100*m.DRAMAttainable, m.DRAMAttainableFrom, m.Clock)
	r := Record
	switch {
	case len(p.Errors) > 0:
		if err := writeProjectionErrors(w, p, a, b); err != nil {
			return err
		}
	case srcKey == r.SourceGPU && dstKey == r.TargetGPU:
		fmt.Fprintf(w, "\nHow far to trust it: run %s projected onto %s and set against run %s (the same grid measured there), the kernel sums of %d cells erred by median |error| %.1f%%, worst %s (%s; the target ran other kernels); the naive projection (%s time = %s time) by %.1f%%.\n",
			r.Source, b, r.Target, r.N, 100*r.MedianAbs, fmtPct(r.Worst), r.WorstCell, b, a, 100*r.NaiveMedianAbs)
	default:
		fmt.Fprintf(w, "\nHow far to trust it: the model's error has been measured for %s -> %s only (median |error| %.1f%% of the kernel sums); for %s -> %s it is unknown.\n",
			r.SourceGPU, r.TargetGPU, 100*r.MedianAbs, a, b)
	}
	// The trust goes above the table: its "|error|" in a header cell would
	// end the cell. Every time of the table is in us.
	against := p.AgainstRun != ""
	fmt.Fprintf(w, "\nPROJECTED kernel sums on %s: %s.\n\n", b, projectionTrust(p, srcKey, dstKey))
	cells := tableout.Table{Header: []string{"experiment", "variant", "shape", "classes",
		"kernel sum on " + a + " (measured) us", "on " + b + " (PROJECTED) us", "at " + b + " boost clock us"}}
	if against {
		cells.Header = append(cells.Header, "measured on "+b+" us", "error", "naive error")
	}
	cells.Header = append(cells.Header, "GPU time on "+a+" (nsys) us", "on "+b+" (PROJECTED) us")
	if against {
		cells.Header = append(cells.Header, "measured on "+b+" us", "error")
	}
	cells.Header = append(cells.Header, "wall on "+a+" (measured) us", "wall on "+b+" (PROJECTED) us")
	if against {
		cells.Header = append(cells.Header, "measured on "+b+" us", "error", "note")
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
		wall := fmtUs(c.ProjectedWallMs)
		if c.ProjectedWallMs <= 0 && strings.HasPrefix(c.WallNote, "host-bound") {
			wall = "host-bound: not projected"
		}
		row = append(row, fmtUs(c.SourceWallMs), wall)
		if against {
			row = append(row, fmtUs(c.MeasuredWallMs), fmtErr(c.WallError), orDash(c.TargetNote))
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

// writeProjectionErrors writes the errors against the --against run: per
// measure, per kernel class, and the clock check.
func writeProjectionErrors(w io.Writer, p *Projection, a, b string) error {
	fmt.Fprintf(w, "\nError against run %s (projected / measured on %s - 1), beside the naive projection (%s time = %s time) and the projection with every kernel at %s's boost clock:\n\n", p.AgainstRun, b, b, a, b)
	t := tableout.Table{Header: mdCells("measure", "cells", "median |error|", "median", "worst", "worst cell", "naive median |error|", "naive worst", "at boost clock median |error|")}
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
		k := tableout.Table{Header: mdCells("class", "kernels", "median |error|", "worst", "worst kernel", "naive median |error|", "naive worst", "at boost clock median |error|")}
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

// mdCells are cells of a Markdown table with each "|" escaped, which
// would otherwise end its cell.
func mdCells(cells ...string) []string {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return cells
}

func ProjectionCSV(p *Projection) tableout.Table {
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
		es  []ProjectionError
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

// ProjectionJSONVersion is the "rooftool_project" field of the JSON output.
const ProjectionJSONVersion = 2

func ProjectionJSON(p *Projection, srcKey, dstKey string) any {
	return struct {
		Version      int    `json:"rooftool_project"`
		IsProjection bool   `json:"projection"`
		Note         string `json:"note"`
		ModelText    string `json:"model_text"`
		Trust        string `json:"trust"`
		*Projection
	}{ProjectionJSONVersion, true, "every projected_* figure is a what-if of the model, not a measurement", ModelText, projectionTrust(p, srcKey, dstKey), p}
}
