package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/stats"
)

// statsReport is one report of `stats --report` once run: its table, or
// for cuda_gpu_kern_sum the kernel summary it was made from (whose JSON
// is stats.SummaryJSON).
type statsReport struct {
	table   stats.ReportTable
	summary *stats.Summary
}

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
	progress := newWorkProgress(opts.IO)
	defer progress.stop()
	var out []statsReport
	for _, r := range reps {
		if r.FromSummary {
			sr, err := statsKernSum(opts, r, so)
			if err != nil {
				return err
			}
			out = append(out, sr)
			continue
		}
		path, err := oneNsysExport(r, opts.Inputs)
		if err != nil {
			return err
		}
		progress.start(r.Name + " " + filepath.Base(path))
		t, err := stats.RunReport(r, path, path, so.Names)
		progress.stop()
		if err != nil {
			return err
		}
		out = append(out, statsReport{table: t})
	}
	return writeStatsReports(opts, format, out)
}

// oneNsysExport is the one nsys SQLite export r reads, or why the inputs
// are not that (bad input).
func oneNsysExport(r *stats.Report, inputs []string) (string, error) {
	if len(inputs) != 1 {
		return "", &ingest.InputError{File: strings.Join(inputs, " "), Err: fmt.Errorf("--report %s reads one nsys SQLite export, not %d inputs", r.Name, len(inputs))}
	}
	f, err := detect.Format(inputs[0])
	if err != nil {
		return "", err
	}
	if f != detect.FormatNsysDB {
		return "", &ingest.InputError{File: inputs[0], Err: fmt.Errorf("is %s: --report %s reads an nsys SQLite export (nsys export --type sqlite makes one of a report)", f, r.Name)}
	}
	return inputs[0], nil
}

// statsKernSum runs cuda_gpu_kern_sum: skipped as nsys skips it where the
// one input is an nsys SQLite export without the tables it reads, else
// the flat kernel summary of the inputs.
func statsKernSum(opts *StatsOptions, r *stats.Report, so stats.Options) (statsReport, error) {
	t := stats.ReportTable{Report: r, Names: so.Names}
	if len(opts.Inputs) == 1 && (opts.Source == "" || opts.Source == ingest.SourceNsys) {
		if f, err := detect.Format(opts.Inputs[0]); err == nil && f == detect.FormatNsysDB {
			tables, err := nsys.TableSet(opts.Inputs[0])
			if err != nil {
				return statsReport{}, err
			}
			if t.Skipped = r.Skipped(opts.Inputs[0], func(n string) bool { return tables[n] }); t.Skipped != "" {
				return statsReport{table: t}, nil
			}
		}
	}
	s, err := statsSummary(opts.Inputs, opts.Source, so, opts.IO)
	var te *stats.TimeError
	if errors.As(err, &te) {
		return statsReport{}, &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: err}
	}
	if err != nil {
		return statsReport{}, err
	}
	if len(s.Rows) == 0 {
		return statsReport{}, &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: errors.New(statsNothing(opts))}
	}
	if s.NameFallbacks > 0 && so.Names != stats.NamesDemangled {
		fmt.Fprintf(opts.IO.Err, "warning: %d kernel(s) have no %s name in the input: they are listed by their demangled name\n", s.NameFallbacks, so.Names)
	}
	t.Rows = stats.KernelSummaryRows(s)
	return statsReport{table: t, summary: &s}, nil
}

// writeStatsReports writes the reports in format. CSV is what nsys
// stats --format csv prints after its first line: each report's CSV and
// an empty line (or its SKIPPED line and an empty line), the reports after
// the first each after nsys's line "Processing [FILE] with [REPORT.py]...".
// The table format puts each report under its title. JSON is one
// document per report, one after another.
func writeStatsReports(opts *StatsOptions, format string, reps []statsReport) error {
	w := opts.IO.Out
	switch format {
	case tableout.FormatCSV:
		for i, r := range reps {
			if i > 0 {
				if _, err := fmt.Fprintf(w, "Processing [%s] with [%s.py]...\n", strings.Join(opts.Inputs, " "), r.table.Report.Name); err != nil {
					return err
				}
			}
			if err := r.table.WriteCSV(w); err != nil {
				return err
			}
		}
		return nil
	case tableout.FormatJSON:
		for _, r := range reps {
			var doc any = r.table.JSON()
			if r.summary != nil {
				doc = stats.NewSummaryJSON(r.summary.Rows, stats.Options{Names: r.table.Names, Flat: true})
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
		if err := r.table.WriteText(w); err != nil {
			return err
		}
		if r.summary != nil {
			if n := r.summary.LeftOut[""]; n > 0 {
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
