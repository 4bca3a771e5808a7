package ncu

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// KernelMetrics is the kernel pass metric list (METHOD.md "How each number is
// measured"), chosen for few replay passes. An entry with '*' is expanded
// against `ncu --query-metrics`; names that the device does not know are
// dropped with a warning rather than failing the pass.
var KernelMetrics = []string{
	// time, cycles, clocks
	"gpu__time_duration.sum",
	"sm__cycles_elapsed.avg",
	"sm__cycles_elapsed.avg.per_second",
	"dram__cycles_elapsed.avg.per_second",
	"lts__cycles_elapsed.avg.per_second",   // L2 clock: the L2 roof is peak bytes/cycle x this
	"l1tex__cycles_elapsed.avg.per_second", // L1 clock, likewise
	// bytes per level
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"lts__t_bytes.sum",
	"l1tex__t_bytes.sum",
	"l1tex__m_xbar2l1tex_read_bytes.sum", // TMA loads bypass l1tex__t on Hopper
	// SASS floating-point instruction counts (thread level)
	"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
	// tensor core operations (count wgmma on Hopper)
	// (names as `ncu --query-metrics` lists them on an H200 with ncu 2025.3:
	// fp16 and fp8 carry no _dst_ suffix there)
	"sm__ops_path_tensor_src_bf16_dst_fp32.sum",
	"sm__ops_path_tensor_src_fp16.sum",
	"sm__ops_path_tensor_src_fp8.sum",
	"sm__ops_path_tensor_src_tf32_dst_fp32.sum",
	// speed of light
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
	"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	// this device's own ceilings (per cycle; times the clock above)
	"dram__bytes.sum.peak_sustained",
	"lts__t_bytes.sum.peak_sustained",
	"l1tex__t_bytes.sum.peak_sustained",
	"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
	"sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
	// what limits a kernel (the report's kernel quality table): L2 hit rate,
	// tensor-pipe and issue-slot utilisation, and the warp stall reasons as
	// cycles per issued instruction (ncu's WarpStateStats section reads the same)
	"lts__t_sector_hit_rate.pct",
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", // every tensor-pipe type, wgmma included
	"smsp__issue_active.avg.pct_of_peak_sustained_active",
	"smsp__average_warps_active_per_issue_active.ratio",
	"smsp__average_warps_issue_stalled_*.ratio",
	// launch configuration and device
	"launch__grid_size",
	"launch__block_size",
	"launch__registers_per_thread",
	"device__attribute_display_name",
	"device__attribute_multiprocessor_count",
	"device__attribute_l2_cache_size",
}

// RangeMetrics is the range pass metric list: bytes of the whole NVTX range.
var RangeMetrics = []string{
	"gpu__time_duration.sum",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"lts__t_bytes.sum",
	"dram__cycles_elapsed.avg.per_second",
	"sm__cycles_elapsed.avg.per_second",
}

// counterPrefixes are the metric families `ncu --query-metrics` lists.
var counterPrefixes = []string{"sm__", "smsp__", "dram__", "lts__", "l1tex__", "gpu__"}

// QueryMetrics returns the metric base names the device's ncu knows.
func QueryMetrics(ctx context.Context, ncu string) ([]string, error) {
	cctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, ncu, "--query-metrics").CombinedOutput()
	if err != nil {
		return nil, err
	}
	return ParseQueryMetrics(out), nil
}

var metricNameRE = regexp.MustCompile(`^[a-z0-9]+__[a-z0-9_]+$`)

// ParseQueryMetrics reads the first column of `ncu --query-metrics`.
func ParseQueryMetrics(out []byte) []string {
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && metricNameRE.MatchString(f[0]) {
			names = append(names, f[0])
		}
	}
	sort.Strings(names)
	return names
}

// ExpandMetrics expands '*' entries against the device's base names and
// drops counters it does not list. With no list (query failed) only the
// '*' entries are dropped. The dropped names come back as warnings.
func ExpandMetrics(want, available []string) (out, dropped []string) {
	have := map[string]bool{}
	for _, a := range available {
		have[a] = true
	}
	seen := map[string]bool{}
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, m := range want {
		base, suffix, _ := strings.Cut(m, ".")
		if suffix != "" {
			suffix = "." + suffix
		}
		if strings.Contains(base, "*") {
			prefix := strings.TrimSuffix(base, "*")
			n := 0
			for _, a := range available {
				if strings.HasPrefix(a, prefix) {
					add(a + suffix)
					n++
				}
			}
			if n == 0 {
				dropped = append(dropped, m)
			}
			continue
		}
		if len(available) > 0 && !have[base] && hasCounterPrefix(base) {
			dropped = append(dropped, m)
			continue
		}
		add(m)
	}
	return out, dropped
}

