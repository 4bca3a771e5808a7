package ncu

import (
	"cmp"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// Nsight Compute CSV exports.
//
// Three layouts are read, told apart by the header:
//
//   - raw page (--page raw): one row per profiled kernel (or range), a units
//     row after the header, one column per metric;
//   - details page (--page details) and the long --metrics export: one row
//     per (kernel, metric) with Section Name / Metric Name / Metric Unit /
//     Metric Value columns, optionally rule rows (Rule Name, Rule Type, Rule
//     Description, Estimated Speedup Type, Estimated Speedup) and a Body Item
//     Label. Rows may be shorter than the header (ncu leaves the rule columns
//     out of metric rows);
//   - the 2020-era long layout with a "Kernel Time" column (a wall-clock
//     timestamp of the launch, not a duration) and no Block/Grid/Device/CC.
//
// ==PROF==/==WARNING==/==ERROR== lines before, inside or after the table
// become meta rows (key PROF, WARNING, ERROR), as do process_name,
// host_name and layout (raw | long).
//
// Rows written:
//   - kernels: one per profiled kernel (ncu's ID is correlation_id), pass
//     Options.Pass, else "range" where Kernel Name is "range" or the NVTX
//     range itself (range replay), else "kernel". name is Kernel Name as
//     printed (ncu demangles by default; a mangled "_Z..." name also goes to
//     mangled), short_name from ShortName. grid/block from Grid Size /
//     Block Size, else launch__grid_dim_* / launch__block_dim_*; registers,
//     shared memory and duration from launch__registers_per_thread,
//     launch__shared_mem_per_block_static/_dynamic and
//     gpu__time_duration.sum (details page: Registers Per Thread, Static /
//     Dynamic Shared Memory Per Block, Duration); without either time
//     metric, duration is sm__cycles_elapsed.avg /
//     sm__cycles_elapsed.avg.per_second (a "warning" meta row says so),
//     and with neither it is null. A time that is not a number ("n/a",
//     empty), has no time unit or exceeds 2^62 ns is an error naming the
//     line and column. range / range_path come
//     from the NVTX push/pop column (innermost range; outermost first,
//     joined by "/"); a path of three or more ranges whose last looks like
//     a shape ("k=v,...") names experiment/variant/shape, which Options
//     override.
//   - metrics: every metric cell (raw page: every non-identity column; empty
//     cells, metrics ncu did not collect for that kernel, are left out) in
//     base units (units.go), converted by the unit the export states (the
//     raw page's units row, the long layouts' Metric Unit). A unit that is
//     not known, or a raw page with metric columns but no units row, is an
//     error naming the line and column. Details page: section is Section Name, with
//     ": <Body Item Label>" appended when there is one; a rule row becomes
//     metric "rule:<Rule Name>" with its estimated speedup in % as value and
//     "<Rule Type> (<Speedup Type>): <Description>" as text.
//   - gpus: one per device seen, from the CC column and the
//     device__attribute_* metrics (display_name, multiprocessor_count,
//     l2_cache_size, total_memory, max_gpu_frequency_khz / clock_rate,
//     max_mem_frequency_khz / memory_clock_rate, pci ids).

// Identity columns of ncu CSVs (everything else on the raw page is a metric;
// so is "Kernel Time", kept as a text metric).
const (
	ncuColID          = "ID"
	ncuColPID         = "Process ID"
	ncuColProcess     = "Process Name"
	ncuColHost        = "Host Name"
	ncuColKernel      = "Kernel Name"
	ncuColKernelTime  = "Kernel Time"
	ncuColContext     = "Context"
	ncuColStream      = "Stream"
	ncuColBlock       = "Block Size"
	ncuColGrid        = "Grid Size"
	ncuColDevice      = "Device"
	ncuColCC          = "CC"
	ncuColSection     = "Section Name"
	ncuColMetricName  = "Metric Name"
	ncuColMetricUnit  = "Metric Unit"
	ncuColMetricValue = "Metric Value"
	ncuColRuleName    = "Rule Name"
	ncuColRuleType    = "Rule Type"
	ncuColRuleDesc    = "Rule Description"
	ncuColSpeedupType = "Estimated Speedup Type"
	ncuColSpeedup     = "Estimated Speedup"
	ncuColBodyLabel   = "Body Item Label"
)

var ncuIdentityCols = map[string]bool{
	ncuColID: true, ncuColPID: true, ncuColProcess: true, ncuColHost: true, ncuColKernel: true,
	ncuColContext: true, ncuColStream: true, ncuColBlock: true,
	ncuColGrid: true, ncuColDevice: true, ncuColCC: true, ncuColSection: true,
	ncuColMetricName: true, ncuColMetricUnit: true, ncuColMetricValue: true,
	ncuColRuleName: true, ncuColRuleType: true, ncuColRuleDesc: true,
	ncuColSpeedupType: true, ncuColSpeedup: true, ncuColBodyLabel: true,
}

func ncuIsNVTXColumn(h string) bool {
	return strings.Contains(h, "Push/Pop_Range") || strings.Contains(h, "Start/Stop_Range")
}

// ncuKernel collects one kernel row and the facts its metrics state.
type ncuKernel struct {
	k            ingest.Kernel
	line         int
	idText       string
	durSet       bool
	durSOL       float64 // ns, from "Duration"
	durSOLSet    bool
	cycles       float64 // sm__cycles_elapsed.avg, cycles
	cycleRate    float64 // sm__cycles_elapsed.avg.per_second, Hz
	cyclesSet    bool
	cycleRateSet bool
	gpu          ingest.GPU
	gpuSeen      bool // any device__attribute_* or CC
	pciBus       int64
	pciDom       int64
	pciDev       int64
	pciSet       int             // bit mask of bus/domain/device seen
	metrics      []ingest.Metric // long layouts: collected before the kernel id is known
	hasDeviceCol bool
}

type ncuParser struct {
	b      *ingest.Builder
	path   string // as given, for errors
	file   string // base name, for rows
	opts   ingest.Options
	r      *ncuRecords
	hdr    []string
	col    map[string]int
	nvtx   int // column of the push/pop NVTX stack, -1 if none
	nvtxN  int // fields after the range name in each NVTX entry
	gpus   []ingest.GPU
	gpuIdx map[int32]int
	seen   map[[2]string]bool // meta key/value pairs already written
	short  map[string]string  // ShortName cache

	size           int64 // input size in bytes when known, else 0
	firstRowOffset int64 // csv input offset where the first kernel row starts
}

// Parse reads the ncu CSV export at in.Path into b, plain or gzipped (told
// by the gzip magic, not the name): a gzipped one is read through gzip and
// its rows name the file as it was before compression (File "x.csv" for
// "x.csv.gz"), so that a run's tables are the same from either.
func Parse(b *ingest.Builder, in ingest.Input) error {
	f, err := os.Open(in.Path)
	if err != nil {
		return &ingest.InputError{File: in.Path, Err: err}
	}
	defer f.Close()
	magic := make([]byte, 2)
	if n, _ := io.ReadFull(f, magic); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return &ingest.InputError{File: in.Path, Err: err}
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			return ingest.BadInput(in.Path, 0, "", "gzip: %v", err)
		}
		defer zr.Close()
		return parseNCU(b, in.Path, zr, in.Options)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return &ingest.InputError{File: in.Path, Err: err}
	}
	return parseNCU(b, in.Path, f, in.Options)
}

