package nsys

// The sweep of nvtx_kern_sum (nsys_nvtx_kern.go): runtime calls and NVTX
// ranges in start order. Before a call is looked at, every range that
// starts at or before it is opened on its thread; a thread's open ranges
// that end before the call starts are closed (no later call can be in
// them), and those that end at or after the call ends hold it. A range
// notes, per kernel name, the row its kernels went to; when it closes it
// counts once in each of those rows' NVTX Inst.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// errRangeOrder stops a sweep whose NVTX ranges are not in start order.
var errRangeOrder = errors.New("NVTX ranges out of start order")

// rowKey identifies a row of nvtx_kern_sum: the launching thread (its
// process and thread id, the globalTid's low 48 bits; -1: no call), the
// range's name and style (-1: outside every range) and the kernel's name
// (-1: NULL).
type rowKey struct {
	thread      int64
	name, style int32
	kernel      int32
}

// sweepRow is a row being summed.
type sweepRow struct {
	key     rowKey
	ranges  int
	kernels int
	last    int32 // the last kernel counted in kernels
	durs    []int64
}

// openRange is a range open on its thread.
type openRange struct {
	end         int64
	name, style int32
	rows        []kernelRow     // the rows of its kernels, by kernel name
	byName      map[int32]int32 // rows by kernel name, once rows is long
}

// kernelRow is the row a range's kernels of one name go to.
type kernelRow struct{ kernel, row int32 }

// openRangeIndex is how many kernel names a range looks up by scanning
// its rows before it keeps a map of them.
const openRangeIndex = 16

// nvtxSweep is one sweep of an export.
type nvtxSweep struct {
	db   *sqliteDB
	path string
	ks   *sweepKernels
	plan *sweepPlan
	// dups are the kernels two calls claim (RangeKernGroups): their
	// rows are counted in Kern Inst through seen, not last.
	dups map[int32]bool
	seen map[[2]int32]bool

	src   *rowStream // the ranges
	next  [3]int64   // the next range's start, end, thread (sqlNull: none)
	nextN int32      // its name
	nextS int32      // its style
	ready bool       // next holds an unopened range
	last  int64      // start of the range read last

	open     map[int64][]*openRange // by globalTid
	held     []*openRange           // the ranges holding the current call
	domIdx   map[string]int32       // domain names, interned
	textIdx  map[string]int32       // range texts, interned
	rangeIdx map[[2]int32]int32     // range names by (domain, text)
	rangeNam []string               // range names (domain:text)
	free     []*openRange           // closed ranges, to be opened again
	rows     []sweepRow
	rowIdx   map[rowKey]int32
}

func newNVTXSweep(db *sqliteDB, path string, ks *sweepKernels, plan *sweepPlan, dups map[int32]bool) *nvtxSweep {
	for i := range ks.ks {
		ks.ks[i].calls = 0
	}
	s := &nvtxSweep{db: db, path: path, ks: ks, plan: plan, dups: dups, open: map[int64][]*openRange{},
		domIdx: map[string]int32{}, textIdx: map[string]int32{}, rangeIdx: map[[2]int32]int32{}, rowIdx: map[rowKey]int32{}, last: sqlNull}
	if dups != nil {
		s.seen = map[[2]int32]bool{}
	}
	return s
}