func hasCounterPrefix(s string) bool {
	for _, p := range counterPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

var missingMetricRE = regexp.MustCompile(`(?i)failed to find metric[s]?\s+(?:regex:)?"?([A-Za-z0-9_.]+)`)

// MissingMetrics finds the metrics ncu rejected in its output.
func MissingMetrics(out string) []string {
	var names []string
	for _, m := range missingMetricRE.FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	return names
}

var (
	profRE    = regexp.MustCompile(`==PROF== Profiling "(.*)" - (\d+):.*?(\d+) pass`)
	appPassRE = regexp.MustCompile(`==PROF== Profiling "(.*)" - (\d+): Application replay pass (\d+)`)
)

// ReplayPasses reads ncu's "==PROF== Profiling "k" - 3: 0%....100% - 9 passes"
// lines, and for app-range replay its "... - 0: Application replay pass 2"
// lines (one per pass): result ID -> passes.
func ReplayPasses(log string) map[int]int {
	out := map[int]int{}
	for _, l := range strings.Split(log, "\n") {
		if m := appPassRE.FindStringSubmatch(l); m != nil {
			id, _ := strconv.Atoi(m[2])
			p, _ := strconv.Atoi(m[3])
			out[id] = max(out[id], p)
		} else if m := profRE.FindStringSubmatch(l); m != nil {
			id, _ := strconv.Atoi(m[2])
			p, _ := strconv.Atoi(m[3])
			out[id] = p
		}
	}
	return out
}

// ErrorLines returns ncu's ==ERROR== lines (e.g. ERR_NVGPUCTRPERM).
func ErrorLines(log string) string {
	var ls []string
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "==ERROR==") {
			ls = append(ls, l)
		}
	}
	if len(ls) > 4 {
		ls = ls[:4]
	}
	return strings.Join(ls, " | ")
}

// Row is one result row of an ncu raw CSV.
type Row struct {
	ID   int
	Name string
	Cell string // cell key "variant/shape", "" if not attributed
	Line []byte // the line as ncu wrote it
}

// Split is an ncu raw CSV split by cell.
type Split struct {
	Header  [][]byte // header line(s): column names and, if present, units
	Rows    []Row
	HasNVTX bool // the CSV carries an NVTX push/pop column
}

