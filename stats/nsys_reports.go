package stats

// The reports of nsys stats that rooftool stats --report reproduces, one
// definition each (Reports): name, title, the tables read, nsys's
// columns, the checks that make nsys skip a report, and how the rows are
// made. The rows are nsys's byte for byte: its report scripts' SQL
// (nsys 2025.3.1), their figures rounded as SQLite rounds them
// (NsysRound1) and printed as Python prints them.

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/ingest/nsys"
)

// ColumnKind is how a report column's cells read: text, or a figure.
type ColumnKind int

// Column kinds.
const (
	ColText   ColumnKind = iota // left-aligned in the table, a string in JSON
	ColFigure                   // right-aligned with thousands separators, a number in JSON
	ColID                       // a process or thread id: right-aligned, a number in JSON
)

// ReportColumn is one column of a report: nsys's CSV header and its kind.
type ReportColumn struct {
	Name string
	Kind ColumnKind
}

// TableCheck is one check nsys makes before it runs a report: where the
// export has no Table, the report is skipped with Message, in which
// {FILE} stands for the export as named on the command line.
type TableCheck struct {
	Table, Message string
}

// Report is one report of nsys stats.
type Report struct {
	Name   string   // nsys's report name, as --report takes it
	Title  string   // nsys's display name, the header of the report's table
	Tables []string // the export's tables the report reads; no other is read
	// Columns are nsys's CSV header, in order.
	Columns []ReportColumn
	// Names: the report groups kernels by name, so --base and --mangled
	// apply (nsys's :base and :mangled).
	Names bool
	// FromSummary: the rows are the kernel summary's (KernelSummary with
	// Options.Flat), made from any input rooftool reads; the other
	// reports read one nsys SQLite export through rows.
	FromSummary bool
	// skip returns nsys's message for an export that lacks a table the
	// report needs ({FILE} standing for the export), "" where it has
	// them all; has says whether the export has a table.
	skip func(has func(table string) bool) string
	// rows reads the export at path and returns the report's rows in
	// nsys's order, names as Options.Names.
	rows func(path, names string) ([][]Cell, error)
}

// Cell is one cell of a report: its text as nsys's CSV prints it, or NULL
// (an empty CSV field, null in JSON).
type Cell struct {
	Text string
	Null bool
}

// figure columns that nsys's duration reports share.
func durationColumns(count string) []ReportColumn {
	return []ReportColumn{{"Time (%)", ColFigure}, {"Total Time (ns)", ColFigure}, {count, ColFigure}, {"Avg (ns)", ColFigure},
		{"Med (ns)", ColFigure}, {"Min (ns)", ColFigure}, {"Max (ns)", ColFigure}, {"StdDev (ns)", ColFigure}}
}

// nsys's messages for a missing table, as its report scripts word them.
const (
	skipStrings = "{FILE} file does not contain StringIds table."
	skipKernels = "{FILE} does not contain CUDA kernel data."
)