// parseNCU ingests an ncu CSV read from r; path names it in rows and errors.
func parseNCU(b *ingest.Builder, path string, r io.Reader, opts ingest.Options) error {
	p := &ncuParser{b: b, path: path, file: strings.TrimSuffix(filepath.Base(path), ".gz"), opts: opts, nvtx: -1,
		gpuIdx: map[int32]int{}, seen: map[[2]string]bool{}, short: map[string]string{}}
	switch x := r.(type) {
	case interface{ Size() int64 }: // bytes.Reader, strings.Reader
		p.size = x.Size()
	case *os.File:
		if st, err := x.Stat(); err == nil && st.Mode().IsRegular() {
			p.size = st.Size()
		}
	}
	p.r = newNCURecords(r)
	err := p.parse()
	// ncu's own messages are kept whether or not the table parsed.
	if err == nil {
		p.writeNotes()
		if opts.Replay > 0 {
			b.AddMeta(ingest.Meta{Source: ingest.SourceNCU, File: opts.Experiment + "/" + opts.Variant + "/" + p.file, Key: ingest.MetaRangeReplay, Value: strconv.Itoa(opts.Replay)})
		}
	}
	return err
}

func (p *ncuParser) errf(line int, format string, args ...any) error {
	return ingest.BadInput(p.path, line, "", format, args...)
}

