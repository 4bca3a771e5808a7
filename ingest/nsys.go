package ingest

// Nsight Systems SQLite exports (nsys export --type sqlite), schema versions
// 2.9 (nsys 2022.1) to 3.24 (nsys 2026.1). Tables and columns come and go
// between versions: every SELECT is built from PRAGMA table_info.
//
// What is read:
//   - CUPTI_ACTIVITY_KIND_KERNEL -> kernels (names through StringIds)
//   - CUPTI_ACTIVITY_KIND_RUNTIME -> the launching thread of each kernel
//     (same correlationId, same process)
//   - NVTX_EVENTS push/pop (eventType 59) and start/end (60) ranges -> ranges;
//     domains from NvtxDomainCreate (75) events
//   - TARGET_INFO_GPU -> gpus; META_DATA_EXPORT / EXPORT_META_DATA -> meta
//
// Each kernel is attributed to the innermost NVTX push/pop range that
// encloses its launching runtime call on the same thread.

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// NVTX event types (ENUM_NSYS_EVENT_TYPE, identical in schema 2.9 and 3.x).
const (
	nvtxPushPopRange  = 59
	nvtxStartEndRange = 60
	nvtxDomainCreate  = 75
)

// Range kinds (ranges.kind).
const (
	RangePushPop    = "push_pop"
	RangeStartEnd   = "start_end"
	RangeAnnotation = "annotation"
	// RangeCUDAGraph is one CUDA graph launch as nsys traces it by default
	// (--cuda-graph-trace=graph): CUPTI_ACTIVITY_KIND_GRAPH_TRACE holds the
	// graph's GPU time and its kernels are not in the kernel table. The row
	// hangs under the NVTX range of its cudaGraphLaunch call.
	RangeCUDAGraph = "cuda_graph"
)

const (
	tabKernel  = "CUPTI_ACTIVITY_KIND_KERNEL"
	tabRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME"
	tabNVTX    = "NVTX_EVENTS"
	tabGPU     = "TARGET_INFO_GPU"
	tabStrings = "StringIds"
	tabGraph   = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
)

// globalTid / globalPid decoding (nsys docs, "Serialized process and thread
// identifiers": PID = globalTid / 0x1000000 % 0x1000000, TID = globalTid %
// 0x1000000).
func gtidPID(g int64) int64 { return (g >> 24) & 0xFFFFFF }
func gtidTID(g int64) int64 { return g & 0xFFFFFF }

func parseNsys(b *Builder, in Input) error {
	db, err := openSQLite(in.Path)
	if err != nil {
		return err
	}
	defer db.Close()
	p := &nsysParser{b: b, in: in, db: db, file: filepath.Base(in.Path), str: map[int64]string{}}
	return p.run()
}

type nsysParser struct {
	b    *Builder
	in   Input
	db   *sqliteDB
	file string

	str     map[int64]string
	strStmt *sql.Stmt

	ranges    []nsysRange
	rangeBase int64    // ranges[i].id == rangeBase + i
	calls     []rtCall // sorted by (pid, corr)
	// byPID: kernels carry globalPid and calls globalTid, so correlation ids
	// are matched within a process (ids repeat across processes). Older
	// exports without globalPid match on the correlation id alone.
	byPID bool
}

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

