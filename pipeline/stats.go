package pipeline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/stats"
)

// StatsProgress shows the work of the stats functions under way: a line
// described by what (Start), wiped (Stop), hooked to the parse of each
// input (Watch). Its methods may be called on a nil value that shows
// nothing.
type StatsProgress interface {
	Start(what string)
	Stop()
	Watch(inputs []ingest.Input)
}

// StatsRequest is what rooftool stats summarises: its inputs (raw exports
// or one directory of ingested tables), the source it counts (ncu, nsys,
// kineto; "" any) and the summary's options. Progress shows the work
// (nil: none); warnings go to Warn (nil: discarded).
type StatsRequest struct {
	Inputs   []string
	Source   string
	Options  stats.Options
	Progress StatsProgress
	Warn     io.Writer
}

func (r *StatsRequest) warnf(format string, a ...any) {
	if r.Warn != nil {
		fmt.Fprintf(r.Warn, format, a...)
	}
}

// StatsSummary summarises the kernels of the request's inputs batch by
// batch (stats.StreamSummary): a directory of tables as it is, raw exports
// once ingested into a temporary directory (detect.WriteTempKernels: the
// kernels table alone); nsys SQLite exports whose summary needs no NVTX
// range (StatsKernelsOnly) from their kernel tables and names alone. A
// summary without rows, or times that do not add up (*stats.TimeError),
// is bad input (*ingest.InputError) saying why; so is a directory without
// tables and an export given twice.
func StatsSummary(r *StatsRequest) (stats.Summary, error) {
	s, err := statsSummary(r)
	var te *stats.TimeError
	if errors.As(err, &te) {
		return stats.Summary{}, &ingest.InputError{File: strings.Join(r.Inputs, " "), Err: err}
	}
	if err != nil {
		return stats.Summary{}, err
	}
	if len(s.Rows) == 0 {
		return stats.Summary{}, &ingest.InputError{File: strings.Join(r.Inputs, " "), Err: errors.New(statsNothing(r))}
	}
	if s.NameFallbacks > 0 && r.Options.Names != stats.NamesDemangled {
		r.warnf("warning: %d kernel(s) have no %s name in the input: they are listed by their demangled name\n", s.NameFallbacks, r.Options.Names)
	}
	return s, nil
}

func statsSummary(r *StatsRequest) (stats.Summary, error) {
	progress, inputs, so := r.Progress, r.Inputs, r.Options
	if progress == nil {
		progress = noProgress{}
	}
	defer progress.Stop()
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			if err := checkTablesDir(inputs[0]); err != nil {
				return stats.Summary{}, err
			}
			progress.Start("summarising " + inputs[0])
			return stats.StreamSummary(tablesDirOf(inputs[0]), r.Source, so)
		}
	}
	if err := DistinctInputsOf("stats", inputs); err != nil {
		return stats.Summary{}, err
	}
	if StatsKernelsOnly(inputs, r.Source, so) {
		groups, warn, err := stats.NsysSummaryGroups(inputs, so, func(p string) { progress.Start("reading " + filepath.Base(p)) })
		progress.Stop()
		if err != nil {
			return stats.Summary{}, err
		}
		for _, m := range warn {
			r.warnf("warning: %s: %s\n", m.File, m.Value)
		}
		progress.Start("summarising")
		return stats.SummariseGroups(groups, so)
	}
	var in []ingest.Input
	for _, p := range inputs {
		in = append(in, ingest.Input{Path: p})
	}
	progress.Watch(in)
	tmp, err := detect.WriteTempKernels(in, "rooftool-stats-*")
	progress.Stop()
	if err != nil {
		return stats.Summary{}, err
	}
	defer tmp.Remove()
	for _, m := range tmp.Written.Warnings {
		r.warnf("warning: %s: %s\n", m.File, m.Value)
	}
	progress.Start("summarising")
	return stats.StreamSummary(tmp.Dir, r.Source, so)
}

// noProgress shows nothing.
type noProgress struct{}

func (noProgress) Start(string)         {}
func (noProgress) Stop()                {}
func (noProgress) Watch([]ingest.Input) {}

// statsNothing says why stats has no row to print: what the options left
// out, or inputs without kernels.
func statsNothing(r *StatsRequest) string {
	var why []string
	if r.Source != "" {
		why = append(why, "--source "+r.Source)
	}
	if r.Options.Range != "" {
		why = append(why, fmt.Sprintf("--range %q", r.Options.Range))
	}
	if r.Options.RangedOnly {
		why = append(why, "--ranged-only")
	}
	if len(why) == 0 {
		return "no kernels: the inputs hold no kernel launches to summarise"
	}
	return "no kernels with " + strings.Join(why, " and ") + ": nothing to summarise"
}