// CellCSV returns the header plus the rows of one cell, byte for byte as
// ncu wrote them.
func (s *Split) CellCSV(cell string) []byte {
	var b bytes.Buffer
	for _, h := range s.Header {
		b.Write(h)
		b.WriteByte('\n')
	}
	for _, r := range s.Rows {
		if r.Cell == cell {
			b.Write(r.Line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// SplitCSV splits an ncu --csv --page raw export by the NVTX push/pop stack
// each row carries: a row belongs to the cell whose experiment, variant and
// shape all occur in it as whole words. cells are "variant/shape" keys.
func SplitCSV(data []byte, exp string, cells []string) (*Split, error) {
	s := &Split{}
	lines := bytes.Split(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n"))
	var header []string
	idCol, nameCol := -1, -1
	var nvtxCols []int
	for _, line := range lines {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || bytes.HasPrefix(t, []byte("==")) {
			continue
		}
		rec, err := parseCSVLine(line)
		if err != nil || len(rec) == 0 {
			continue
		}
		if header == nil {
			if strings.TrimSpace(rec[0]) != "ID" {
				continue
			}
			header = rec
			s.Header = append(s.Header, line)
			for i, h := range rec {
				lh := strings.ToLower(h)
				switch {
				case h == "ID":
					idCol = i
				case h == "Kernel Name":
					nameCol = i
				case strings.Contains(lh, "push/pop") || strings.Contains(lh, "push_pop") || strings.Contains(lh, "pushpop") || strings.HasPrefix(lh, "nvtx"):
					nvtxCols = append(nvtxCols, i)
				}
			}
			s.HasNVTX = len(nvtxCols) > 0
			continue
		}
		id, err := strconv.Atoi(strings.TrimSpace(rec[idCol]))
		if err != nil {
			// units row (first field empty) or anything else before data
			if len(s.Rows) == 0 {
				s.Header = append(s.Header, line)
			}
			continue
		}
		r := Row{ID: id, Line: line}
		if nameCol >= 0 && nameCol < len(rec) {
			r.Name = rec[nameCol]
		}
		var stack strings.Builder
		for _, c := range nvtxCols {
			if c < len(rec) {
				stack.WriteString(rec[c])
				stack.WriteByte('\n')
			}
		}
		r.Cell = matchCell(stack.String(), exp, cells)
		s.Rows = append(s.Rows, r)
	}
	if header == nil {
		return s, errNoHeader
	}
	return s, nil
}

type splitError string

func (e splitError) Error() string { return string(e) }

const errNoHeader = splitError(`no CSV header (a line starting with "ID") in the ncu output`)

func parseCSVLine(line []byte) ([]string, error) {
	r := csv.NewReader(bytes.NewReader(line))
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	return r.Read()
}

// matchCell returns the one cell whose names all occur in stack as words.
func matchCell(stack, exp string, cells []string) string {
	if stack == "" || !containsWord(stack, exp) {
		return ""
	}
	found := ""
	for _, c := range cells {
		v, sh, _ := strings.Cut(c, "/")
		if containsWord(stack, v) && containsWord(stack, sh) {
			if found != "" {
				return "" // ambiguous
			}
			found = c
		}
	}
	return found
}

// containsWord reports whether w occurs in s with no name character
// (letter, digit, '_', '-', '.', '=', ',') on either side.
func containsWord(s, w string) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !nameChar(s[a-1])) && (b == len(s) || !nameChar(s[b])) {
			return true
		}
		i = a + 1
	}
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-.=,", c) >= 0
}

// SumMetrics sums the named metrics over the result rows of an ncu
// --csv --page raw export, in base units (ns, byte) whatever units its
// units row names, and counts the rows. A metric with no column or no
// number is left out.
func SumMetrics(data []byte, names ...string) (map[string]float64, int, error) {
	rows := 0
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var cols map[string]int
	scale := map[string]float64{}
	out := map[string]float64{}
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "==") {
			continue
		}
		rec, err := parseCSVLine([]byte(line))
		if err != nil || len(rec) == 0 {
			continue
		}
		if cols == nil {
			if strings.TrimSpace(rec[0]) != "ID" {
				continue
			}
			cols = map[string]int{}
			for i, h := range rec {
				for _, n := range names {
					if h == n {
						cols[n] = i
						scale[n] = 1
					}
				}
			}
			continue
		}
		if strings.TrimSpace(rec[0]) == "" { // the units row
			for n, i := range cols {
				if i < len(rec) {
					f, err := unitScale(rec[i])
					if err != nil {
						return nil, 0, fmt.Errorf("%s: %w", n, err)
					}
					scale[n] = f
				}
			}
			continue
		}
		if _, err := strconv.Atoi(strings.TrimSpace(rec[0])); err != nil {
			continue
		}
		rows++
		for n, i := range cols {
			if i >= len(rec) {
				continue
			}
			v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(rec[i]), ",", ""), 64)
			if err != nil {
				continue // n/a: not collected for this row
			}
			out[n] += v * scale[n]
		}
	}
	if cols == nil {
		return nil, 0, errNoHeader
	}
	return out, rows, nil
}

// unitScale converts ncu's time and byte units to ns and bytes.
func unitScale(u string) (float64, error) {
	switch strings.TrimSpace(u) {
	case "", "ns", "nsecond", "byte":
		return 1, nil
	case "us", "usecond":
		return 1e3, nil
	case "ms", "msecond":
		return 1e6, nil
	case "s", "second":
		return 1e9, nil
	case "Kbyte", "KB":
		return 1e3, nil
	case "Mbyte", "MB":
		return 1e6, nil
	case "Gbyte", "GB":
		return 1e9, nil
	case "Tbyte", "TB":
		return 1e12, nil
	case "KiB":
		return 1 << 10, nil
	case "MiB":
		return 1 << 20, nil
	case "GiB":
		return 1 << 30, nil
	}
	return 0, fmt.Errorf("unit %q: not a time or byte unit", u)
}