func (p *nsysParser) run() error {
	db := p.db
	if !db.has(tabKernel) {
		if db.has(tabStrings) || db.has(tabGPU) || db.has("META_DATA_EXPORT") || db.has("EXPORT_META_DATA") {
			return badInput(p.in.Path, 0, tabKernel, "missing: the report has no CUDA kernel activity (profile with nsys --trace=cuda and check that the program launched kernels)")
		}
		return badInput(p.in.Path, 0, "", "not an Nsight Systems export: no %s or %s table (has %s)", tabKernel, tabStrings, db.tableList(8))
	}
	if !db.has(tabStrings) {
		return badInput(p.in.Path, 0, tabStrings, "missing: an nsys export keeps kernel names there")
	}
	kcols, err := db.columns(tabKernel)
	if err != nil {
		return err
	}
	for _, c := range []string{"start", "end"} {
		if !kcols[c] {
			return badInput(p.in.Path, 0, tabKernel, "no column %q: not an Nsight Systems kernel table", c)
		}
	}
	if !kcols["demangledName"] && !kcols["shortName"] {
		return badInput(p.in.Path, 0, tabKernel, "no demangledName or shortName column: not an Nsight Systems kernel table")
	}
	rcols, err := db.columns(tabRuntime)
	if err != nil {
		return err
	}
	p.byPID = kcols["globalPid"] && rcols["globalTid"]
	p.strStmt, err = db.db.Prepare(`SELECT value FROM StringIds WHERE id = ?`)
	if err != nil {
		return db.wrap(tabStrings, err)
	}
	defer p.strStmt.Close()

	if err := p.meta(); err != nil {
		return err
	}
	if err := p.gpus(); err != nil {
		return err
	}
	if err := p.nvtx(); err != nil {
		return err
	}
	if err := p.kernels(kcols); err != nil {
		return err
	}
	return p.graphs()
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
		colOr(c, "", "globalPid", "0") + `, 0), COALESCE(` + colOr(c, "", "graphId", "0") + `, 0) FROM ` + tabGraph + ` ORDER BY rowid`
	return p.db.scanInts(tabGraph, q, 5, func(v []int64) error {
		text := "CUDA graph " + strconv.FormatInt(v[4], 10)
		r := Range{Source: SourceNsys, File: p.file, Kind: RangeCUDAGraph, Text: text, Path: text,
			PID: gtidPID(v[3]), StartNs: v[0], EndNs: v[1]}
		pid := int64(0)
		if p.byPID {
			pid = gtidPID(v[3])
		}
		if call := p.findCall(pid, v[2]); call != nil && v[2] >= 0 {
			r.PID, r.TID = gtidPID(call.gtid), gtidTID(call.gtid)
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

// lookup resolves a StringIds id; unknown ids give "".
func (p *nsysParser) lookup(id int64) (string, error) {
	if s, ok := p.str[id]; ok {
		return s, nil
	}
	var s string
	err := p.strStmt.QueryRow(id).Scan(&s)
	if err == sql.ErrNoRows {
		err = nil
	}
	if err != nil {
		return "", p.db.wrap(tabStrings, err)
	}
	p.str[id] = s
	return s, nil
}

func (p *nsysParser) meta() error {
	for _, t := range []string{"META_DATA_EXPORT", "EXPORT_META_DATA"} {
		if !p.db.has(t) {
			continue
		}
		cols, err := p.db.columns(t)
		if err != nil {
			return err
		}
		if !cols["name"] || !cols["value"] {
			continue
		}
		rows, err := p.db.db.Query(`SELECT name, COALESCE(value, '') FROM "` + t + `"`)
		if err != nil {
			return p.db.wrap(t, err)
		}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return p.db.wrap(t, err)
			}
			p.b.AddMeta(Meta{Source: SourceNsys, File: p.file, Key: k, Value: v})
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return p.db.wrap(t, err)
		}
	}
	// Counts of activity that rooftool does not turn into rows.
	for _, c := range []struct{ table, key string }{
		{"CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy_count"},
		{"CUPTI_ACTIVITY_KIND_MEMSET", "memset_count"},
		{"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "graph_trace_count"},
	} {
		if !p.db.has(c.table) {
			continue
		}
		var n int64
		if err := p.db.db.QueryRow(`SELECT COUNT(*) FROM "` + c.table + `"`).Scan(&n); err != nil {
			return p.db.wrap(c.table, err)
		}
		p.b.AddMeta(Meta{Source: SourceNsys, File: p.file, Key: c.key, Value: strconv.FormatInt(n, 10)})
	}
	return nil
}

func (p *nsysParser) gpus() error {
	if !p.db.has(tabGPU) {
		return nil
	}
	c, err := p.db.columns(tabGPU)
	if err != nil {
		return err
	}
	dev := colOr(c, "", "id", colOr(c, "", "cuDevice", "0"))
	q := "SELECT " + strings.Join([]string{
		"COALESCE(" + dev + ",0)",
		"COALESCE(" + colOr(c, "", "name", "''") + ",'')",
		"COALESCE(" + colOr(c, "", "computeMajor", "0") + ",0)",
		"COALESCE(" + colOr(c, "", "computeMinor", "0") + ",0)",
		"COALESCE(" + colOr(c, "", "smCount", "0") + ",0)",
		"COALESCE(" + colOr(c, "", "totalMemory", "0") + ",0)",
		"CAST(COALESCE(" + colOr(c, "", "memoryBandwidth", "0") + ",0) AS REAL)",
		"COALESCE(" + colOr(c, "", "l2CacheSize", "0") + ",0)",
		"CAST(COALESCE(" + colOr(c, "", "clockRate", "0") + ",0) AS REAL)",
		"CAST(COALESCE(" + colOr(c, "", "memoryClockRate", "0") + ",0) AS REAL)",
		"COALESCE(" + colOr(c, "", "busLocation", colOr(c, "", "uuid", "''")) + ",'')",
	}, ", ") + ` FROM "` + tabGPU + `" ORDER BY 1`
	rows, err := p.db.db.Query(q)
	if err != nil {
		return p.db.wrap(tabGPU, err)
	}
	defer rows.Close()
	for rows.Next() {
		g := GPU{Source: SourceNsys, File: p.file}
		var d, maj, min, sm int64
		if err := rows.Scan(&d, &g.Name, &maj, &min, &sm, &g.MemoryBytes, &g.MemoryBandwidth, &g.L2Bytes, &g.SMClockHz, &g.MemClockHz, &g.Bus); err != nil {
			return p.db.wrap(tabGPU, err)
		}
		g.Device, g.CCMajor, g.CCMinor, g.SMCount = int32(d), int32(maj), int32(min), int32(sm)
		p.b.AddGPU(g)
	}
	if err := rows.Err(); err != nil {
		return p.db.wrap(tabGPU, err)
	}
	return nil
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
		`COALESCE(` + colOr(c, "", "domainId", "0") + `,0), ` + text + `, COALESCE(` + textID + `, -1) ` +
		`FROM NVTX_EVENTS WHERE eventType IN (` + strconv.Itoa(nvtxPushPopRange) + `,` + strconv.Itoa(nvtxStartEndRange) + `) ORDER BY rowid`
	rows, err := p.db.db.Query(q)
	if err != nil {
		return p.db.wrap(tabNVTX, err)
	}
	var maxEnd int64
	for rows.Next() {
		var r nsysRange
		var et, tid int64
		var txt sql.NullString
		if err := rows.Scan(&r.start, &r.end, &et, &r.gtid, &r.domainID, &txt, &tid); err != nil {
			rows.Close()
			return p.db.wrap(tabNVTX, err)
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
		if r.parent >= 0 {
			par := r.parent
			row.ParentID = &par
		}
		p.b.AddRange(row)
	}
	return nil
}

// rtCall is one CUDA runtime call that carries a correlationId.
type rtCall struct {
	pid, corr, gtid int64
	rng             int32 // index in ranges of the innermost enclosing push/pop range, -1 if none
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

// runtime reads the CUDA runtime calls that carry a correlationId and
// attributes each to the innermost push/pop range on its thread: the
// default domain (id 0) first, else the deepest range of another domain.
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
	var n int64
	if err := p.db.db.QueryRow(`SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME`).Scan(&n); err != nil {
		return p.db.wrap(tabRuntime, err)
	}
	p.calls = make([]rtCall, 0, n)
	gt := colOr(c, "", "globalTid", "0")
	q := `SELECT correlationId, COALESCE(` + gt + `,0), start, COALESCE(end, start) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL`
	sorted := true
	err = p.db.scanInts(tabRuntime, q, 4, func(v []int64) error {
		call := rtCall{corr: v[0], gtid: v[1], rng: -1}
		if p.byPID {
			call.pid = gtidPID(call.gtid)
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
		if m := len(p.calls); m > 0 && callLess(&call, &p.calls[m-1]) {
			sorted = false
		}
		p.calls = append(p.calls, call)
		return nil
	})
	if err != nil {
		return err
	}
	if !sorted {
		// Stable: of calls sharing (pid, correlationId), the first in table
		// order is the one findCall returns.
		sort.SliceStable(p.calls, func(i, j int) bool { return callLess(&p.calls[i], &p.calls[j]) })
	}
	return nil
}

func callLess(a, b *rtCall) bool {
	if a.pid != b.pid {
		return a.pid < b.pid
	}
	return a.corr < b.corr
}

// findCall returns the first call with (pid, corr), or nil.
func (p *nsysParser) findCall(pid, corr int64) *rtCall {
	c := p.calls
	i := sort.Search(len(c), func(i int) bool { return c[i].pid > pid || c[i].pid == pid && c[i].corr >= corr })
	if i < len(c) && c[i].pid == pid && c[i].corr == corr {
		return &c[i]
	}
	return nil
}

// kernelQuery builds the kernel SELECT from the columns the table has:
//
//	0 start, 1 end, 2 deviceId, 3 contextId, 4 streamId, 5 correlationId,
//	6 globalPid, 7 demangledName, 8 shortName, 9 mangledName, 10 gridX,
//	11 dynamicSharedMemory, 12 graphNodeId, 13 rowid,
//	14 gridY | gridZ<<16 | blockX<<32 | blockY<<43 | blockZ<<54 (or -1),
//	15 registersPerThread | staticSharedMemory<<16 (or -1)
//
// Small columns are packed by SQLite: each value read through the Go driver
// costs more than SQLite spends on the whole row. A packed value is -1 when
// a field does not fit; then unpackedQuery reads that row again.
func kernelQuery(c map[string]bool) (string, func(string) string) {
	ic := func(name string) string { return "COALESCE(" + colOr(c, "", name, "0") + ",0)" }
	nameCol := colOr(c, "", "demangledName", `"shortName"`)
	shortCol := colOr(c, "", "shortName", `"demangledName"`)
	gy, gz, bx, by, bz := ic("gridY"), ic("gridZ"), ic("blockX"), ic("blockY"), ic("blockZ")
	regs, ss := ic("registersPerThread"), ic("staticSharedMemory")
	in := func(x string, max int64) string { return fmt.Sprintf("%s BETWEEN 0 AND %d", x, max) }
	p1 := "CASE WHEN " + strings.Join([]string{in(gy, 65535), in(gz, 65535), in(bx, 2047), in(by, 2047), in(bz, 511)}, " AND ") +
		" THEN " + gy + " | (" + gz + " << 16) | (" + bx + " << 32) | (" + by + " << 43) | (" + bz + " << 54) ELSE -1 END"
	p2 := "CASE WHEN " + in(regs, 65535) + " AND " + in(ss, 1<<40) + " THEN " + regs + " | (" + ss + " << 16) ELSE -1 END"
	q := "SELECT " + strings.Join([]string{
		`COALESCE("start",0)`, `COALESCE("end","start",0)`, ic("deviceId"), ic("contextId"), ic("streamId"),
		"COALESCE(" + colOr(c, "", "correlationId", "-1") + ",-1)",
		"COALESCE(" + colOr(c, "", "globalPid", "0") + ",0)",
		"COALESCE(" + nameCol + ",-1)", "COALESCE(" + shortCol + ",-1)",
		"COALESCE(" + colOr(c, "", "mangledName", "-1") + ",-1)",
		ic("gridX"), ic("dynamicSharedMemory"), ic("graphNodeId"), "rowid", p1, p2,
	}, ", ") + ` FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid`
	unpacked := func(rowid string) string {
		return "SELECT " + strings.Join([]string{gy, gz, bx, by, bz, regs, ss}, ", ") + " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = " + rowid
	}
	return q, unpacked
}

const kernelQueryCols = 16

func (p *nsysParser) kernels(c map[string]bool) error {
	q, unpacked := kernelQuery(c)
	// Cell of each range, computed once per range.
	type cell struct{ exp, variant, shape, rng, path string }
	cells := make([]*cell, len(p.ranges))
	cellOf := func(ri int32) *cell {
		if cells[ri] == nil {
			r := &p.ranges[ri]
			e, v, s := cellFromPath(r.comps, p.in.Options)
			cells[ri] = &cell{e, v, s, r.text, strings.Join(r.comps, "/")}
		}
		return cells[ri]
	}
	none := &cell{}
	none.exp, none.variant, none.shape = cellFromPath(nil, p.in.Options)
	// setCall fills the call-dependent fields of k; it returns the cell key.
	setCall := func(k *Kernel, gpid int64) int64 {
		k.PID, k.TID = gtidPID(gpid), 0
		cl, ckey := none, int64(0)
		pid := int64(0)
		if p.byPID {
			pid = gtidPID(gpid)
		}
		if k.CorrelationID >= 0 {
			if call := p.findCall(pid, k.CorrelationID); call != nil {
				k.PID, k.TID = gtidPID(call.gtid), gtidTID(call.gtid)
				if call.rng >= 0 {
					cl, ckey = cellOf(call.rng), int64(call.rng)+1
				}
			}
		}
		k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath = cl.exp, cl.variant, cl.shape, cl.rng, cl.path
		return ckey
	}
	app := newKernelAppender(p.b)
	defer app.flush()

	// With the fast appender the runtime calls are read on a second
	// connection while the kernels are read; the call-dependent columns are
	// appended in a second pass. Otherwise: calls first, then one pass.
	var rtErr chan error
	if app.fast {
		rtErr = make(chan error, 1)
		go func() { rtErr <- p.runtime() }()
	} else if err := p.runtime(); err != nil {
		return err
	}
	var gpids, corrs []int64
	var k Kernel
	var keys kernelKeys
	var gn int64
	err := p.db.scanInts(tabKernel, q, kernelQueryCols, func(v []int64) error {
		start, end, corr, gpid := v[0], v[1], v[5], v[6]
		nameID, shortID, mangledID := v[7], v[8], v[9]
		name, err := p.lookup(nameID)
		if err != nil {
			return err
		}
		short, err := p.lookup(shortID)
		if err != nil {
			return err
		}
		var mangled string
		if mangledID >= 0 {
			if mangled, err = p.lookup(mangledID); err != nil {
				return err
			}
		}
		k = Kernel{Source: SourceNsys, File: p.file, Pass: PassTimeline,
			Name: name, ShortName: short, Mangled: mangled,
			Device: int32(v[2]), Context: v[3], Stream: v[4], CorrelationID: corr,
			GridX: int32(v[10]), DynSharedBytes: v[11],
			StartNs: start, DurationNs: end - start}
		if v[12] != 0 {
			gn = v[12]
			k.GraphNodeID = &gn
		}
		p1, p2 := v[14], v[15]
		if p1 < 0 || p2 < 0 {
			var u [7]int64
			if err := p.db.db.QueryRow(unpacked(strconv.FormatInt(v[13], 10))).Scan(&u[0], &u[1], &u[2], &u[3], &u[4], &u[5], &u[6]); err != nil {
				return p.db.wrap(tabKernel, err)
			}
			k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ = int32(u[0]), int32(u[1]), int32(u[2]), int32(u[3]), int32(u[4])
			k.Registers, k.StaticSharedBytes = int32(u[5]), u[6]
		} else {
			k.GridY, k.GridZ = int32(p1&0xFFFF), int32(p1>>16&0xFFFF)
			k.BlockX, k.BlockY, k.BlockZ = int32(p1>>32&0x7FF), int32(p1>>43&0x7FF), int32(p1>>54&0x1FF)
			k.Registers, k.StaticSharedBytes = int32(p2&0xFFFF), p2>>16
		}
		keys = kernelKeys{kdName: nameID, kdShortName: shortID, kdMangled: mangledID}
		if app.fast {
			app.addBase(&k, &keys)
			gpids, corrs = append(gpids, gpid), append(corrs, corr)
			return nil
		}
		ckey := setCall(&k, gpid)
		for _, j := range []int{kdExperiment, kdVariant, kdShape, kdRange, kdRangePath} {
			keys[j] = ckey
		}
		app.add(&k, &keys)
		return nil
	})
	if rtErr != nil {
		if e := <-rtErr; err == nil {
			err = e
		}
	}
	if err != nil || !app.fast {
		return err
	}
	for i := range gpids {
		k.CorrelationID = corrs[i]
		app.addCall(&k, setCall(&k, gpids[i]))
	}
	return nil
}

// cellFromPath derives experiment, variant and shape from a range path:
// when it has three or more components and the last looks like a shape
// (k=v,...), the last three are experiment/variant/shape. Options override.
func cellFromPath(comps []string, o Options) (exp, variant, shape string) {
	if n := len(comps); n >= 3 && looksLikeShape(comps[n-1]) {
		exp, variant, shape = comps[n-3], comps[n-2], comps[n-1]
	}
	return or(o.Experiment, exp), or(o.Variant, variant), or(o.Shape, shape)
}

// looksLikeShape reports whether s is a canonical shape string:
// comma-separated key=value pairs with identifier keys, e.g. "B=16,T=512".
func looksLikeShape(s string) bool {
	if s == "" {
		return false
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" || v == "" {
			return false
		}
		for i, r := range k {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}