// StatsKernelsOnly reports whether stats can summarise the inputs from
// their kernel tables alone (stats.NsysSummaryGroups), as nsys stats -r
// cuda_gpu_kern_sum does: every input an nsys SQLite export, no other
// source, and either the flat report without range options or exports
// without NVTX ranges. Anything it cannot tell leaves the answer to the
// full ingest, which reports it.
func StatsKernelsOnly(inputs []string, source string, so stats.Options) bool {
	if source != "" && source != ingest.SourceNsys {
		return false
	}
	for _, p := range inputs {
		if f, err := detect.Format(p); err != nil || f != detect.FormatNsysDB {
			return false
		}
	}
	if so.Flat && so.Range == "" && !so.RangedOnly {
		return true
	}
	for _, p := range inputs {
		if ranged, err := nsys.HasRanges(p); err != nil || ranged {
			return false
		}
	}
	return true
}

// StatsReport is one report of `rooftool stats --report` once run: its
// table, and for cuda_gpu_kern_sum the kernel summary it was made from
// (whose JSON is stats.SummaryJSON; nil where nsys skips the report).
type StatsReport struct {
	Table   stats.ReportTable
	Summary *stats.Summary
}

// RunStatsReport runs report rep over the request's inputs. Every report
// but cuda_gpu_kern_sum reads one nsys SQLite export (bad input where the
// inputs are not that); cuda_gpu_kern_sum is skipped as nsys skips it
// where the one input is an nsys SQLite export without the tables it
// reads, else is the flat kernel summary of the inputs (StatsSummary).
func RunStatsReport(r *StatsRequest, rep *stats.Report) (StatsReport, error) {
	if rep.FromSummary {
		return statsKernSum(r, rep)
	}
	path, err := oneNsysExport(rep, r.Inputs)
	if err != nil {
		return StatsReport{}, err
	}
	if r.Progress != nil {
		r.Progress.Start(rep.Name + " " + filepath.Base(path))
		defer r.Progress.Stop()
	}
	t, err := stats.RunReport(rep, path, path, r.Options.Names)
	if err != nil {
		return StatsReport{}, err
	}
	return StatsReport{Table: t}, nil
}

// oneNsysExport is the one nsys SQLite export rep reads, or why the
// inputs are not that (bad input).
func oneNsysExport(rep *stats.Report, inputs []string) (string, error) {
	if len(inputs) != 1 {
		return "", &ingest.InputError{File: strings.Join(inputs, " "), Err: fmt.Errorf("--report %s reads one nsys SQLite export, not %d inputs", rep.Name, len(inputs))}
	}
	f, err := detect.Format(inputs[0])
	if err != nil {
		return "", err
	}
	if f != detect.FormatNsysDB {
		return "", &ingest.InputError{File: inputs[0], Err: fmt.Errorf("is %s: --report %s reads an nsys SQLite export (nsys export --type sqlite makes one of a report)", f, rep.Name)}
	}
	return inputs[0], nil
}

// statsKernSum runs cuda_gpu_kern_sum (RunStatsReport).
func statsKernSum(r *StatsRequest, rep *stats.Report) (StatsReport, error) {
	t := stats.ReportTable{Report: rep, Names: r.Options.Names}
	if len(r.Inputs) == 1 && (r.Source == "" || r.Source == ingest.SourceNsys) {
		if f, err := detect.Format(r.Inputs[0]); err == nil && f == detect.FormatNsysDB {
			tables, err := nsys.TableSet(r.Inputs[0])
			if err != nil {
				return StatsReport{}, err
			}
			if t.Skipped = rep.Skipped(r.Inputs[0], func(n string) bool { return tables[n] }); t.Skipped != "" {
				return StatsReport{Table: t}, nil
			}
		}
	}
	s, err := StatsSummary(r)
	if err != nil {
		return StatsReport{}, err
	}
	t.Rows = stats.KernelSummaryRows(s)
	return StatsReport{Table: t, Summary: &s}, nil
}

// WriteStatsReports writes the reports of `rooftool stats --report` to w
// in format (tableout.FormatTable, FormatCSV, FormatJSON), the table fit
// to width columns where width > 0; inputs are the inputs they were run
// over and top the --top that cut the kernel summary. CSV is what nsys
// stats --format csv prints after its first line: each report's CSV and
// an empty line (or its SKIPPED line and an empty line), the reports after
// the first each after nsys's line "Processing [FILE] with [REPORT.py]...".
// The table format puts each report under its title. JSON is one
// document per report, one after another.
func WriteStatsReports(w io.Writer, format string, width int, inputs []string, top int, reps []StatsReport) error {
	switch format {
	case tableout.FormatCSV:
		for i, r := range reps {
			if i > 0 {
				if _, err := fmt.Fprintf(w, "Processing [%s] with [%s.py]...\n", strings.Join(inputs, " "), r.Table.Report.Name); err != nil {
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
	if width > 0 {
		fw = tableout.NewFitWriter(w, width)
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
				if _, err := fmt.Fprintf(w, " ... %d more kernel(s) (--top %d)\n", n, top); err != nil {
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
