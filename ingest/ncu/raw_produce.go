package ncu

import (
	"io"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// rawProduce reads the rows of a raw page and sends them in batches. It
// touches no Arrow builder except the meta table (through identity) and
// the unit dictionary before the first batch is sent.
func (p *ncuParser) rawProduce(mb *ingest.MetricAppender, cols []ncuRawCol, full chan<- *rawBatch, free chan *rawBatch) error {
	var rp rawProducer
	rp.init(p, mb, cols, full, free)
	defer rp.ids.warn(p)
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
		if err := rp.checkWidth(rec, line); err != nil {
			return err
		}
		if rp.first {
			if unitsRow, err := rp.firstRow(rec, line); err != nil {
				return err
			} else if unitsRow {
				continue
			}
		}
		if strings.TrimSpace(rec[idCol]) == "" {
			return p.errf(line, "row has an empty %q: expected a kernel id (only the row after the header may hold units)", ncuColID)
		}
		if dup, err := rp.ids.check(p, rec, line); err != nil {
			return err
		} else if dup {
			continue
		}
		nk, err := p.identity(rec, line)
		if err != nil {
			return err
		}
		n, anyEmpty, allValid, err := rp.parseCells(rec, line, nk)
		if err != nil {
			return err
		}
		if err := p.finish(nk); err != nil {
			return err
		}
		rp.addRow(nk, rp.rowIdx(anyEmpty), n, allValid)
	}
	rp.send()
	return nil
}

// rawProducer is the state of rawProduce between rows: the columns, the
// index slices rows share, one row's parsed values, and the batch being
// filled. Nothing in it is allocated per row.
type rawProducer struct {
	p    *ncuParser
	mb   *ingest.MetricAppender
	cols []ncuRawCol
	full chan<- *rawBatch
	free chan *rawBatch

	// Index slices that are the same for every kernel whose row has every
	// metric; rows that leave cells empty use those of their pattern.
	constIdx          [4][]int
	pat               ncuEmptyPattern
	emptyText, secIdx int

	// The current row: values and validity of its present cells, which
	// columns are present, its text values.
	vals    []float64
	valid   []bool
	present []bool
	texts   []rawText

	ids   ncuRawIDs
	first bool // no row read yet: the units row is next
	sent  int  // batches sent
	bt    *rawBatch
}

// init sets up rawProduce's state for the columns cols.
func (rp *rawProducer) init(p *ncuParser, mb *ingest.MetricAppender, cols []ncuRawCol, full chan<- *rawBatch, free chan *rawBatch) {
	nc := len(cols)
	*rp = rawProducer{p: p, mb: mb, cols: cols, full: full, free: free,
		vals: make([]float64, nc), valid: make([]bool, nc), present: make([]bool, nc),
		ids: ncuRawIDs{seen: map[string]ncuRowSeen{}}, first: true}
	for c := range rp.constIdx {
		rp.constIdx[c] = make([]int, nc)
	}
	rp.emptyText = mb.Index(ingest.MetricsText, "")
	rp.secIdx = mb.Index(ingest.MetricsSection, "")
}

// checkWidth refuses a record with another number of fields than the
// header, naming a units row that does not match it.
func (rp *rawProducer) checkWidth(rec []string, line int) error {
	p := rp.p
	if len(rec) == len(p.hdr) {
		return nil
	}
	what := "truncated"
	if len(rec) > len(p.hdr) {
		what = "overlong"
	}
	if rp.first && strings.TrimSpace(rec[0]) == "" {
		return p.errf(line, "units row has %d fields, header has %d (units row does not match the header)", len(rec), len(p.hdr))
	}
	return p.errf(line, "%s raw-page row: %d fields, header has %d", what, len(rec), len(p.hdr))
}

// firstRow reads the row after the header: the units row (unitsRow true),
// which sets each column's unit, or a kernel row, refused where there are
// metric columns (their values would have no unit). Either way it fills
// the shared index slices.
func (rp *rawProducer) firstRow(rec []string, line int) (unitsRow bool, err error) {
	p, cols := rp.p, rp.cols
	rp.first = false
	idCol := p.col[ncuColID]
	unitsRow = strings.TrimSpace(rec[idCol]) == ""
	if unitsRow {
		if err := rp.setUnits(rec, line); err != nil {
			return false, err
		}
		p.firstRowOffset = p.r.InputOffset()
	} else if len(cols) > 0 {
		// ncu's raw page states each metric's unit in the row
		// after the header; without it no value has a unit.
		return false, p.errf(line, "no units row after the header (line %d holds kernel %s): the raw page states each metric's unit there (ncu --page raw --csv prints it), and without it the values of %q and the other metrics have no unit",
			line, strings.TrimSpace(rec[idCol]), p.hdr[cols[0].j])
	}
	for i := range cols {
		rp.constIdx[ingest.MetricsSection][i] = rp.secIdx
		rp.constIdx[ingest.MetricsMetric][i] = cols[i].name
		rp.constIdx[ingest.MetricsUnit][i] = cols[i].unit
		rp.constIdx[ingest.MetricsText][i] = rp.emptyText
	}
	return unitsRow, nil
}