// csvErr turns a CSV error into an InputError naming the line.
func (p *ncuParser) csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return p.errf(pe.Line, "malformed CSV: %v", pe.Err)
	}
	var tl *tooLongError
	if errors.As(err, &tl) {
		return p.errf(tl.Line, "%v", tl)
	}
	return &ingest.InputError{File: p.path, Err: fmt.Errorf("read ncu CSV: %w", err)}
}

func (p *ncuParser) lineOf() int { return p.r.recLine }

func (p *ncuParser) parse() error {
	hdr, err := p.r.Read()
	if err == io.EOF {
		return p.noTable()
	}
	if err != nil {
		return p.csvErr(err)
	}
	hdrLine := p.lineOf()
	p.hdr = append([]string(nil), hdr...)
	p.col = make(map[string]int, len(p.hdr))
	for i, h := range p.hdr {
		if j, dup := p.col[h]; dup {
			return p.errf(hdrLine, "duplicate column %q in the header (fields %d and %d): its values would be ambiguous", h, j+1, i+1)
		}
		p.col[h] = i
		if p.nvtx < 0 && strings.Contains(h, "Push/Pop_Range") {
			p.nvtx = i
			p.nvtxN = ncuNVTXTrailing(h)
		}
	}
	for _, need := range []string{ncuColID, ncuColKernel} {
		if _, ok := p.col[need]; !ok {
			return p.errf(hdrLine, "ncu CSV header has no %q column (header starts %s): expected a raw or details page export", need, ncuHeadPreview(p.hdr))
		}
	}
	_, hasName := p.col[ncuColMetricName]
	_, hasValue := p.col[ncuColMetricValue]
	switch {
	case hasName && hasValue:
		p.addMeta("layout", "long")
		return p.parseLong()
	case hasName || hasValue:
		return p.errf(hdrLine, "ncu CSV header has %q without %q", map[bool]string{true: ncuColMetricName, false: ncuColMetricValue}[hasName], map[bool]string{true: ncuColMetricValue, false: ncuColMetricName}[hasName])
	}
	p.addMeta("layout", "raw")
	return p.parseRaw()
}

func ncuHeadPreview(h []string) string {
	n := len(h)
	if n > 4 {
		n = 4
	}
	q := make([]string, n)
	for i := range q {
		q[i] = strconv.Quote(h[i])
	}
	s := strings.Join(q, ",")
	if len(h) > n {
		s += ",..."
	}
	return s
}

// noTable explains an export without a CSV table: an ncu error log, or an
// empty file.
func (p *ncuParser) noTable() error {
	for _, n := range p.r.notes {
		if n.Kind == "ERROR" {
			return p.errf(n.Line, "no CSV table: ncu reported an error: ==ERROR== %s", n.Text)
		}
	}
	if len(p.r.notes) == 0 {
		return p.errf(0, "empty file, expected an ncu CSV export (header starting with \"ID\")")
	}
	last := p.r.notes[len(p.r.notes)-1]
	return p.errf(last.Line, "no CSV table after ncu's messages: expected a header starting with \"ID\" (was --csv given, and did ncu profile any kernel?)")
}

func (p *ncuParser) writeNotes() {
	src := ingest.SourceNCU
	for _, n := range p.r.notes {
		p.b.AddMeta(ingest.Meta{Source: src, File: p.file, Key: n.Kind, Value: n.Text})
	}
	if p.r.dropped > 0 {
		p.b.AddMeta(ingest.Meta{Source: src, File: p.file, Key: "output_dropped", Value: strconv.Itoa(p.r.dropped)})
	}
}

// addMeta writes a key/value meta row once per file.
func (p *ncuParser) addMeta(key, value string) {
	k := [2]string{key, value}
	if p.seen[k] {
		return
	}
	p.seen[k] = true
	p.b.AddMeta(ingest.Meta{Source: ingest.SourceNCU, File: p.file, Key: key, Value: value})
}

