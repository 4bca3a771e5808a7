package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/stats"
)

// StatsOptions are the flags of `rooftool stats`.
type StatsOptions struct {
	IO         *IO
	Inputs     []string
	Format     string   // table | csv | json; "" is table
	Source     string   // restrict to ncu | nsys | kineto
	Base       bool     // group by base kernel names (nsys :base)
	Mangled    bool     // group by mangled kernel names (nsys :mangled)
	Range      string   // keep the NVTX range paths that match: glob or substring
	RangedOnly bool     // leave out the kernels outside every NVTX range
	Sort       string   // time | instances | name
	Top        int      // keep the first N kernels of each range; 0 keeps all
	Reports    []string // nsys stats reports to print exactly as nsys does (stats.Reports), in order
}

func newStatsCmd(io *IO) *cobra.Command {
	opts := &StatsOptions{IO: io}
	c := &cobra.Command{
		Use:   "stats FILE...|DIR",
		Short: "Summarise kernels per NVTX range, or print nsys stats reports exactly",
		Long: `Stats prints, per NVTX range path, the columns of nsys stats -r cuda_gpu_kern_sum:
Time (%), Total Time (ns), Instances, Avg, Med, Min, Max and StdDev (ns, sample
standard deviation) and Name (the demangled name; --base or --mangled as nsys's
:base and :mangled). Time (%) is the kernel's share of its range's kernel time;
over an export without NVTX ranges the rows are nsys's report, figure for figure.
Kernels outside every NVTX range (warm-up, say) form the range "-", shown last.

Inputs are raw exports (ncu CSV, nsys SQLite, Kineto JSON) or one directory of
tables written by rooftool ingest or rooftool profile (its tables/ folder).
Two exports with the same content (SHA-256) are refused: one export given
twice would count its kernels twice. Inputs without kernels, or options
that leave none, are bad input (exit 2), not an empty table.
Kernels come from the timeline (nsys, Kineto) when the input has one, else from
the ncu kernel pass (times from gpu__time_duration.sum); --source picks one.

--range keeps the ranges whose path matches PATTERN: a glob over the whole path
when it holds * ? or [ (a * spans slashes), else a substring; "-" selects the
kernels outside every range. The table shortens long range paths and names in
the middle, and on a terminal (or with --width N) fits its width, headers
wrapped and figures whole; CSV and JSON keep them whole. CSV has nsys's nine columns, then Range.

--report R prints nsys's report R instead, as nsys stats --report R --format csv
prints it after its first line, byte for byte (figures rounded as nsys's SQL
rounds them): cuda_gpu_kern_sum (every kernel together, from any input stats
reads), cuda_api_sum (CUDA API calls by name), nvtx_kern_sum (each kernel under
every NVTX range of its launching thread that holds its launching call),
cuda_gpu_mem_time_sum and cuda_gpu_mem_size_sum (memory copies and memsets by
kind). All but the first read one nsys SQLite export, and of it only the tables
they need; an export without one prints nsys's SKIPPED line. Several reports
(--report a,b or --report again) print one after another: in CSV each but the
first after nsys's line "Processing [FILE] with [R.py]...", in the table format
each under its title, in JSON one document each.

Where stderr is a terminal, one line there shows the export being read and its
kernels so far, then the summary under way, wiped before the output; in a pipe
nothing is added.`,
		Example: `  rooftool stats testdata/realdata/gpu4/report.sqlite
  rooftool stats --range 'gla/*' --ranged-only --top 5 runs/2026-11-21-h100-1/tables
  rooftool stats --format json --base report.nsys-rep
  rooftool stats --report cuda_api_sum,nvtx_kern_sum --format csv report.sqlite`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Inputs = args
			return runStats(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Format, "format", tableout.FormatTable, "output format: table, csv or json")
	f.StringVar(&opts.Source, "source", "", "count only kernels from this source: ncu, nsys or kineto")
	f.BoolVar(&opts.Base, "base", false, "group by base kernel names (nsys :base)")
	f.BoolVar(&opts.Mangled, "mangled", false, "group by mangled kernel names (nsys :mangled)")
	f.StringVar(&opts.Range, "range", "", "keep NVTX range paths matching this glob (whole path, * spans /) or substring; - is outside every range")
	f.BoolVar(&opts.RangedOnly, "ranged-only", false, "leave out the kernels outside every NVTX range")
	f.StringVar(&opts.Sort, "sort", stats.SortTime, "order of the kernels of a range: time, instances or name")
	f.IntVar(&opts.Top, "top", 0, "keep the first N kernels of each range (0: all)")
	f.StringSliceVar(&opts.Reports, "report", nil, "nsys stats report(s) to print exactly as nsys prints them: "+strings.Join(stats.ReportNames(), ", ")+" (several: a,b or --report again)")
	mustRegisterCompletion(c, "report", completeOneOf(stats.ReportNames()...))
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	mustRegisterCompletion(c, "source", completeOneOf(ingest.SourceNCU, ingest.SourceNsys, ingest.SourceKineto))
	mustRegisterCompletion(c, "sort", completeOneOf(stats.SortTime, stats.SortInstances, stats.SortName))
	return c
}

// loadTables reads raw exports, or one directory of ingested tables.
func loadTables(inputs []string) (*ingest.Tables, error) {
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			if err := checkTablesDir(inputs[0]); err != nil {
				return nil, err
			}
			return ingest.ReadDir(tablesDir(inputs[0]), nil)
		}
	}
	var in []ingest.Input
	for _, p := range inputs {
		in = append(in, ingest.Input{Path: p})
	}
	return detect.Files(in, nil)
}

