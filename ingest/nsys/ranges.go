package nsys

// NVTX ranges of an Nsight Systems export, the CUDA runtime calls that tie
// kernels to them, and CUDA graph launches traced as a whole.
//
// Ranges and calls are swept in start order: the ranges come from the
// NVTX table in (start, end descending, thread, row) order, each pushed
// on the stack of its thread and domain (the ranges that no longer hold it
// popped first), and each runtime call, once every range starting at or
// before it is pushed, takes the innermost range of its thread's stacks
// that holds it. Nothing is kept of a range once it leaves its stack but
// its path, interned (rangeNode): memory goes with the nesting depth and
// the distinct paths, not with the number of ranges. nsys writes both
// tables in start order, so both are read in table order; where a table is
// not, SQLite sorts it (ORDER BY), as slowly as that costs but in bounded
// memory.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/callindex"
)

// rangeNode is an interned range path: the path of a range's parent and
// the range's own text. Ranges of equal paths share one node.
type rangeNode struct {
	parent int32 // -1 at the outermost level
	depth  int32 // components before the last
	text   string
	path   string // components joined with "/"
}

// nodeKey identifies a rangeNode.
type nodeKey struct {
	parent int32
	text   string
}

// internNode returns the node of text under parent (-1: none).
func (p *nsysParser) internNode(parent int32, text string) int32 {
	if p.nodeIdx == nil {
		p.nodeIdx = map[nodeKey]int32{}
	}
	if n, ok := p.nodeIdx[nodeKey{parent, text}]; ok {
		return n
	}
	text = strings.Clone(text) // not a part of a reader's buffer
	n := rangeNode{parent: parent, text: text, path: text}
	if parent >= 0 {
		par := &p.nodes[parent]
		n.depth = par.depth + 1
		n.path = par.path + "/" + text
	}
	id := int32(len(p.nodes))
	p.nodes = append(p.nodes, n)
	p.nodeIdx[nodeKey{parent, text}] = id
	return id
}

// comps returns the path components of node n, outermost first.
func (p *nsysParser) comps(n int32) []string {
	out := make([]string, p.nodes[n].depth+1)
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = p.nodes[n].text
		n = p.nodes[n].parent
	}
	return out
}

// nvtxPlan is what a first scan of the NVTX table tells the sweep.
type nvtxPlan struct {
	has    bool   // the table has push/pop or start/end ranges
	maxEnd int64  // the end given to a range never closed (end NULL)
	sorted bool   // table order is the sweep's order
	text   string // the SQL of the text column
	// domains names NVTX domains by (process, domain id).
	domains map[domKey]string
}

type domKey struct{ pid, id int64 }

