package ingest

// NVTX ranges of an Nsight Systems export, the CUDA runtime calls that tie
// kernels to them, and CUDA graph launches traced as a whole.

import (
	"database/sql"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type nsysRange struct {
	id         int64
	kind       string
	gtid       int64
	domainID   int64
	domain     string
	text       string
	start, end int64
	comps      []string // path components, outermost first
	depth      int32
	parent     int64 // ranges.id, -1 if none
}

// nvtx reads push/pop and start/end ranges, nests push/pop ranges per
// thread and domain, and adds them to the ranges table.
func (p *nsysParser) nvtx() error {
	if !p.db.has(tabNVTX) {
		return nil
	}
	c, err := p.db.columns(tabNVTX)
	if err != nil {
		return err
	}
	if !c["start"] || !c["eventType"] {
		return badInput(p.in.Path, 0, tabNVTX, "no start or eventType column: not an Nsight Systems NVTX table")
	}
	// Domain names: NvtxDomainCreate events carry the name in text and the
	// domain in domainId; ids are per process.
	type domKey struct{ pid, id int64 }
	domains := map[domKey]string{}
	if c["domainId"] && c["text"] {
		gt := colOr(c, "", "globalTid", "0")
		rows, err := p.db.db.Query(`SELECT COALESCE(` + gt + `,0), domainId, COALESCE(text,'') FROM NVTX_EVENTS WHERE eventType = ` + strconv.Itoa(nvtxDomainCreate) + ` AND domainId IS NOT NULL ORDER BY start`)
		if err != nil {
			return p.db.wrap(tabNVTX, err)
		}
		for rows.Next() {
			var g, id int64
			var name string
			if err := rows.Scan(&g, &id, &name); err != nil {
				rows.Close()
				return p.db.wrap(tabNVTX, err)
			}
			k := domKey{gtidPID(g), id}
			if _, ok := domains[k]; !ok {
				domains[k] = name
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return p.db.wrap(tabNVTX, err)
		}
	}
	text := colOr(c, "", "text", "NULL")
	textID := colOr(c, "", "textId", "NULL")
	q := `SELECT start, COALESCE(` + colOr(c, "", "end", "NULL") + `, -1), eventType, COALESCE(` + colOr(c, "", "globalTid", "0") + `,0), ` +
		`COALESCE(` + colOr(c, "", "domainId", "0") + `,0), ` + text + `, COALESCE(` + textID + `, -1), ` + colOr(c, "", "end", "NULL") + ` IS NULL, rowid ` +
		`FROM NVTX_EVENTS WHERE eventType IN (` + strconv.Itoa(nvtxPushPopRange) + `,` + strconv.Itoa(nvtxStartEndRange) + `) ORDER BY rowid`
	rows, err := p.db.db.Query(q)
	if err != nil {
		return p.db.wrap(tabNVTX, err)
	}
	var maxEnd int64
	for rows.Next() {
		var r nsysRange
		var et, tid, rowid int64
		var open bool
		var txt sql.NullString
		if err := rows.Scan(&r.start, &r.end, &et, &r.gtid, &r.domainID, &txt, &tid, &open, &rowid); err != nil {
			rows.Close()
			return p.db.wrap(tabNVTX, err)
		}
		if !open && r.end < r.start {
			rows.Close()
			return badInput(p.in.Path, 0, tabNVTX, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", rowid, r.end, r.start)
		}
		if open {
			r.end = -1
		}
		if txt.Valid {
			r.text = txt.String
		} else if tid >= 0 {
			s, err := p.lookup(tid)
			if err != nil {
				rows.Close()
				return err
			}
			r.text = s
		}
		r.kind = RangePushPop
		if et == nvtxStartEndRange {
			r.kind = RangeStartEnd
		}
		if r.domainID != 0 {
			r.domain = domains[domKey{gtidPID(r.gtid), r.domainID}]
		}
		maxEnd = max(maxEnd, r.start, r.end)
		p.ranges = append(p.ranges, r)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return p.db.wrap(tabNVTX, err)
	}
	// A range never closed (end NULL) lasts to the end of the trace.
	for i := range p.ranges {
		if p.ranges[i].end < 0 {
			p.ranges[i].end = maxEnd
		}
	}
	// Order: start ascending, longer (enclosing) ranges first, then thread;
	// the stable sort keeps table order for exact ties. Within one thread and
	// domain this is the order the nesting stack needs.
	sort.SliceStable(p.ranges, func(i, j int) bool {
		a, b := &p.ranges[i], &p.ranges[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.gtid < b.gtid
	})
	base := p.b.NextRangeID()
	p.rangeBase = base
	type stackKey struct{ gtid, domain int64 }
	stacks := map[stackKey][]int{}
	for i := range p.ranges {
		r := &p.ranges[i]
		r.id = base + int64(i)
		r.parent = -1
		if r.kind != RangePushPop {
			r.comps = []string{r.text}
			continue
		}
		k := stackKey{r.gtid, r.domainID}
		st := stacks[k]
		for len(st) > 0 {
			top := &p.ranges[st[len(st)-1]]
			if top.start <= r.start && r.end <= top.end {
				break
			}
			st = st[:len(st)-1]
		}
		if len(st) > 0 {
			par := &p.ranges[st[len(st)-1]]
			r.parent = par.id
			r.depth = int32(len(st))
			r.comps = append(slices.Clip(par.comps), r.text) // a copy: Clip makes append reallocate
		} else {
			r.comps = []string{r.text}
		}
		stacks[k] = append(st, i)
	}
	for i := range p.ranges {
		r := &p.ranges[i]
		row := Range{Source: SourceNsys, File: p.file, Kind: r.kind, Domain: r.domain, Text: r.text,
			Path: strings.Join(r.comps, "/"), Depth: r.depth, PID: gtidPID(r.gtid), TID: gtidTID(r.gtid),
			StartNs: r.start, EndNs: r.end}
		if r.gtid == 0 { // no globalTid: thread and process unknown
			row.Null = NullPID | NullTID
		}
		if r.parent >= 0 {
			par := r.parent
			row.ParentID = &par
		}
		p.b.AddRange(row)
	}
	return nil
}

// rangeGroup is the push/pop ranges of one thread and one NVTX domain,
// sorted by start; they nest (NVTX push/pop is a per-thread, per-domain
// stack).
type rangeGroup struct {
	domain int64
	idx    []int   // indices into nsysParser.ranges
	starts []int64 // start of each, for binary search
}

// innermost returns the index of the innermost range of g that holds
// [cs, ce], or -1. The ranges holding a point form a chain of ancestors of
// the last range that starts at or before it, so a binary search and a walk
// up the parents find it in O(log n + depth).
func (p *nsysParser) innermost(g *rangeGroup, cs, ce int64) int {
	j := sort.Search(len(g.starts), func(i int) bool { return g.starts[i] > cs }) - 1
	if j < 0 {
		return -1
	}
	for r := g.idx[j]; r >= 0; {
		rr := &p.ranges[r]
		if rr.start <= cs && ce <= rr.end {
			return r
		}
		if rr.parent < 0 {
			break
		}
		r = int(rr.parent - p.rangeBase)
	}
	return -1
}

// runtime reads the CUDA runtime calls that carry a correlationId,
// attributes each to the innermost push/pop range on its thread (the
// default domain (id 0) first, else the deepest range of another domain)
// and indexes them by (process, correlationId) in p.calls.
func (p *nsysParser) runtime() error {
	if !p.db.has(tabRuntime) {
		return nil
	}
	c, err := p.db.columns(tabRuntime)
	if err != nil {
		return err
	}
	if !c["correlationId"] || !c["start"] || !c["end"] {
		return nil
	}
	groups := map[int64][]*rangeGroup{} // gtid -> groups, default domain first
	for i := range p.ranges {
		r := &p.ranges[i]
		if r.kind != RangePushPop {
			continue
		}
		var g *rangeGroup
		for _, x := range groups[r.gtid] {
			if x.domain == r.domainID {
				g = x
			}
		}
		if g == nil {
			g = &rangeGroup{domain: r.domainID}
			groups[r.gtid] = append(groups[r.gtid], g)
		}
		g.idx = append(g.idx, i)
		g.starts = append(g.starts, r.start)
	}
	for _, gs := range groups {
		sort.Slice(gs, func(i, j int) bool { return gs[i].domain < gs[j].domain })
	}
	gt := colOr(c, "", "globalTid", "0")
	q := `SELECT correlationId, COALESCE(` + gt + `,0), start, COALESCE(end, start) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL AND %s ORDER BY rowid`
	ib := &callIndexBuilder{}
	err = p.db.scanSplit(tabRuntime, q, 4, 0, func(v []int64) error {
		call := callRec{corr: v[0], gtid: v[1], rng: -1}
		if p.byPID {
			call.pid = int32(gtidPID(call.gtid))
		}
		if gs := groups[call.gtid]; gs != nil {
			for _, g := range gs {
				r := p.innermost(g, v[2], v[3])
				if r < 0 {
					continue
				}
				if call.rng < 0 || g.domain != 0 && p.ranges[call.rng].domainID != 0 && p.ranges[r].depth > p.ranges[call.rng].depth {
					call.rng = int32(r)
				}
			}
		}
		return ib.add(call)
	})
	if err != nil {
		ib.close()
		return err
	}
	if p.calls, err = ib.finish(); err != nil {
		return &InputError{File: p.in.Path, Table: tabRuntime, Err: err}
	}
	return nil
}

// findCall returns the first call (in table order) with (pid, corr).
func (p *nsysParser) findCall(pid, corr int64) (callRec, bool, error) {
	c, ok, err := p.calls.find(pid, corr)
	if err != nil {
		return c, false, &InputError{File: p.in.Path, Table: tabRuntime, Err: err}
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
			return badInput(p.in.Path, 0, tabGraph, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", v[5], v[1], v[0])
		}
		text := "CUDA graph " + strconv.FormatInt(v[4], 10)
		r := Range{Source: SourceNsys, File: p.file, Kind: RangeCUDAGraph, Text: text, Path: text,
			PID: gtidPID(v[3]), StartNs: v[0], EndNs: v[1], Null: NullTID}
		if v[3] == 0 {
			r.Null |= NullPID
		}
		pid := int64(0)
		if p.byPID {
			pid = gtidPID(v[3])
		}
		call, ok, err := p.findCall(pid, v[2])
		if err != nil {
			return err
		}
		if ok && v[2] >= 0 {
			r.PID, r.TID = gtidPID(call.gtid), gtidTID(call.gtid)
			r.Null = 0
			if call.rng >= 0 {
				par := &p.ranges[call.rng]
				id := par.id
				r.ParentID = &id
				r.Depth = par.depth + 1
				r.Path = strings.Join(par.comps, "/") + "/" + text
			}
		}
		p.b.AddRange(r)
		return nil
	})
}
