package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
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
	s, err := pipeline.StatsSummary(statsRequest(opts, so))
	if err != nil {
		return err
	}
	return writeData(opts.IO, format, tableout.Output{
		CSV:  stats.SummaryCSV(s.Rows, false),
		JSON: stats.NewSummaryJSON(s.Rows, so),
		Text: func(w io.Writer) error { return stats.WriteSummaryTable(w, s, opts.Top) },
	})
}

// statsRequest is what stats summarises with options so.
func statsRequest(opts *StatsOptions, so stats.Options) *pipeline.StatsRequest {
	return &pipeline.StatsRequest{Inputs: opts.Inputs, Source: opts.Source, Options: so,
		Progress: newWorkProgress(opts.IO), Warn: opts.IO.Err}
}
