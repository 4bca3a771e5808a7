package ncu

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// ncuRawCol is one metric column of a raw page.
type ncuRawCol struct {
	j       int     // field index
	name    int     // dictionary index of the metric name
	role    ncuRole // kernel/gpu column the metric also fills
	conv    unitConv
	printed string // unit as printed in the units row
	unit    int    // dictionary index of conv.base
	nonNeg  bool   // a duration or count: a negative value is impossible
}

// A raw page is parsed by two goroutines: one reads CSV records and parses
// the numbers (rawProduce), the caller appends the rows to the Arrow
// builders. Batches of rows travel between them and are recycled.
type rawText struct {
	pos int    // index in the row's metric slices
	s   string // text value, resolved to a dictionary index by the consumer
}

type rawRow struct {
	k     ingest.Kernel
	idx   [4][]int // section, metric, unit, text (text before rawText fixes)
	vals  []float64
	valid []bool // nil: every value present
	texts []rawText
}

type rawBatch struct {
	rows    []rawRow
	vals    []float64 // arenas the rows slice into
	valid   []bool
	texts   []rawText
	reserve int // metric rows to reserve before the first row (first batch only)
}

const rawBatchRows = 32

// parseRaw reads a --page raw export: one row per kernel, one column per
// metric, a units row after the header.
func (p *ncuParser) parseRaw() error {
	mb, err := p.b.MetricAppender()
	if err != nil {
		return err
	}
	var cols []ncuRawCol
	for j, h := range p.hdr {
		if ncuIdentityCols[h] || ncuIsNVTXColumn(h) {
			continue
		}
		cols = append(cols, ncuRawCol{j: j, role: ncuRoles[h], name: mb.Index(ingest.MetricsMetric, h)})
	}
	full := make(chan *rawBatch, 4)
	free := make(chan *rawBatch, 8)
	var perr error
	go func() {
		defer close(full)
		perr = p.rawProduce(mb, cols, full, free)
	}()
	rows := 0
	var textIdx []int
	for bt := range full {
		if bt.reserve > 0 {
			mb.Reserve(bt.reserve)
		}
		for i := range bt.rows {
			r := &bt.rows[i]
			idx := r.idx
			if len(r.texts) > 0 {
				textIdx = append(textIdx[:0], idx[ingest.MetricsText]...)
				for _, t := range r.texts {
					textIdx[t.pos] = mb.Index(ingest.MetricsText, t.s)
				}
				idx[ingest.MetricsText] = textIdx
			}
			mb.AppendRows(p.b.AddKernel(r.k), idx, r.vals, r.valid)
			rows++
		}
		select {
		case free <- bt:
		default:
		}
	}
	if perr != nil {
		return perr
	}
	if rows == 0 {
		return p.errf(p.r.line, "ncu CSV has a header but no kernel rows")
	}
	p.writeGPUs()
	return nil
}

// ncuRowSeen is what a raw page's earlier row of a kernel ID left: hashes
// of its kernel name and of its whole row, and its line.
type ncuRowSeen struct {
	name, row uint64
	line      int
}

// ncuRawIDs tells a raw page's repeated kernel IDs apart: a row equal to
// an earlier row of its ID is the same profile written twice, counted once
// with a warning; another kernel name, or the same kernel with other
// values, under one ID is an error (two profiles the export cannot tell
// apart).
type ncuRawIDs struct {
	seen      map[string]ncuRowSeen
	dups      int
	firstDup  int // line of the first repeated row
	firstOrig int // line of the row it repeats
}

// ncuHash is FNV-1a over the fields, each followed by a 0 byte.
func ncuHash(fields ...string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, f := range fields {
		for i := 0; i < len(f); i++ {
			h = (h ^ uint64(f[i])) * prime
		}
		h *= prime // the 0 separator: h ^ 0 == h
	}
	return h
}

// check reports whether rec repeats an earlier row exactly (skip it), or
// an error where its ID was seen with another kernel or other values.
func (d *ncuRawIDs) check(p *ncuParser, rec []string, line int) (bool, error) {
	id := strings.TrimSpace(rec[p.col[ncuColID]])
	name := p.field(rec, ncuColKernel)
	cur := ncuRowSeen{name: ncuHash(name), row: ncuHash(rec...), line: line}
	prev, ok := d.seen[id]
	switch {
	case !ok:
		d.seen[id] = cur
		return false, nil
	case prev.row == cur.row:
		if d.dups == 0 {
			d.firstDup, d.firstOrig = line, prev.line
		}
		d.dups++
		return true, nil
	case prev.name != cur.name:
		return false, p.errf(line, "kernel ID %s names another kernel (%q) than at line %d: two kernels share one ID, so their metrics cannot be told apart", id, name, prev.line)
	}
	return false, p.errf(line, "kernel ID %s (%q) appears again with other values than at line %d: two profiles of one ID cannot be told apart", id, name, prev.line)
}