// run sweeps the calls and the ranges, each read in table order where
// sorted says it is in start order (else errCallOrder or errRangeOrder
// stops the sweep at the first out of order), else sorted by SQLite.
func (s *nvtxSweep) run(sortedCalls, sortedRanges bool) error {
	c := s.db.cols[tabNVTX]
	order := "ne.rowid"
	if !sortedRanges {
		order = "ne.start, ne.rowid"
	}
	s.src = s.db.streamRows(tabNVTX, `SELECT ne.start, `+colOr(c, "ne.", "end", "NULL")+`, ne.globalTid, ne.eventType, `+
		colOr(c, "ne.", "domainId", "NULL")+`, `+s.plan.text+` FROM NVTX_EVENTS AS ne`+s.plan.stringJoin(c)+
		` WHERE ne.eventType IN (`+nvtxRangeTypes+`) AND `+s.plan.endTid+` IS NULL ORDER BY `+order, 5, sqlNull)
	defer s.src.close()
	q := `SELECT correlationId, globalTid, start, "end" FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL AND %s ORDER BY `
	last := int64(sqlNull)
	call := func(v []int64) error {
		if v[2] == sqlNull || v[3] == sqlNull {
			return nil // a NULL time holds in no range and nsys's join drops it
		}
		if v[2] < last && sortedCalls {
			return errCallOrder
		}
		last = v[2]
		return s.call(v[0], v[1], v[2], v[3])
	}
	var err error
	if sortedCalls {
		err = s.db.scanSplit(tabRuntime, q+`rowid`, 4, sqlNull, call)
	} else {
		err = s.db.scanIntsNull(tabRuntime, fmt.Sprintf(q, "1")+`start, rowid`, 4, sqlNull, call)
	}
	if err != nil {
		return err
	}
	// Ranges that start after the last call hold none: they are not read.
	for _, rs := range s.open {
		for _, r := range rs {
			s.close(r)
		}
	}
	// Kernels no call claimed: no thread, no range.
	for i := range s.ks.ks {
		if k := &s.ks.ks[i]; k.calls == 0 {
			s.pair(s.row(rowKey{thread: -1, name: -1, style: -1, kernel: k.name}), int32(i))
		}
	}
	return nil
}

// call takes the runtime call (correlation id corr, thread gtid, start cs,
// end ce) and the kernels it launched.
func (s *nvtxSweep) call(corr, gtid, cs, ce int64) error {
	key, ok := s.ks.keyOf(gtid, corr)
	if !ok {
		return nil
	}
	first, ok := s.ks.find(key)
	if !ok {
		return nil
	}
	if err := s.advance(cs); err != nil {
		return err
	}
	thread := int64(-1)
	s.held = s.held[:0]
	if gtid != sqlNull {
		thread = gtid & 0xFFFFFFFFFFFF
		rs := s.prune(gtid, cs)
		for _, r := range rs {
			if r.end >= ce {
				s.held = append(s.held, r)
			}
		}
	}
	for i := first; int(i) < len(s.ks.ks) && s.ks.ks[i].key == key; i++ {
		k := &s.ks.ks[i]
		k.calls++
		if len(s.held) == 0 {
			s.pair(s.row(rowKey{thread: thread, name: -1, style: -1, kernel: k.name}), i)
			continue
		}
		for _, r := range s.held {
			s.pair(s.rangeRow(r, thread, k.name), i)
		}
	}
	return nil
}

// prune closes the ranges of thread gtid that end before t and returns
// those left open.
func (s *nvtxSweep) prune(gtid, t int64) []*openRange {
	rs := s.open[gtid]
	n := 0
	for _, r := range rs {
		if r.end < t {
			s.close(r)
			continue
		}
		rs[n] = r
		n++
	}
	clear(rs[n:])
	rs = rs[:n]
	s.open[gtid] = rs
	return rs
}

// close counts r once in the NVTX Inst of each row its kernels went to
// and keeps it to be opened again.
func (s *nvtxSweep) close(r *openRange) {
	for _, kr := range r.rows {
		s.rows[kr.row].ranges++
	}
	r.rows, r.byName = r.rows[:0], nil
	s.free = append(s.free, r)
}

// advance opens every range that starts at or before t.
func (s *nvtxSweep) advance(t int64) error {
	for {
		if !s.ready {
			ok, err := s.read()
			if err != nil || !ok {
				return err
			}
		}
		start, end, gtid := s.next[0], s.next[1], s.next[2]
		if start > t {
			return nil
		}
		s.ready = false
		if gtid == sqlNull || end == sqlNull {
			continue // holds no call: no thread, or never closed in an export without an end
		}
		rs := s.prune(gtid, start)
		var r *openRange
		if n := len(s.free); n > 0 {
			r, s.free = s.free[n-1], s.free[:n-1]
		} else {
			r = &openRange{}
		}
		r.end, r.name, r.style = end, s.nextN, s.nextS
		s.open[gtid] = append(rs, r)
	}
}