// field returns rec[name] or "" when the column is absent or the row short.
func (p *ncuParser) field(rec []string, name string) string {
	if i, ok := p.col[name]; ok && i < len(rec) {
		return rec[i]
	}
	return ""
}

// identity fills the kernel's identity columns from a row.
func (p *ncuParser) identity(rec []string, line int) (*ncuKernel, error) {
	nk := &ncuKernel{line: line}
	k := &nk.k
	k.Source, k.File = ingest.SourceNCU, p.file
	id := strings.TrimSpace(p.field(rec, ncuColID))
	v, err := strconv.ParseInt(strings.ReplaceAll(id, ",", ""), 10, 64)
	if err != nil {
		return nil, p.errf(line, "column %q: %q is not an integer kernel id", ncuColID, id)
	}
	nk.idText = id
	k.CorrelationID = v
	// ncu has no timeline and no thread; the rest is unknown until a
	// column or metric states it.
	k.Null = ingest.NullStart | ingest.NullTID | ingest.NullDuration | ingest.NullLaunch
	opt := func(dst *int64, col string, bit ingest.Nulls) error {
		v, ok, err := p.optInt(rec, col, line)
		if !ok {
			k.Null |= bit
		}
		*dst = v
		return err
	}
	if err := opt(&k.PID, ncuColPID, ingest.NullPID); err != nil {
		return nil, err
	}
	if err := opt(&k.Context, ncuColContext, ingest.NullContext); err != nil {
		return nil, err
	}
	if err := opt(&k.Stream, ncuColStream, ingest.NullStream); err != nil {
		return nil, err
	}
	var dev int64
	if err := opt(&dev, ncuColDevice, ingest.NullDevice); err != nil {
		return nil, err
	}
	if dev < math.MinInt32 || dev > math.MaxInt32 {
		return nil, p.errf(line, "column %q: device %d out of range", ncuColDevice, dev)
	}
	k.Device = int32(dev)
	_, nk.hasDeviceCol = p.col[ncuColDevice]
	var ok bool
	if k.GridX, k.GridY, k.GridZ, ok, err = p.dim3(rec, ncuColGrid, line); err != nil {
		return nil, err
	} else if ok {
		k.Null &^= ingest.NullGrid
	}
	if k.BlockX, k.BlockY, k.BlockZ, ok, err = p.dim3(rec, ncuColBlock, line); err != nil {
		return nil, err
	} else if ok {
		k.Null &^= ingest.NullBlock
	}
	if cc := strings.TrimSpace(p.field(rec, ncuColCC)); cc != "" && cc != "n/a" {
		maj, min, ok := ncuParseCC(cc)
		if !ok {
			return nil, p.errf(line, "column %q: %q is not a compute capability like 9.0", ncuColCC, cc)
		}
		nk.gpu.CCMajor, nk.gpu.CCMinor = maj, min
		nk.gpuSeen = true
	}
	name := p.field(rec, ncuColKernel)
	k.Name = name
	if strings.HasPrefix(name, "_Z") {
		k.Mangled = name
		k.ShortName = name
	} else if sn, ok := p.short[name]; ok {
		k.ShortName = sn
	} else {
		k.ShortName = ingest.ShortName(name)
		p.short[name] = k.ShortName
	}
	if pn := p.field(rec, ncuColProcess); pn != "" {
		p.addMeta("process_name", pn)
	}
	if hn := p.field(rec, ncuColHost); hn != "" {
		p.addMeta("host_name", hn)
	}
	// NVTX push/pop stack.
	if p.nvtx >= 0 && p.nvtx < len(rec) {
		if st := ncuNVTXStack(rec[p.nvtx], p.nvtxN); len(st) > 0 {
			k.Range = st[len(st)-1]
			k.RangePath = strings.Join(st, "/")
			k.Experiment, k.Variant, k.Shape = ingest.CellFromPath(st, ingest.Options{})
		}
	}
	k.Experiment = cmp.Or(p.opts.Experiment, k.Experiment)
	k.Variant = cmp.Or(p.opts.Variant, k.Variant)
	k.Shape = cmp.Or(p.opts.Shape, k.Shape)
	switch {
	case p.opts.Pass != "":
		k.Pass = p.opts.Pass
	case ncuIsRangeRow(name, k.Range, k.RangePath):
		k.Pass = ingest.PassRange
	default:
		k.Pass = ingest.PassKernel
	}
	return nk, nil
}