// setUnits sets each column's unit from the units row (nil: no units).
func (rp *rawProducer) setUnits(units []string, line int) error {
	p, cols := rp.p, rp.cols
	for i := range cols {
		u := ""
		if units != nil {
			u = units[cols[i].j]
		}
		conv, err := ncuUnit(u)
		if err != nil {
			return p.errf(line, "units row, column %d %q: %w", cols[i].j+1, p.hdr[cols[i].j], err)
		}
		cols[i].printed = u
		cols[i].conv = conv
		cols[i].unit = rp.mb.Index(ingest.MetricsUnit, cols[i].conv.base)
		cols[i].nonNeg = ncuNonNegative(cols[i].role, cols[i].conv.base)
	}
	return nil
}

// parseCells parses the metric cells of a kernel row into the producer's
// values, applying the kernel and GPU columns to nk. It returns how many
// cells are present, whether any is empty (a metric not collected for this
// kernel) and whether every present one is a number.
func (rp *rawProducer) parseCells(rec []string, line int, nk *ncuKernel) (n int, anyEmpty, allValid bool, err error) {
	p, cols, vals, valid, present := rp.p, rp.cols, rp.vals, rp.valid, rp.present
	allValid = true
	texts := rp.texts[:0]
	k := 0 // position among the present cells
	for i := range cols {
		c := &cols[i]
		s := rec[c.j]
		if s == "" && c.role != roleDuration {
			anyEmpty = true // metric not collected for this kernel
			present[i] = false
			continue
		}
		present[i] = true
		v, ok, text, bad := ncuMetricValue(s, c.conv)
		if bad {
			return 0, false, false, p.errf(line, "kernel %s, column %d %q (unit %q): %q is not a number", nk.idText, c.j+1, p.hdr[c.j], c.printed, s)
		}
		if err := ncuCheckDuration(c.role, s, v, ok, c.conv.base); err != nil {
			return 0, false, false, p.errf(line, "kernel %s, column %d %q (unit %q): %w", nk.idText, c.j+1, p.hdr[c.j], c.printed, err)
		}
		if ok && v < 0 && c.nonNeg {
			return 0, false, false, p.errf(line, "kernel %s, column %q (unit %q): negative value %s: a duration or count cannot be negative", nk.idText, p.hdr[c.j], c.printed, strings.TrimSpace(s))
		}
		vals[k], valid[k] = v, ok
		if !ok {
			allValid = false
			if text != "" {
				texts = append(texts, rawText{pos: k, s: text})
			}
		}
		if c.role != roleNone {
			nk.apply(c.role, v, ok, c.conv.base, text)
		}
		k++
	}
	rp.texts = texts
	return k, anyEmpty, allValid, nil
}

// rowIdx is the index slices of a row: the shared ones, or those of its
// pattern of empty cells where it has any.
func (rp *rawProducer) rowIdx(anyEmpty bool) [4][]int {
	if !anyEmpty {
		return rp.constIdx
	}
	if !rp.pat.matches(rp.present) {
		rp.pat.build(rp.present, rp.cols, rp.secIdx, rp.emptyText)
	}
	return rp.pat.idx
}

// addRow appends kernel nk's row (its n present values, their validity
// where some are not numbers, and its texts) to the batch, taking a
// recycled batch or a new one, and sends the batch once it is full.
func (rp *rawProducer) addRow(nk *ncuKernel, idx [4][]int, n int, allValid bool) {
	bt := rp.bt
	if bt == nil {
		select {
		case bt = <-rp.free:
			bt.rows, bt.vals, bt.valid, bt.texts, bt.reserve = bt.rows[:0], bt.vals[:0], bt.valid[:0], bt.texts[:0], 0
		default:
			nc := len(rp.cols)
			bt = &rawBatch{vals: make([]float64, 0, rawBatchRows*nc), valid: make([]bool, 0, rawBatchRows*nc)}
		}
		rp.bt = bt
	}
	if rp.sent == 0 && len(bt.rows) == 0 {
		bt.reserve = rp.p.reserveEstimate(n)
	}
	r := rawRow{k: nk.k, idx: idx}
	v0 := len(bt.vals)
	bt.vals = append(bt.vals, rp.vals[:n]...)
	r.vals = bt.vals[v0:len(bt.vals):len(bt.vals)]
	if !allValid {
		l0 := len(bt.valid)
		bt.valid = append(bt.valid, rp.valid[:n]...)
		r.valid = bt.valid[l0:len(bt.valid):len(bt.valid)]
	}
	if len(rp.texts) > 0 {
		t0 := len(bt.texts)
		bt.texts = append(bt.texts, rp.texts...)
		r.texts = bt.texts[t0:len(bt.texts):len(bt.texts)]
	}
	bt.rows = append(bt.rows, r)
	if len(bt.rows) == rawBatchRows {
		rp.send()
		rp.sent++
	}
}

// send passes the batch, if it holds rows, to the consumer.
func (rp *rawProducer) send() {
	if rp.bt != nil && len(rp.bt.rows) > 0 {
		rp.full <- rp.bt
		rp.bt = nil
	}
}