// read reads the next range into s.next; false at the end.
func (s *nvtxSweep) read() (bool, error) {
	v, text, _, ok, err := s.src.next()
	if err != nil || !ok {
		return false, err
	}
	start, end, gtid, kind, dom := v[0], v[1], v[2], v[3], v[4]
	if start == sqlNull {
		return false, ingest.BadInput(s.path, 0, tabNVTX, "a range of thread %d has no start", gtid)
	}
	if s.last != sqlNull && start < s.last {
		return false, errRangeOrder
	}
	s.last = start
	if end == sqlNull && s.plan.openOK {
		end = s.plan.openEnd // never closed: to the last NVTX time
	}
	domain := ""
	if dom != sqlNull && gtid != sqlNull {
		domain = s.plan.domains[domKey{gtidPID(gtid), dom}]
	}
	s.next = [3]int64{start, end, gtid}
	s.nextN = s.rangeName(domain, text)
	s.nextS = 0
	if kind == nvtxStartEndRange || kind == nvtxtStartEndRange {
		s.nextS = 1
	}
	s.ready = true
	return true, nil
}

// rangeName interns domain + ":" + text: the text and the domain first
// (lookups of strings the stream and the plan hold: no allocation for
// those seen before, most of them), then the pair.
func (s *nvtxSweep) rangeName(domain, text string) int32 {
	intern := func(m map[string]int32, v string) int32 {
		if i, ok := m[v]; ok {
			return i
		}
		i := int32(len(m))
		m[strings.Clone(v)] = i
		return i
	}
	key := [2]int32{intern(s.domIdx, domain), intern(s.textIdx, text)}
	if n, ok := s.rangeIdx[key]; ok {
		return n
	}
	n := int32(len(s.rangeNam))
	s.rangeIdx[key] = n
	s.rangeNam = append(s.rangeNam, domain+":"+text)
	return n
}

// rangeRow is the row of the kernels named kernel that r holds on thread.
func (s *nvtxSweep) rangeRow(r *openRange, thread int64, kernel int32) int32 {
	if r.byName != nil {
		if row, ok := r.byName[kernel]; ok {
			return row
		}
	} else {
		for _, kr := range r.rows {
			if kr.kernel == kernel {
				return kr.row
			}
		}
	}
	row := s.row(rowKey{thread: thread, name: r.name, style: r.style, kernel: kernel})
	r.rows = append(r.rows, kernelRow{kernel, row})
	switch {
	case r.byName != nil:
		r.byName[kernel] = row
	case len(r.rows) > openRangeIndex:
		r.byName = make(map[int32]int32, len(r.rows))
		for _, kr := range r.rows {
			r.byName[kr.kernel] = kr.row
		}
	}
	return row
}

// row returns the row of key, made where there is none.
func (s *nvtxSweep) row(key rowKey) int32 {
	if i, ok := s.rowIdx[key]; ok {
		return i
	}
	i := int32(len(s.rows))
	s.rows = append(s.rows, sweepRow{key: key, last: -1})
	s.rowIdx[key] = i
	return i
}

// pair adds kernel k to row i: its duration, and to Kern Inst where the
// row has not counted it yet.
func (s *nvtxSweep) pair(i, k int32) {
	r := &s.rows[i]
	r.durs = append(r.durs, s.ks.ks[k].dur)
	if s.dups != nil && s.dups[k] {
		if !s.seen[[2]int32{i, k}] {
			s.seen[[2]int32{i, k}] = true
			r.kernels++
		}
		return
	}
	if r.last != k {
		r.last = k
		r.kernels++
	}
}

// result is the rows of the sweep.
func (s *nvtxSweep) result() []RangeKernGroup {
	out := make([]RangeKernGroup, len(s.rows))
	for i := range s.rows {
		r := &s.rows[i]
		g := RangeKernGroup{Ranges: r.ranges, Kernels: r.kernels, Durations: r.durs}
		if r.key.thread < 0 {
			g.ThreadNull = true
		} else {
			g.PID, g.TID = gtidPID(r.key.thread), gtidTID(r.key.thread)
		}
		if r.key.name < 0 {
			g.RangeNull = true
		} else {
			g.Range = s.rangeNam[r.key.name]
			g.Style = StylePushPop
			if r.key.style == 1 {
				g.Style = StyleStartEnd
			}
		}
		if r.key.kernel < 0 {
			g.KernelNull = true
		} else {
			g.Kernel = s.ks.names[r.key.kernel]
		}
		out[i] = g
	}
	return out
}