// warn writes a warning meta row where rows were repeated.
func (d *ncuRawIDs) warn(p *ncuParser) {
	if d.dups > 0 {
		p.addMeta("warning", fmt.Sprintf("%d rows repeat an earlier row of the same kernel ID exactly (the first at line %d repeats line %d): each kernel counted once", d.dups, d.firstDup, d.firstOrig))
	}
}

// ncuMetricDups finds a long layout's metrics given twice for one kernel
// (same section and name): with the same value, the same row written
// twice, kept once with a warning; with another value, an error, since
// the kernel's figure would be whichever came last.
type ncuMetricDups struct {
	order []int
	dups  int
	first string // the first repeated metric, "kernel ID: name"
}

func (d *ncuMetricDups) check(p *ncuParser, nk *ncuKernel) error {
	ms := nk.metrics
	if len(ms) < 2 {
		return nil
	}
	d.order = d.order[:0]
	for i := range ms {
		d.order = append(d.order, i)
	}
	slices.SortStableFunc(d.order, func(a, b int) int {
		if c := strings.Compare(ms[a].Section, ms[b].Section); c != 0 {
			return c
		}
		return strings.Compare(ms[a].Name, ms[b].Name)
	})
	var drop map[int]bool // the repeats, made at the first
	for j := 1; j < len(d.order); j++ {
		a, b := &ms[d.order[j-1]], &ms[d.order[j]]
		if a.Section != b.Section || a.Name != b.Name {
			continue
		}
		if a.Value != b.Value || a.Valid != b.Valid || a.Text != b.Text || a.Unit != b.Unit {
			return p.errf(nk.line, "kernel %s (%q): metric %q%s given twice with different values (%s and %s): which one the kernel has cannot be told",
				nk.idText, nk.k.Name, a.Name, sectionSuffix(a.Section), metricText(*a), metricText(*b))
		}
		if d.dups == 0 {
			d.first = fmt.Sprintf("kernel %s: %s", nk.idText, a.Name)
		}
		d.dups++
		if drop == nil {
			drop = map[int]bool{}
		}
		drop[d.order[j]] = true
	}
	if len(drop) > 0 {
		kept := ms[:0]
		for i, m := range ms {
			if !drop[i] {
				kept = append(kept, m)
			}
		}
		nk.metrics = kept
	}
	return nil
}

func (d *ncuMetricDups) warn(p *ncuParser) {
	if d.dups > 0 {
		p.addMeta("warning", fmt.Sprintf("%d metric rows repeat an earlier row of the same kernel and metric exactly (the first: %s): each kept once", d.dups, d.first))
	}
}

func sectionSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " (section " + s + ")"
}

func metricText(m ingest.Metric) string {
	if !m.Valid {
		return fmt.Sprintf("%q", m.Text)
	}
	return fmt.Sprintf("%g %s", m.Value, m.Unit)
}

// ncuEmptyPattern caches the metric index slices for rows that leave the
// same metric cells empty (e.g. launch__kernel_name on every B200 row).
// Its slices are never modified once built: batches in flight refer to them.
type ncuEmptyPattern struct {
	present []bool   // per column: cell holds a value
	idx     [4][]int // section, metric, unit, text indices of the present cells
}

func (q *ncuEmptyPattern) matches(present []bool) bool {
	if q.present == nil {
		return false
	}
	for i, v := range present {
		if v != q.present[i] {
			return false
		}
	}
	return true
}

func (q *ncuEmptyPattern) build(present []bool, cols []ncuRawCol, secIdx, emptyText int) {
	q.present = append([]bool(nil), present...)
	var idx [4][]int
	for i, v := range present {
		if !v {
			continue
		}
		idx[ingest.MetricsSection] = append(idx[ingest.MetricsSection], secIdx)
		idx[ingest.MetricsMetric] = append(idx[ingest.MetricsMetric], cols[i].name)
		idx[ingest.MetricsUnit] = append(idx[ingest.MetricsUnit], cols[i].unit)
		idx[ingest.MetricsText] = append(idx[ingest.MetricsText], emptyText)
	}
	q.idx = idx
}

// reserveEstimate estimates, after the first kernel row, how many metric
// rows the whole input holds (from its size, when known).
func (p *ncuParser) reserveEstimate(perRow int) int {
	if p.size <= 0 || perRow == 0 {
		return 0
	}
	used := p.r.InputOffset()
	rowBytes := used - p.firstRowOffset
	if rowBytes <= 0 || used >= p.size {
		return 0
	}
	n := (p.size-used)/rowBytes*int64(perRow) + int64(perRow)
	const maxReserve = 1 << 25 // 32M rows, about 1 GB of column buffers
	if n > maxReserve {
		n = maxReserve
	}
	return int(n)
}

