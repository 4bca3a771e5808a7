package main

import (
	"strings"

	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/stats"
)

// runStatsReports runs the reports opts.Reports names, in that order, and
// writes them one after another (writeStatsReports). Every report but
// cuda_gpu_kern_sum reads one nsys SQLite export; cuda_gpu_kern_sum reads
// whatever stats reads. Options that shape the per-range summary (--range,
// --ranged-only, --sort, --top, --source) apply to cuda_gpu_kern_sum
// alone; --base and --mangled to the reports that group kernels by name.
func runStatsReports(opts *StatsOptions, format string, so stats.Options) error {
	var reps []*stats.Report
	names, summary := false, false
	for _, n := range opts.Reports {
		r, err := stats.LookupReport(n)
		if err != nil {
			return usageErrorf("stats: --report: %v", err)
		}
		reps = append(reps, r)
		names = names || r.Names
		summary = summary || r.FromSummary
	}
	if !summary {
		for _, f := range []struct {
			set  bool
			flag string
		}{{opts.Range != "", "--range"}, {opts.RangedOnly, "--ranged-only"}, {opts.Sort != stats.SortTime && opts.Sort != "", "--sort"},
			{opts.Top != 0, "--top"}, {opts.Source != "", "--source"}} {
			if f.set {
				return usageErrorf("stats: %s shapes the kernel summary: it applies to --report %s, not to %s", f.flag, stats.SummaryReport, strings.Join(opts.Reports, ","))
			}
		}
	}
	if !names && so.Names != stats.NamesDemangled {
		return usageErrorf("stats: --%s names kernels: it applies to --report %s and nvtx_kern_sum, not to %s", so.Names, stats.SummaryReport, strings.Join(opts.Reports, ","))
	}
	var out []pipeline.StatsReport
	for _, r := range reps {
		sr, err := pipeline.RunStatsReport(statsRequest(opts, so), r)
		if err != nil {
			return err
		}
		out = append(out, sr)
	}
	return pipeline.WriteStatsReports(opts.IO.Out, format, opts.IO.Width, opts.Inputs, opts.Top, out)
}
