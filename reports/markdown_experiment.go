package reports

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/verdict"
)

// writeExperiment writes the section of experiment e in report.md: seeds
// and baseline, environment, one section per shape, the legend, plots,
// quality, best fusion, crossovers and warnings; an experiment without a
// cell in the run gets one line saying its claims are not measured.
func writeExperiment(b *strings.Builder, e ExperimentReport, r *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## %s: %s\n\n", e.Name, e.Title)
	if len(e.Seeds) > 0 {
		p("Seeds %s; baseline `%s`.", strings.Join(e.Seeds, ", "), e.Baseline)
	} else { // an experiment of its own: its claims cite their source
		p("Baseline `%s`.", e.Baseline)
	}
	if !e.InRun {
		p(" This run has no cell of this experiment: its claims above are NOT MEASURED.\n")
		return
	}
	p("\n\nEnvironment:\n\n")
	writeEnv(p, e.Env)
	for _, s := range e.Shapes {
		writeShape(b, e.Name, s)
	}
	p("\n%s\n", legendMarkdown.render(shapeLegend))
	if len(e.Plots) > 0 {
		p("\n### Plots\n\n")
		for i, pl := range e.Plots {
			if i > 0 {
				p("\n")
			}
			p("![%s](%s)\n", pl.Title, pl.Path)
		}
	}
	writeQuality(p, e.Quality)
	writeFusionBest(p, e.FusionBest)
	writeCrossovers(p, e.Crossovers)
	p("\n### Warnings\n\n")
	if len(e.Warnings) == 0 {
		p("None.\n")
	}
	writeWarnings(b, e.Warnings)
}

// writeEnv writes the environment list of an experiment: GPU, clocks
// (recorded, and read after the timing), timing pass, launch path of the
// Triton kernels, knobs and versions, each where known.
func writeEnv(p func(string, ...any), env Env) {
	p("- GPU: %s\n", orUnknown(env.GPU))
	p("- Clocks the manifest recorded: SM %s, memory %s\n", mhz(env.SMClockMHz, env.MaxSMClockMHz), mhz(env.MemClockMHz, env.MaxMemClockMHz))
	if r := env.TimingSMMHz; len(r) == 2 {
		p("- Clocks read after each cell's timing (NVML): SM %s", mhzRange(r))
		if m := env.TimingMemMHz; len(m) == 2 {
			p(", memory %s", mhzRange(m))
		}
		p("\n")
	}
	if len(env.TimingDevices) > 0 || len(env.TimingMethods) > 0 {
		p("- Timing pass: %s, %s\n", orUnknown(strings.Join(env.TimingDevices, ", ")), orUnknown(strings.Join(env.TimingMethods, ", ")))
	}
	switch len(env.Launch) {
	case 0:
	case 1:
		p("- Launch path of the Triton kernels in kernels/ (baselines' and candidates' alike): %s in every pass (torch.compile and library kernels launch their own way)\n", env.Launch[0])
	default:
		p("- Launch paths of the Triton kernels in kernels/: %s: not every pass launched them the same way\n", strings.Join(env.Launch, ", "))
	}
	if len(env.Knobs) > 0 {
		p("- Knobs: `%s`\n", strings.Join(env.Knobs, "`, `"))
	}
	if len(env.Versions) > 0 {
		p("- Versions: %s\n", strings.Join(env.Versions, ", "))
	}
}