// ncuEmitted stands in byID for a kernel that parseLong has handed on.
var ncuEmitted = &ncuKernel{}

// parseLong reads the details page and the long --metrics export: one row
// per (kernel, metric), rule rows, ragged rows. Kernels are added in the
// order their IDs first appear, each with its metrics. A streaming Builder
// gets a kernel (and its metrics) once more than BatchRows metric rows of
// kernels before the current row's are held, so a long export of any size
// is read in bounded memory; ncu writes each kernel's rows together, and a
// kernel whose rows come back after it was handed on is an error there.
func (p *ncuParser) parseLong() error {
	need := []string{ncuColID, ncuColKernel, ncuColMetricName, ncuColMetricValue}
	minLen := 0
	for _, n := range need {
		if i := p.col[n]; i+1 > minLen {
			minLen = i + 1
		}
	}
	_, hasKernelTime := p.col[ncuColKernelTime]
	type openKernel struct {
		id string
		nk *ncuKernel
	}
	var open []openKernel // first-seen order, not yet added
	byID := map[string]*ncuKernel{}
	held, seen := 0, 0 // metric rows in open; kernels seen
	var dups ncuMetricDups
	defer dups.warn(p)
	add := func(nk *ncuKernel) error {
		held -= len(nk.metrics)
		if err := dups.check(p, nk); err != nil {
			return err
		}
		if err := p.finish(nk); err != nil {
			return err
		}
		id := p.b.AddKernel(nk.k)
		for _, m := range nk.metrics {
			m.KernelID = id
			p.b.AddMetric(m)
		}
		nk.metrics = nil
		return nil
	}
	convs := map[string]unitConv{}
	idCol := p.col[ncuColID]
	for {
		rec, err := p.r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return p.csvErr(err)
		}
		line := p.lineOf()
		if len(rec) > len(p.hdr) {
			return p.errf(line, "row has %d fields, header has %d", len(rec), len(p.hdr))
		}
		if len(rec) < minLen {
			return p.errf(line, "truncated row: %d fields, the %q column is field %d", len(rec), ncuColMetricValue, p.col[ncuColMetricValue]+1)
		}
		id := strings.TrimSpace(rec[idCol])
		if id == "" {
			return p.errf(line, "row has an empty %q: expected a kernel id", ncuColID)
		}
		nk := byID[id]
		if nk == ncuEmitted {
			return p.errf(line, "rows of kernel %s come back after %d metric rows of later kernels; streaming needs each kernel's rows together (ingest with --table-format arrow to read the export whole)", id, ingest.BatchRows())
		}
		if nk != nil && p.field(rec, ncuColKernel) != nk.k.Name {
			return p.errf(line, "kernel ID %s names another kernel (%q) than at line %d (%q): two kernels share one ID, so their metrics cannot be told apart", id, p.field(rec, ncuColKernel), nk.line, nk.k.Name)
		}
		if nk == nil {
			if nk, err = p.identity(rec, line); err != nil {
				return err
			}
			byID[id] = nk
			open = append(open, openKernel{id, nk})
			seen++
			if hasKernelTime {
				if t := strings.TrimSpace(p.field(rec, ncuColKernelTime)); t != "" {
					nk.metrics = append(nk.metrics, ingest.Metric{Name: ncuColKernelTime, Text: t})
				}
			}
		}
		section := p.field(rec, ncuColSection)
		if label := p.field(rec, ncuColBodyLabel); label != "" {
			section += ": " + label
		}
		name := p.field(rec, ncuColMetricName)
		if name == "" {
			m, ok, err := p.longRule(rec, line, section)
			if err != nil {
				return err
			}
			if !ok {
				continue // neither a metric nor a rule: nothing to keep
			}
			nk.metrics = append(nk.metrics, m)
			held++
			continue
		}
		m, err := p.longMetric(rec, line, id, name, section, convs)
		if err != nil {
			return err
		}
		nk.metrics = append(nk.metrics, m)
		held++
		if role := ncuRoles[name]; role != roleNone {
			nk.apply(role, m.Value, m.Valid, m.Unit, m.Text)
		}
		for p.b.Streaming() && int64(held) > ingest.BatchRows() && len(open) > 0 && open[0].nk != nk {
			if err := add(open[0].nk); err != nil {
				return err
			}
			byID[open[0].id] = ncuEmitted
			open = open[1:]
		}
	}
	if seen == 0 {
		return p.errf(p.r.line, "ncu CSV has a header but no metric rows")
	}
	for _, o := range open {
		if err := add(o.nk); err != nil {
			return err
		}
	}
	p.writeGPUs()
	return nil
}
