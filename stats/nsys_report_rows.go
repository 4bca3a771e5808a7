package stats

// The rows of each report (Reports): the groups ingest reads, summed as
// the report's SQL sums them, in the order its ORDER BY leaves them (SQLite
// sorts stably, so rows of equal keys keep the order of its GROUP BY).

import (
	"cmp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/rooftool/rooftool/ingest/nsys"
)

// text, intCell and null make cells.
func text(s string) Cell   { return Cell{Text: s} }
func intCell(v int64) Cell { return Cell{Text: strconv.FormatInt(v, 10)} }

var null = Cell{Null: true}

// durationCells are the eight figures of a duration report's row: Time
// (%), total, count, then Avg, Med, Min, Max and StdDev.
func durationCells(r Row) []Cell {
	return []Cell{text(fmt1(r.TimePct)), intCell(r.TotalNs), intCell(int64(r.Instances)), text(fmtStat(r.AvgNs)),
		text(fmtStat(r.MedNs)), intCell(r.MinNs), intCell(r.MaxNs), text(fmtStat(r.StdDevNs))}
}

// setShares sets each row's share of the rows' total time, as nsys's
// round(total * 100.0 / sum(total), 1) has it.
func setShares(rows []Row) {
	var total int64
	for _, r := range rows {
		total += r.TotalNs
	}
	for i := range rows {
		if total > 0 {
			rows[i].TimePct = float64(rows[i].TotalNs) * 100 / float64(total)
		}
	}
}

// byTotal sorts rows by total descending, stably.
func byTotal[T any](rows []T, total func(T) int64) {
	slices.SortStableFunc(rows, func(a, b T) int { return cmp.Compare(total(b), total(a)) })
}

// KernelSummaryRows are the rows of cuda_gpu_kern_sum from a flat kernel
// summary (Options.Flat), in its order.
func KernelSummaryRows(s Summary) [][]Cell {
	out := make([][]Cell, len(s.Rows))
	for i, r := range s.Rows {
		out[i] = append(durationCells(r), text(r.Name))
	}
	return out
}

// apiSumRows are cuda_api_sum's rows: the runtime calls by name id, the
// name without a version suffix (nsys's CASE substr(name, -6, 2) WHEN
// '_v': cudaLaunchKernel_v7000 is cudaLaunchKernel, while
// cudaStreamIsCapturing_v10000, whose suffix is seven characters long,
// stays as it is), ordered by total time descending.
func apiSumRows(path, _ string) ([][]Cell, error) {
	groups, err := nsys.CallGroups(path)
	if err != nil {
		return nil, err
	}
	type row struct {
		Row
		null bool
	}
	rows := make([]row, len(groups))
	sums := make([]Row, len(groups))
	for i, g := range groups {
		sums[i] = summarise("", apiName(g.Name), g.Durations)
	}
	setShares(sums)
	for i, g := range groups {
		rows[i] = row{sums[i], g.NameNull}
	}
	byTotal(rows, func(r row) int64 { return r.TotalNs })
	out := make([][]Cell, len(rows))
	for i, r := range rows {
		name := text(r.Name)
		if r.null {
			name = null
		}
		out[i] = append(durationCells(r.Row), name)
	}
	return out, nil
}

// apiName strips a version suffix of six characters ("_v" and four
// more) from a CUDA API name, as cuda_api_sum's SQL does (counting
// characters, as SQLite's substr does).
func apiName(s string) string {
	n := utf8.RuneCountInString(s)
	if n < 6 {
		return s
	}
	r := []rune(s)
	if r[n-6] == '_' && r[n-5] == 'v' {
		return string(r[:n-6])
	}
	return s
}