// Reports are the reports --report reproduces, in the order the help
// lists them.
var Reports = []Report{
	{
		Name:        SummaryReport,
		Title:       "CUDA GPU Kernel Summary",
		Tables:      []string{nsys.TableStrings, nsys.TableKernel},
		Columns:     append(durationColumns("Instances"), ReportColumn{"Name", ColText}),
		Names:       true,
		FromSummary: true,
		skip:        requireTables(TableCheck{nsys.TableStrings, skipStrings}, TableCheck{nsys.TableKernel, skipKernels}),
	},
	{
		Name:    "cuda_api_sum",
		Title:   "CUDA API Summary",
		Tables:  []string{nsys.TableStrings, nsys.TableRuntime},
		Columns: append(durationColumns("Num Calls"), ReportColumn{"Name", ColText}),
		skip: requireTables(TableCheck{nsys.TableStrings, skipStrings},
			TableCheck{nsys.TableRuntime, "{FILE} does not contain CUDA trace data."}),
		rows: apiSumRows,
	},
	{
		Name:   "nvtx_kern_sum",
		Title:  "NVTX Range Kernel Summary",
		Tables: []string{nsys.TableStrings, nsys.TableNVTX, nsys.TableKernel, nsys.TableRuntime},
		Columns: []ReportColumn{{"NVTX Range", ColText}, {"Style", ColText}, {"PID", ColID}, {"TID", ColID}, {"NVTX Inst", ColFigure},
			{"Kern Inst", ColFigure}, {"Total Time (ns)", ColFigure}, {"Avg (ns)", ColFigure}, {"Med (ns)", ColFigure},
			{"Min (ns)", ColFigure}, {"Max (ns)", ColFigure}, {"StdDev (ns)", ColFigure}, {"Kernel Name", ColText}},
		Names: true,
		skip: requireTables(TableCheck{nsys.TableStrings, skipStrings},
			TableCheck{nsys.TableNVTX, "{FILE} does not contain NV Tools Extension (NVTX) data."},
			TableCheck{nsys.TableKernel, skipKernels},
			TableCheck{nsys.TableRuntime, "{FILE} does not contain CUDA API data."}),
		rows: nvtxKernSumRows,
	},
	{
		Name:    "cuda_gpu_mem_time_sum",
		Title:   "CUDA GPU MemOps Summary (by Time)",
		Tables:  []string{nsys.TableMemcpy, nsys.TableCopyOp, nsys.TableMemset},
		Columns: append(durationColumns("Count"), ReportColumn{"Operation", ColText}),
		skip:    skipMemory,
		rows:    memTimeSumRows,
	},
	{
		Name:   "cuda_gpu_mem_size_sum",
		Title:  "CUDA GPU MemOps Summary (by Size)",
		Tables: []string{nsys.TableMemcpy, nsys.TableCopyOp, nsys.TableMemset},
		Columns: []ReportColumn{{"Total (MB)", ColFigure}, {"Count", ColFigure}, {"Avg (MB)", ColFigure}, {"Med (MB)", ColFigure},
			{"Min (MB)", ColFigure}, {"Max (MB)", ColFigure}, {"StdDev (MB)", ColFigure}, {"Operation", ColText}},
		skip: skipMemory,
		rows: memSizeSumRows,
	},
}

// requireTables skips a report at the first check whose table the export
// lacks, in order, as nsys checks them.
func requireTables(checks ...TableCheck) func(has func(string) bool) string {
	return func(has func(string) bool) string {
		for _, c := range checks {
			if !has(c.Table) {
				return c.Message
			}
		}
		return ""
	}
}

// skipMemory is the memory reports' check: copies need the names of
// their kinds, and one of the two tables must be there.
func skipMemory(has func(string) bool) string {
	switch {
	case has(nsys.TableMemcpy) && !has(nsys.TableCopyOp):
		return "{FILE} does not contain " + nsys.TableCopyOp + " table."
	case !has(nsys.TableMemcpy) && !has(nsys.TableMemset):
		return "{FILE} does not contain GPU memory data."
	}
	return ""
}

// ReportNames are the names --report takes, in Reports order.
func ReportNames() []string {
	out := make([]string, len(Reports))
	for i, r := range Reports {
		out[i] = r.Name
	}
	return out
}

// LookupReport returns the report named name, or an error naming
// the reports there are.
func LookupReport(name string) (*Report, error) {
	for i := range Reports {
		if Reports[i].Name == name {
			return &Reports[i], nil
		}
	}
	return nil, fmt.Errorf("unknown report %q: want %s", name, strings.Join(ReportNames(), ", "))
}

// Skipped returns nsys's SKIPPED message for the report over the export
// named file, whose tables are has: "" where the report runs.
func (r *Report) Skipped(file string, has func(table string) bool) string {
	if r.skip == nil {
		return ""
	}
	return strings.ReplaceAll(r.skip(has), "{FILE}", file)
}

// ReportTable is a report run over one export.
type ReportTable struct {
	Report *Report
	Names  string // the kernel names the rows group by, for reports that take Names
	// Skipped is nsys's message where it skips the report (the export
	// lacks a table it reads), "" where it ran.
	Skipped string
	Rows    [][]Cell
}

// RunReport runs r (not FromSummary) over the nsys SQLite export at
// path: skipped as nsys skips it where the export lacks a table it needs,
// file naming the export in the message as the command line named it.
func RunReport(r *Report, path, file, names string) (ReportTable, error) {
	t := ReportTable{Report: r, Names: names}
	if r.rows == nil {
		return t, fmt.Errorf("report %s: made from the kernel summary, not run over one export", r.Name)
	}
	tables, err := nsys.TableSet(path)
	if err != nil {
		return t, err
	}
	if t.Skipped = r.Skipped(file, func(n string) bool { return tables[n] }); t.Skipped != "" {
		return t, nil
	}
	t.Rows, err = r.rows(path, names)
	return t, err
}