// statsSummary summarises the kernels of the inputs batch by batch
// (stats.StreamSummary): a directory of tables as it is, raw exports
// once ingested into a temporary directory (detect.WriteTempKernels: the
// kernels table alone); nsys SQLite exports whose summary needs no NVTX
// range (statsKernelsOnly) from their kernel tables and names alone.
// Where stderr is a terminal, progress shows the kernels read and then
// that the summary is being made; it is wiped before anything else is
// printed.
func statsSummary(inputs []string, source string, so stats.Options, io *IO) (stats.Summary, error) {
	progress := newWorkProgress(io)
	defer progress.stop()
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			if err := checkTablesDir(inputs[0]); err != nil {
				return stats.Summary{}, err
			}
			progress.start("summarising " + inputs[0])
			return stats.StreamSummary(tablesDir(inputs[0]), source, so)
		}
	}
	if err := distinctInputs("stats", inputs); err != nil {
		return stats.Summary{}, err
	}
	if statsKernelsOnly(inputs, source, so) {
		groups, warn, err := stats.NsysSummaryGroups(inputs, so, func(p string) { progress.start("reading " + filepath.Base(p)) })
		progress.stop()
		if err != nil {
			return stats.Summary{}, err
		}
		for _, m := range warn {
			fmt.Fprintf(io.Err, "warning: %s: %s\n", m.File, m.Value)
		}
		progress.start("summarising")
		return stats.SummariseGroups(groups, so)
	}
	var in []ingest.Input
	for _, p := range inputs {
		in = append(in, ingest.Input{Path: p})
	}
	progress.watch(in)
	tmp, err := detect.WriteTempKernels(in, "rooftool-stats-*")
	progress.stop()
	if err != nil {
		return stats.Summary{}, err
	}
	defer tmp.Remove()
	for _, m := range tmp.Written.Warnings {
		fmt.Fprintf(io.Err, "warning: %s: %s\n", m.File, m.Value)
	}
	progress.start("summarising")
	return stats.StreamSummary(tmp.Dir, source, so)
}

// checkTablesDir fails with bad input (exit 2) when dir, given where export
// files or a directory of tables are expected, holds no kernels table in
// itself or in tables/. Tables that are there but unreadable are left to
// the reader (exit 1).
func checkTablesDir(dir string) error {
	for _, d := range []string{filepath.Join(dir, "tables"), dir} {
		for _, f := range []string{ingest.FormatParquet, ingest.FormatArrow} {
			if _, err := os.Stat(filepath.Join(d, ingest.TableKernels+"."+f)); err == nil {
				return nil
			}
		}
	}
	return &ingest.InputError{File: dir, Err: fmt.Errorf("is a directory without ingested tables (no %s.parquet or %s.arrow in it or in its tables/): give export files (ncu CSV, nsys SQLite, Kineto JSON) or a directory rooftool ingest or rooftool profile wrote",
		ingest.TableKernels, ingest.TableKernels)}
}

// tablesDir accepts a run directory (with tables/) or a tables directory.
func tablesDir(dir string) string {
	if st, err := os.Stat(dir + "/tables"); err == nil && st.IsDir() {
		return dir + "/tables"
	}
	return dir
}

func runStats(ctx context.Context, opts *StatsOptions) error {
	format := opts.Format
	if format == "" {
		format = tableout.FormatTable
	}
	if err := checkDataFormat("stats", format); err != nil {
		return err
	}
	switch opts.Source {
	case "", ingest.SourceNCU, ingest.SourceNsys, ingest.SourceKineto:
	default:
		return usageErrorf("stats: --source %q: want ncu, nsys or kineto", opts.Source)
	}
	so := stats.Options{Names: stats.NamesDemangled, Range: opts.Range,
		RangedOnly: opts.RangedOnly, Sort: opts.Sort, Top: opts.Top, Flat: len(opts.Reports) > 0}
	switch {
	case opts.Base && opts.Mangled:
		return usageErrorf("stats: --base and --mangled exclude each other")
	case opts.Base:
		so.Names = stats.NamesBase
	case opts.Mangled:
		so.Names = stats.NamesMangled
	}
	if err := so.Validate(); err != nil {
		return usageErrorf("stats: %v", err)
	}
	if len(opts.Reports) > 0 {
		return runStatsReports(opts, format, so)
	}
	s, err := statsSummary(opts.Inputs, opts.Source, so, opts.IO)
	var te *stats.TimeError
	if errors.As(err, &te) {
		return &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: err}
	}
	if err != nil {
		return err
	}
	if len(s.Rows) == 0 {
		return &ingest.InputError{File: strings.Join(opts.Inputs, " "), Err: errors.New(statsNothing(opts))}
	}
	if s.NameFallbacks > 0 && so.Names != stats.NamesDemangled {
		fmt.Fprintf(opts.IO.Err, "warning: %d kernel(s) have no %s name in the input: they are listed by their demangled name\n", s.NameFallbacks, so.Names)
	}
	return writeData(opts.IO, format, tableout.Output{
		CSV:  stats.SummaryCSV(s.Rows, false),
		JSON: stats.NewSummaryJSON(s.Rows, so),
		Text: func(w io.Writer) error { return stats.WriteSummaryTable(w, s, opts.Top) },
	})
}

// statsNothing says why stats has no row to print: what the options left
// out, or inputs without kernels.
func statsNothing(opts *StatsOptions) string {
	var why []string
	if opts.Source != "" {
		why = append(why, "--source "+opts.Source)
	}
	if opts.Range != "" {
		why = append(why, fmt.Sprintf("--range %q", opts.Range))
	}
	if opts.RangedOnly {
		why = append(why, "--ranged-only")
	}
	if len(why) == 0 {
		return "no kernels: the inputs hold no kernel launches to summarise"
	}
	return "no kernels with " + strings.Join(why, " and ") + ": nothing to summarise"
}