// memTimeSumRows are cuda_gpu_mem_time_sum's rows: memory operations by
// kind, ordered by total time descending.
func memTimeSumRows(path, _ string) ([][]Cell, error) {
	groups, err := nsys.MemGroups(path, false)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(groups))
	for i, g := range groups {
		rows[i] = summarise("", g.Name, g.Values)
	}
	setShares(rows)
	byTotal(rows, func(r Row) int64 { return r.TotalNs })
	out := make([][]Cell, len(rows))
	for i, r := range rows {
		out[i] = append(durationCells(r), text(r.Name))
	}
	return out, nil
}

// memSizeSumRows are cuda_gpu_mem_size_sum's rows: memory operations by
// kind, ordered by total bytes descending, the figures in MB (10^6
// bytes) with three decimals, as Python prints the unrounded values.
func memSizeSumRows(path, _ string) ([][]Cell, error) {
	groups, err := nsys.MemGroups(path, true)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(groups))
	for i, g := range groups {
		rows[i] = summarise("", g.Name, g.Values)
	}
	byTotal(rows, func(r Row) int64 { return r.TotalNs })
	mb := func(v float64) Cell { return text(strconv.FormatFloat(v/1e6, 'f', 3, 64)) }
	out := make([][]Cell, len(rows))
	for i, r := range rows {
		out[i] = []Cell{mb(float64(r.TotalNs)), intCell(int64(r.Instances)), mb(r.AvgNs), mb(r.MedNs), mb(float64(r.MinNs)),
			mb(float64(r.MaxNs)), mb(r.StdDevNs), text(r.Name)}
	}
	return out, nil
}

// nvtxKernSumRows are nvtx_kern_sum's rows: ordered by range name, PID,
// TID and total time descending (NULLs first), rows of equal keys in the
// order of nsys's GROUP BY (PID, TID, range, style, kernel name).
func nvtxKernSumRows(path, names string) ([][]Cell, error) {
	groups, err := nsys.RangeKernGroups(path, names)
	if err != nil {
		return nil, err
	}
	type row struct {
		g   *nsys.RangeKernGroup
		sum Row
	}
	rows := make([]row, len(groups))
	for i := range groups {
		rows[i] = row{&groups[i], summarise("", "", groups[i].Durations)}
		groups[i].Durations = nil
	}
	slices.SortFunc(rows, func(x, y row) int {
		a, b := x.g, y.g
		return cmp.Or(
			cmpNull(a.RangeNull, a.Range, b.RangeNull, b.Range),
			cmpNull(a.ThreadNull, a.PID, b.ThreadNull, b.PID),
			cmpNull(a.ThreadNull, a.TID, b.ThreadNull, b.TID),
			cmp.Compare(y.sum.TotalNs, x.sum.TotalNs),
			cmpNull(a.RangeNull, a.Style, b.RangeNull, b.Style),
			cmpNull(a.KernelNull, a.Kernel, b.KernelNull, b.Kernel))
	})
	out := make([][]Cell, len(rows))
	for i, r := range rows {
		g := r.g
		c := make([]Cell, 0, 13)
		if g.RangeNull {
			c = append(c, null, null)
		} else {
			c = append(c, text(g.Range), text(g.Style))
		}
		if g.ThreadNull {
			c = append(c, null, null)
		} else {
			c = append(c, intCell(g.PID), intCell(g.TID))
		}
		s := r.sum
		c = append(c, intCell(int64(g.Ranges)), intCell(int64(g.Kernels)), intCell(s.TotalNs), text(fmtStat(s.AvgNs)),
			text(fmtStat(s.MedNs)), intCell(s.MinNs), intCell(s.MaxNs), text(fmtStat(s.StdDevNs)))
		if g.KernelNull {
			c = append(c, null)
		} else {
			c = append(c, text(g.Kernel))
		}
		out[i] = c
	}
	return out, nil
}

// cmpNull compares two values either of which may be NULL, as SQLite
// orders them: NULL first.
func cmpNull[T cmp.Ordered](anull bool, a T, bnull bool, b T) int {
	switch {
	case anull && bnull:
		return 0
	case anull:
		return -1
	case bnull:
		return 1
	}
	return cmp.Compare(a, b)
}
