package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
)

// StatsOptions are the flags of `rooftool stats`.
type StatsOptions struct {
	IO     *IO
	Inputs []string
	Format string // table | csv | json; "" picks table on a terminal, csv otherwise
	Source string // restrict to ncu | nsys | kineto
}

func newStatsCmd(io *IO) *cobra.Command {
	opts := &StatsOptions{IO: io}
	c := &cobra.Command{
		Use:   "stats FILE...|DIR",
		Short: "Summarise kernels per NVTX range, like nsys stats -r cuda_gpu_kern_sum",
		Long: `Stats prints one line per (NVTX range, kernel): instances and total, average,
median, minimum and maximum duration in ns. Inputs are raw exports (ncu CSV,
nsys SQLite, Kineto JSON) or one directory of tables written by rooftool ingest
or rooftool profile (its tables/ folder).

Kernels come from the timeline (nsys, Kineto) when the input has one, else from
the ncu kernel pass (times from gpu__time_duration.sum); --source picks one.`,
		Example: `  rooftool stats testdata/realdata/gpu4/report.sqlite
  rooftool stats --format csv runs/2026-11-21-h100-1/tables`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Inputs = args
			return runStats(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "", "output format: table, csv or json (default: table on a terminal, else csv)")
	c.Flags().StringVar(&opts.Source, "source", "", "count only kernels from this source: ncu, nsys or kineto")
	return c
}

// loadTables reads raw exports, or one directory of ingested tables.
func loadTables(inputs []string) (*ingest.Tables, error) {
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			return ingest.ReadDir(tablesDir(inputs[0]), nil)
		}
	}
	var in []ingest.Input
	for _, p := range inputs {
		in = append(in, ingest.Input{Path: p})
	}
	return ingest.Files(in, nil)
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
		format = "csv"
		if opts.IO.IsTTY {
			format = "table"
		}
	}
	switch format {
	case "table", "csv", "json":
	default:
		return usageErrorf("stats: --format %q: want table, csv or json", opts.Format)
	}
	switch opts.Source {
	case "", ingest.SourceNCU, ingest.SourceNsys, ingest.SourceKineto:
	default:
		return usageErrorf("stats: --source %q: want ncu, nsys or kineto", opts.Source)
	}
	t, err := loadTables(opts.Inputs)
	if err != nil {
		return err
	}
	defer t.Release()
	rows := analysis.KernelSummary(analysis.SummarySource(t.Kernels(), opts.Source))
	switch format {
	case "csv":
		return writeStatsCSV(opts.IO.Out, rows)
	case "json":
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if rows == nil {
			rows = []analysis.SummaryRow{}
		}
		return enc.Encode(rows)
	}
	return writeStatsTable(opts.IO.Out, rows)
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func writeStatsCSV(w io.Writer, rows []analysis.SummaryRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"range", "name", "instances", "total_ns", "avg_ns", "med_ns", "min_ns", "max_ns"})
	for _, r := range rows {
		cw.Write([]string{r.Range, r.Name, strconv.Itoa(r.Instances), strconv.FormatInt(r.TotalNs, 10),
			fmtF(r.AvgNs), fmtF(r.MedNs), strconv.FormatInt(r.MinNs, 10), strconv.FormatInt(r.MaxNs, 10)})
	}
	cw.Flush()
	return cw.Error()
}

func writeStatsTable(w io.Writer, rows []analysis.SummaryRow) error {
	// Numbers right-aligned, range and name left-aligned, as nsys stats prints.
	head := []string{"Time(%)", "Total (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "Range", "Name"}
	var grand int64
	for _, r := range rows {
		grand += r.TotalNs
	}
	cells := [][]string{head}
	for _, r := range rows {
		pct := 0.0
		if grand > 0 {
			pct = 100 * float64(r.TotalNs) / float64(grand)
		}
		rng := r.Range
		if rng == "" {
			rng = "-"
		}
		name := r.Name
		if len(name) > 100 {
			name = name[:97] + "..."
		}
		cells = append(cells, []string{strconv.FormatFloat(pct, 'f', 1, 64), strconv.FormatInt(r.TotalNs, 10), strconv.Itoa(r.Instances),
			fmtF(r.AvgNs), fmtF(r.MedNs), strconv.FormatInt(r.MinNs, 10), strconv.FormatInt(r.MaxNs, 10), rng, name})
	}
	width := make([]int, len(head))
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	for _, row := range cells {
		var line []byte
		for i, c := range row {
			if i > 0 {
				line = append(line, "  "...)
			}
			if i < 7 {
				line = fmt.Appendf(line, "%*s", width[i], c)
			} else if i < len(row)-1 {
				line = fmt.Appendf(line, "%-*s", width[i], c)
			} else {
				line = append(line, c...)
			}
		}
		if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
			return err
		}
	}
	return nil
}
