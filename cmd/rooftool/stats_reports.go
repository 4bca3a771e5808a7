package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rooftool/rooftool/internal/tableout"
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
	return writeStatsReports(opts, format, out)
}

// writeStatsReports writes the reports in format. CSV is what nsys
// stats --format csv prints after its first line: each report's CSV and
// an empty line (or its SKIPPED line and an empty line), the reports after
// the first each after nsys's line "Processing [FILE] with [REPORT.py]...".
// The table format puts each report under its title. JSON is one
// document per report, one after another.
func writeStatsReports(opts *StatsOptions, format string, reps []pipeline.StatsReport) error {
	w := opts.IO.Out
	switch format {
	case tableout.FormatCSV:
		for i, r := range reps {
			if i > 0 {
				if _, err := fmt.Fprintf(w, "Processing [%s] with [%s.py]...\n", strings.Join(opts.Inputs, " "), r.Table.Report.Name); err != nil {
					return err
				}
			}
			if err := r.Table.WriteCSV(w); err != nil {
				return err
			}
		}
		return nil
	case tableout.FormatJSON:
		for _, r := range reps {
			var doc any = r.Table.JSON()
			if r.Summary != nil {
				doc = stats.NewSummaryJSON(r.Summary.Rows, stats.Options{Names: r.Table.Names, Flat: true})
			}
			if err := tableout.WriteJSON(w, doc); err != nil {
				return err
			}
		}
		return nil
	}
	var fw *tableout.FitWriter
	if opts.IO.Width > 0 {
		fw = tableout.NewFitWriter(w, opts.IO.Width)
		w = fw
	}
	for i, r := range reps {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := r.Table.WriteText(w); err != nil {
			return err
		}
		if r.Summary != nil {
			if n := r.Summary.LeftOut[""]; n > 0 {
				if _, err := fmt.Fprintf(w, " ... %d more kernel(s) (--top %d)\n", n, opts.Top); err != nil {
					return err
				}
			}
		}
	}
	if fw != nil {
		return fw.Flush()
	}
	return nil
}