// ncuIsRangeRow reports whether a row of a range-replay export stands for an
// NVTX range rather than a kernel: ncu prints "range" or the range's name in
// the Kernel Name column then.
func ncuIsRangeRow(name, rng, path string) bool {
	n := strings.TrimSpace(name)
	if n == "range" {
		return true
	}
	if rng == "" {
		return false
	}
	n = strings.TrimSuffix(n, "/")
	return n == rng || n == path
}

// optInt parses an optional integer column; ok is false when the column is
// absent, empty or n/a.
func (p *ncuParser) optInt(rec []string, col string, line int) (v int64, ok bool, err error) {
	s := strings.TrimSpace(p.field(rec, col))
	if s == "" || s == "n/a" {
		return 0, false, nil
	}
	f, ok := ncuParseNumber(s)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, p.errf(line, "column %q: %q is not an integer", col, s)
	}
	return int64(f), true, nil
}

// dim3 parses "(128, 1, 1)"; ok is false when the column is absent, empty
// or n/a.
func (p *ncuParser) dim3(rec []string, col string, line int) (x, y, z int32, ok bool, err error) {
	s := strings.TrimSpace(p.field(rec, col))
	if s == "" || s == "n/a" {
		return 0, 0, 0, false, nil
	}
	x, y, z, ok = ncuParseDim3(s)
	if !ok {
		return 0, 0, 0, false, p.errf(line, "column %q: %q is not a dimension like (128, 1, 1)", col, s)
	}
	return x, y, z, true, nil
}

func ncuParseDim3(s string) (x, y, z int32, ok bool) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return 0, 0, 0, false
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var v [3]int32
	for i, q := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(q), 10, 32)
		if err != nil || n < 0 {
			return 0, 0, 0, false
		}
		v[i] = int32(n)
	}
	return v[0], v[1], v[2], true
}

func ncuParseCC(s string) (maj, min int32, ok bool) {
	a, b, found := strings.Cut(s, ".")
	x, err1 := strconv.ParseInt(a, 10, 32)
	y := int64(0)
	var err2 error
	if found {
		y, err2 = strconv.ParseInt(b, 10, 32)
	}
	if err1 != nil || err2 != nil || x < 0 || y < 0 {
		return 0, 0, false
	}
	return int32(x), int32(y), true
}

// finish settles derived kernel columns and the device row. A kernel
// without gpu__time_duration.sum or Duration takes its time from
// sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second where both
// are there, and the file gets a warning meta row saying so; with neither
// its duration stays null.
func (p *ncuParser) finish(nk *ncuKernel) error {
	switch {
	case nk.durSet:
	case nk.durSOLSet:
		nk.k.DurationNs = int64(math.Round(nk.durSOL))
		nk.k.Null &^= ingest.NullDuration
	case nk.cyclesSet && nk.cycleRateSet:
		ns := nk.cycles / nk.cycleRate * 1e9
		if ns > ncuMaxDurationNs {
			return p.errf(nk.line, "kernel %s: time %s / %s = %g ns is out of range (more than 2^62 ns)", nk.idText, ncuMetricCycles, ncuMetricCycleRate, ns)
		}
		nk.k.DurationNs = int64(math.Round(ns))
		nk.k.Null &^= ingest.NullDuration
		p.addMeta("warning", fmt.Sprintf("kernel times from %s / %s: the export has no gpu__time_duration.sum", ncuMetricCycles, ncuMetricCycleRate))
	}
	if !nk.gpuSeen {
		return nil
	}
	dev := nk.k.Device
	if _, ok := p.gpuIdx[dev]; ok {
		return nil
	}
	g := nk.gpu
	g.Source, g.File, g.Device = ingest.SourceNCU, p.file, dev
	if nk.pciSet == 7 {
		g.Bus = fmt.Sprintf("%04x:%02x:%02x", nk.pciDom, nk.pciBus, nk.pciDev)
	}
	p.gpuIdx[dev] = len(p.gpus)
	p.gpus = append(p.gpus, g)
	return nil
}

func (p *ncuParser) writeGPUs() {
	for _, g := range p.gpus {
		p.b.AddGPU(g)
	}
}