// writeShape writes the section of one shape of experiment exp: the time
// table, the bytes table, and the notes of its rows (status, kernel names,
// warnings).
func writeShape(b *strings.Builder, exp string, s verdict.ShapeTable) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n### %s `%s`\n\n", exp, s.Shape)
	tt := Table{Header: []string{"Variant", "Kernels", "Elementwise", "GPU time", "Wall (" + ciLabel + ")", "Device (" + ciLabel + ")", "SM clock", "Speedup (" + ciLabel + ")", "p", "Bound", "Class", "Rel. error"},
		Align: []Align{Left, Right, Right, Right, Right, Right, Right, Right, Right, Right, Left, Right}}
	bt := Table{Header: []string{"Variant", "DRAM", "DRAM theory", "DRAM/theory", "L2 bytes", "Range/kernels", "FLOPs", "FLOPs theory"},
		Align: []Align{Left, Right, Right, Right, Right, Right, Right, Right}}
	var notes []string
	for _, row := range s.Rows {
		name := row.Variant
		if row.Role != "candidate" {
			name += " (" + row.Role + ")"
		}
		dash := func(ok bool, s string) string {
			if !ok {
				return "—"
			}
			return s
		}
		wall := "—"
		if row.WallMs != nil {
			v := row.WallMs
			wall = figure.Seconds(v.Center/1e3, v.Lo/1e3, v.Hi/1e3)
		}
		dev := "—"
		if row.DeviceMs != nil {
			v := row.DeviceMs
			dev = figure.Seconds(v.Center/1e3, v.Lo/1e3, v.Hi/1e3)
		}
		bound := "—"
		if row.BoundFraction != nil {
			bound = fmt.Sprintf("%.0f%%", 100**row.BoundFraction)
		}
		cov := "—"
		if c := row.RangeCoverage; c != nil {
			cov = coverage(c.L2Bytes) + " L2, " + coverage(c.Time) + " time"
		}
		if row.RangeProcess != "" && row.RangeCoverage != nil {
			cov += " (" + row.RangeProcess + ")"
		}
		sp, pv := "—", "—"
		if row.Speedup != nil {
			sp = fmtInterval(verdict.MetricSpeedup, *row.Speedup)
		}
		if row.P != nil {
			pv = figure.PValue(*row.P)
		}
		dram := dramCell(row)
		mr := "—"
		if row.ModelRatio != nil {
			mr = figure.Ratio(*row.ModelRatio)
			if *row.ModelRatio < verdict.ModelLo || *row.ModelRatio > verdict.ModelHi {
				mr += " !"
			}
		}
		re := "—"
		if row.RelError != nil {
			re = fmt.Sprintf("%.2e", *row.RelError)
		}
		gt := "—"
		if row.GPUTimeNs > 0 {
			gt = figure.SI(row.GPUTimeNs/1e9, "s")
		}
		tt.Rows = append(tt.Rows, []string{name, dash(row.Kernels > 0, fmt.Sprint(row.Kernels)),
			dash(row.Kernels > 0, fmt.Sprint(row.ElementwiseKernels)), gt, wall, dev,
			dash(row.TimingSMMHz > 0, fmt.Sprintf("%.0f MHz", row.TimingSMMHz)), sp, pv, bound, dash(row.Class != "", row.Class), re})
		bt.Rows = append(bt.Rows, []string{name, dram, figure.Bytes(row.TheoryDRAMBytes), mr, l2Cell(row), cov, figure.FLOPs(row.FLOPs), figure.FLOPs(row.TheoryFLOPs)})
		if row.Status != "ok" {
			notes = append(notes, fmt.Sprintf("%s: %s (%s)", row.Variant, strings.ToUpper(row.Status), figure.Shorten(row.Reason, 300)))
		}
		if len(row.KernelNames) > 0 {
			var ks []string
			for _, k := range row.KernelNames {
				ks = append(ks, "`"+figure.Shorten(shortKernelName(k), 48)+"`")
			}
			notes = append(notes, fmt.Sprintf("%s kernels: %s", row.Variant, strings.Join(ks, ", ")))
		}
		if len(row.Warnings) > 0 {
			notes = append(notes, fmt.Sprintf("%s: warnings %s", row.Variant, strings.Join(row.Warnings, ", ")))
		}
	}
	tt.Write(b)
	p("\n")
	bt.Write(b)
	if len(notes) > 0 {
		p("\n")
		for _, n := range notes {
			p("- %s\n", n)
		}
	}
}