// nvtxPrepare reads the NVTX domain names and scans the ranges once for
// the end of the trace, the first range of negative duration (an error)
// and whether the table lists them in sweep order.
func (p *nsysParser) nvtxPrepare() (*nvtxPlan, error) {
	plan := &nvtxPlan{}
	if !p.db.has(tabNVTX) {
		return plan, nil
	}
	c, err := p.db.columns(tabNVTX)
	if err != nil {
		return nil, err
	}
	if !c["start"] || !c["eventType"] {
		return nil, ingest.BadInput(p.in.Path, 0, tabNVTX, "no start or eventType column: not an Nsight Systems NVTX table")
	}
	plan.text = colOr(c, "", "text", "NULL")
	// The sweep's order is start ascending, end descending (an enclosing
	// range first), thread ascending, then table order. A range never
	// closed ends at the end of the trace, known only after this scan, so
	// where an open and a closed range of equal start meet, what their
	// order needs of that end is noted: below is the largest end that must
	// lie below it, atEnd the smallest that must equal it.
	//
	// Domain names come in the same scan: NvtxDomainCreate events carry
	// the name in text and the domain in domainId; ids are per process; the
	// earliest event names a domain.
	plan.domains = map[domKey]string{}
	type domName struct {
		start, row int64
		name       string
	}
	names := map[domKey]domName{}
	domText := "NULL"
	if c["domainId"] && c["text"] {
		domText = "CASE WHEN eventType = " + strconv.Itoa(nvtxDomainCreate) + " THEN text END"
	}
	// The texts' lengths, read without reading the texts (octet_length),
	// are checked here, before the sweep reads them.
	textLen := "0"
	if c["text"] {
		textLen = "octet_length(text)"
	}
	q := `SELECT start, ` + colOr(c, "", "end", "NULL") + `, ` + colOr(c, "", "globalTid", "NULL") + `, rowid, eventType, ` + colOr(c, "", "domainId", "NULL") + `, ` + textLen + `, ` + domText +
		` FROM NVTX_EVENTS WHERE eventType IN (` + strconv.Itoa(nvtxPushPopRange) + `,` + strconv.Itoa(nvtxStartEndRange) + `,` +
		strconv.Itoa(nvtxDomainCreate) + `) ORDER BY rowid`
	plan.sorted = true
	var prev [3]int64 // start, end (sqlNull: open), thread
	first := true
	below, atEnd := int64(math.MinInt64), int64(math.MaxInt64)
	rs := p.db.streamRows(tabNVTX, q, 7, sqlNull)
	defer rs.close()
	for {
		v, txt, _, ok, err := rs.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		start, e, g, rowid, et := v[0], v[1], v[2], v[3], v[4]
		if v[6] > ingest.MaxFieldBytes {
			return nil, ingest.BadInput(p.in.Path, 0, tabNVTX, "row id %d: column \"text\" holds %d bytes, longer than the limit of %s", rowid, v[6], ingest.SizeMiB(ingest.MaxFieldBytes))
		}
		if g == sqlNull {
			g = 0
		}
		if et == nvtxDomainCreate {
			if v[5] == sqlNull || domText == "NULL" {
				continue
			}
			k := domKey{gtidPID(g), v[5]}
			if d, ok := names[k]; !ok || start < d.start || start == d.start && rowid < d.row {
				names[k] = domName{start, rowid, strings.Clone(txt)}
			}
			continue
		}
		if start == sqlNull {
			return nil, ingest.BadInput(p.in.Path, 0, tabNVTX, "row id %d: column \"start\" is NULL: the range has no start", rowid)
		}
		if e != sqlNull && e < start {
			return nil, ingest.BadInput(p.in.Path, 0, tabNVTX, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", rowid, e, start)
		}
		plan.has = true
		plan.maxEnd = max(plan.maxEnd, start)
		if e != sqlNull {
			plan.maxEnd = max(plan.maxEnd, e)
		}
		if plan.sorted && !first {
			switch {
			case start != prev[0]:
				plan.sorted = start > prev[0]
			case prev[1] == sqlNull && e != sqlNull: // open, then closed
				if g < prev[2] {
					below = max(below, e)
				}
			case prev[1] != sqlNull && e == sqlNull: // closed, then open
				atEnd = min(atEnd, prev[1])
				plan.sorted = g >= prev[2]
			case e != prev[1]:
				plan.sorted = e < prev[1]
			default:
				plan.sorted = g >= prev[2]
			}
		}
		first = false
		prev = [3]int64{start, e, g}
	}
	if below >= plan.maxEnd || atEnd != math.MaxInt64 && atEnd != plan.maxEnd {
		plan.sorted = false
	}
	for k, d := range names {
		plan.domains[k] = d.name
	}
	return plan, nil
}

// nvtxRow is one range as the sweep reads it.
type nvtxRow struct {
	start, end, kind, gtid, domain, textID int64
	text                                   string
	textValid                              bool
}

// openNVTX starts reading the ranges in sweep order (nil without any).
func (p *nsysParser) openNVTX(plan *nvtxPlan) *rowStream {
	if !plan.has {
		return nil
	}
	// Columns as they are, a NULL read as sqlNull (read maps them): an
	// expression SQLite would evaluate per row costs more than the value.
	c := p.db.cols[tabNVTX]
	end, gtid := colOr(c, "", "end", "NULL"), colOr(c, "", "globalTid", "NULL")
	q := `SELECT start, ` + end + `, eventType, ` + gtid + `, ` + colOr(c, "", "domainId", "NULL") + `, ` + colOr(c, "", "textId", "NULL") + `, ` +
		plan.text + ` FROM NVTX_EVENTS WHERE eventType IN (` + strconv.Itoa(nvtxPushPopRange) + `,` + strconv.Itoa(nvtxStartEndRange) + `) ORDER BY `
	if plan.sorted {
		q += `rowid`
	} else {
		q += `start, COALESCE(` + end + `, ` + strconv.FormatInt(plan.maxEnd, 10) + `) DESC, COALESCE(` + gtid + `, 0), rowid`
	}
	return p.db.streamRows(tabNVTX, q, 6, sqlNull)
}

// sweepRange is a push/pop range on its stack.
type sweepRange struct {
	start, end int64
	idx        int32 // ranges after the first of this export (its id less rangeBase)
	node       int32
}

// domStack is the open push/pop ranges of one thread and NVTX domain,
// outermost first: each holds the one after it.
type domStack struct {
	domain int64
	st     []sweepRange
}

// rangeSweep pushes the ranges of an export in sweep order and answers,
// at a time no earlier than every range pushed, which range holds a call.
type rangeSweep struct {
	p     *nsysParser
	src   *rowStream
	plan  *nvtxPlan
	emit  bool // add each range to the ranges table as it is pushed
	app   *ingest.RangeAppender
	doms  map[domKey]int64 // dictionary keys of the domains named
	next  nvtxRow
	ready bool // next holds the next range
	n     int32
	// threads maps a thread to its stacks, by domain ascending.
	threads map[int64][]*domStack
	lastG   int64
	lastGS  []*domStack
}

func (p *nsysParser) newSweep(plan *nvtxPlan, emit bool) *rangeSweep {
	s := &rangeSweep{p: p, src: p.openNVTX(plan), plan: plan, emit: emit, threads: map[int64][]*domStack{}, lastG: math.MinInt64}
	if emit {
		s.app = p.b.RangeAppender()
		s.doms = map[domKey]int64{}
	}
	return s
}

// close stops the reading and hands on the ranges appended.
func (s *rangeSweep) close() {
	if s.src != nil {
		s.src.close()
		s.src = nil
	}
	if s.app != nil {
		s.app.Flush()
	}
}

// read fills s.next; false at the end of the ranges.
func (s *rangeSweep) read() (bool, error) {
	if s.ready {
		return true, nil
	}
	if s.src == nil {
		return false, nil
	}
	v, str, valid, ok, err := s.src.next()
	if err != nil || !ok {
		return false, err
	}
	s.next = nvtxRow{start: v[0], end: v[1], kind: v[2], gtid: v[3], domain: v[4], textID: v[5]}
	if s.next.end == sqlNull {
		s.next.end = s.plan.maxEnd // never closed: to the end of the trace
	}
	for _, x := range []*int64{&s.next.gtid, &s.next.domain} {
		if *x == sqlNull {
			*x = 0
		}
	}
	if s.next.textID == sqlNull {
		s.next.textID = -1
	}
	s.next.text, s.next.textValid = str, valid
	s.ready = true
	return true, nil
}

// advance pushes every range that starts at or before t.
func (s *rangeSweep) advance(t int64) error {
	for {
		ok, err := s.read()
		if err != nil || !ok || s.next.start > t {
			return err
		}
		if err := s.push(&s.next); err != nil {
			return err
		}
		s.ready = false
	}
}

// drain pushes the ranges left.
func (s *rangeSweep) drain() error { return s.advance(math.MaxInt64) }

// stacks returns the stacks of thread g.
func (s *rangeSweep) stacks(g int64) []*domStack {
	if g != s.lastG {
		s.lastG, s.lastGS = g, s.threads[g]
	}
	return s.lastGS
}

// push nests r and, when the sweep emits, adds it to the ranges table.
func (s *rangeSweep) push(r *nvtxRow) error {
	p := s.p
	text := r.text
	if !r.textValid {
		text = ""
		if r.textID >= 0 {
			var err error
			if text, err = p.lookup(r.textID); err != nil {
				return err
			}
		}
	}
	idx := s.n
	s.n++
	kind := ingest.RangePushPop
	parent, node := int32(-1), int32(0)
	if r.kind == nvtxStartEndRange {
		kind = ingest.RangeStartEnd
		node = p.internNode(-1, text)
	} else {
		var ds *domStack
		gs := s.stacks(r.gtid)
		for _, x := range gs {
			if x.domain == r.domain {
				ds = x
			}
		}
		if ds == nil {
			ds = &domStack{domain: r.domain}
			gs = append(gs, ds)
			sort.SliceStable(gs, func(i, j int) bool { return gs[i].domain < gs[j].domain })
			s.threads[r.gtid] = gs
			s.lastG, s.lastGS = r.gtid, gs
		}
		st := ds.st
		for len(st) > 0 {
			top := &st[len(st)-1]
			if top.start <= r.start && r.end <= top.end {
				break
			}
			st = st[:len(st)-1]
		}
		if len(st) >= ingest.MaxNestDepth {
			return ingest.BadInput(p.in.Path, 0, tabNVTX, "range %q at start %d ns (thread %d) is nested %d deep, past the limit of %d levels: not a nesting rooftool reads",
				text, r.start, gtidTID(r.gtid), len(st)+1, ingest.MaxNestDepth)
		}
		pn := int32(-1)
		if len(st) > 0 {
			parent, pn = st[len(st)-1].idx, st[len(st)-1].node
		}
		node = p.internNode(pn, text)
		ds.st = append(st, sweepRange{start: r.start, end: r.end, idx: idx, node: node})
	}
	if !s.emit {
		return nil
	}
	n := &p.nodes[node]
	row := ingest.Range{Source: ingest.SourceNsys, File: p.file, Kind: kind, Text: text, Path: n.path, Depth: n.depth,
		PID: gtidPID(r.gtid), TID: gtidTID(r.gtid), StartNs: r.start, EndNs: r.end}
	keys := ingest.RangeKeys{Text: int64(node), Path: int64(node)}
	if kind == ingest.RangeStartEnd {
		keys.Kind = 1
	}
	if r.domain != 0 {
		k := domKey{gtidPID(r.gtid), r.domain}
		row.Domain = s.plan.domains[k]
		dk, ok := s.doms[k]
		if !ok {
			dk = int64(len(s.doms)) + 1
			s.doms[k] = dk
		}
		keys.Domain = dk
	}
	if r.gtid == 0 { // no globalTid: thread and process unknown
		row.Null = ingest.NullPID | ingest.NullTID
	}
	if parent >= 0 {
		par := p.rangeBase + int64(parent)
		row.ParentID = &par
	}
	s.app.Add(&row, &keys)
	return nil
}

// attribute returns the innermost push/pop range on thread g that holds
// [cs, ce] (its index and node; -1, -1 for none): the default domain's (id
// 0) first, else the deepest of another domain. Every range starting at or
// before cs must be pushed, and none after it.
func (s *rangeSweep) attribute(g, cs, ce int64) (int32, int32) {
	rng, node := int32(-1), int32(-1)
	var dom int64
	var depth int32
	for _, ds := range s.stacks(g) {
		st := ds.st
		j := len(st) - 1
		for ; j >= 0 && ce > st[j].end; j-- {
		}
		if j < 0 {
			continue
		}
		// st[j] has j ranges outside it.
		if rng < 0 || ds.domain != 0 && dom != 0 && int32(j) > depth {
			rng, node, dom, depth = st[j].idx, st[j].node, ds.domain, int32(j)
		}
	}
	return rng, node
}

// errCallOrder stops a scan of runtime calls that are not in start order.
var errCallOrder = errors.New("runtime calls out of start order")

// runtime adds the NVTX ranges to the ranges table and reads the CUDA
// runtime calls that carry a correlationId, attributing each to the
// innermost push/pop range on its thread (rangeSweep.attribute), and
// indexes them by (process, correlationId) in p.calls.
func (p *nsysParser) runtime() error {
	plan, err := p.nvtxPrepare()
	if err != nil {
		return err
	}
	p.rangeBase = p.b.NextRangeID()
	sw := p.newSweep(plan, p.b.Keeps(ingest.TableRanges))
	defer func() { sw.close() }()
	c, err := p.db.columns(tabRuntime)
	if err != nil {
		return err
	}
	if !p.db.has(tabRuntime) || !c["correlationId"] || !c["start"] || !c["end"] {
		return sw.drain()
	}
	// Columns as they are, a NULL read as sqlNull: an expression SQLite
	// would evaluate per row (COALESCE) costs more than the value.
	gt := colOr(c, "", "globalTid", "NULL")
	q := `SELECT correlationId, ` + gt + `, start, end, rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL AND %s ORDER BY `
	ib := &callindex.Builder{}
	add := func(v []int64) error {
		if v[1] == sqlNull {
			v[1] = 0
		}
		if v[2] == sqlNull {
			v[2] = 0
		}
		if v[3] == sqlNull {
			v[3] = v[2]
		}
		call := callindex.Rec{Corr: v[0], GTID: v[1], Row: v[4]}
		if p.byPID {
			call.PID = int32(gtidPID(call.GTID))
		}
		call.Rng, call.Node = sw.attribute(call.GTID, v[2], v[3])
		return ib.Add(call)
	}
	// Table order first; calls out of start order are read again, sorted.
	last := int64(math.MinInt64)
	err = p.db.scanSplit(tabRuntime, q+`rowid`, 5, sqlNull, func(v []int64) error {
		if v[2] == sqlNull {
			v[2] = 0
		}
		if v[2] < last {
			return errCallOrder
		}
		last = v[2]
		if err := sw.advance(v[2]); err != nil {
			return err
		}
		return add(v)
	})
	if err == errCallOrder {
		ib.Close()
		if err := sw.drain(); err != nil {
			return err
		}
		sw.close()
		sw = p.newSweep(plan, false)
		ib = &callindex.Builder{}
		err = p.db.scanIntsNull(tabRuntime, fmt.Sprintf(q, "1")+`start, rowid`, 5, sqlNull, func(v []int64) error {
			if v[2] == sqlNull {
				v[2] = 0
			}
			if err := sw.advance(v[2]); err != nil {
				return err
			}
			return add(v)
		})
	}
	if err == nil {
		err = sw.drain()
	}
	if err != nil {
		ib.Close()
		return err
	}
	if p.calls, err = ib.Finish(); err != nil {
		return &ingest.InputError{File: p.in.Path, Table: tabRuntime, Err: err}
	}
	return nil
}

// findCall returns the first call (in table order) with (pid, corr).
func (p *nsysParser) findCall(pid, corr int64) (callindex.Rec, bool, error) {
	c, ok, err := p.calls.Find(pid, corr)
	if err != nil {
		return c, false, &ingest.InputError{File: p.in.Path, Table: tabRuntime, Err: err}
	}
	return c, ok, nil
}

// graphs adds a cuda_graph range per CUDA graph launch traced as a whole,
// attributed like a kernel through its launching call.
func (p *nsysParser) graphs() error {
	if !p.db.has(tabGraph) {
		return nil
	}
	c, err := p.db.columns(tabGraph)
	if err != nil {
		return err
	}
	if !c["start"] || !c["end"] {
		return nil
	}
	q := `SELECT start, COALESCE(end, start), COALESCE(` + colOr(c, "", "correlationId", "-1") + `, -1), COALESCE(` +
		colOr(c, "", "globalPid", "0") + `, 0), COALESCE(` + colOr(c, "", "graphId", "0") + `, 0), rowid FROM ` + tabGraph + ` ORDER BY rowid`
	return p.db.scanInts(tabGraph, q, 6, func(v []int64) error {
		if v[1] < v[0] {
			return ingest.BadInput(p.in.Path, 0, tabGraph, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", v[5], v[1], v[0])
		}
		text := "CUDA graph " + strconv.FormatInt(v[4], 10)
		r := ingest.Range{Source: ingest.SourceNsys, File: p.file, Kind: ingest.RangeCUDAGraph, Text: text, Path: text,
			PID: gtidPID(v[3]), StartNs: v[0], EndNs: v[1], Null: ingest.NullTID}
		if err := p.underCall(&r, v[3], v[2]); err != nil {
			return err
		}
		p.b.AddRange(r)
		return nil
	})
}

// underCall places r, a row an nsys activity table gives with its
// process (gtid, a globalPid) and the correlation id of the CUDA call that
// launched it (corr; -1 when the table has none), as kernels are placed:
// on the launching call's thread and, where that call ran inside an NVTX
// range, under that range (parent, depth and path below it). r.Text and
// r.Path must be set; a row with no process is marked NullPID, one whose
// call is not found keeps NullTID.
func (p *nsysParser) underCall(r *ingest.Range, gtid, corr int64) error {
	if gtid == 0 {
		r.Null |= ingest.NullPID
	}
	pid := int64(0)
	if p.byPID {
		pid = gtidPID(gtid)
	}
	call, ok, err := p.findCall(pid, corr)
	if err != nil || !ok || corr < 0 {
		return err
	}
	r.PID, r.TID = gtidPID(call.GTID), gtidTID(call.GTID)
	r.Null = 0
	if call.Rng >= 0 {
		par := &p.nodes[call.Node]
		id := p.rangeBase + int64(call.Rng)
		r.ParentID = &id
		r.Depth = par.depth + 1
		r.Path = par.path + "/" + r.Text
	}
	return nil
}
