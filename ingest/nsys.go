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
	"path/filepath"
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
)

const (
	tabKernel  = "CUPTI_ACTIVITY_KIND_KERNEL"
	tabRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME"
	tabNVTX    = "NVTX_EVENTS"
	tabGPU     = "TARGET_INFO_GPU"
	tabStrings = "StringIds"
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

	ranges []nsysRange
	calls  map[callKey]int32 // (pid, correlationId) -> index in callRange
	// callRange[i] is the index in ranges of the innermost push/pop range
	// enclosing runtime call i, or -1; callGTID[i] its globalTid.
	callRange []int32
	callGTID  []int64
	// byPID: kernels carry globalPid and calls globalTid, so correlation ids
	// are matched within a process (ids repeat across processes). Older
	// exports without globalPid match on the correlation id alone.
	byPID bool
}

type callKey struct{ pid, corr int64 }

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
	if err := p.runtime(); err != nil {
		return err
	}
	return p.kernels(kcols)
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
			r.comps = make([]string, len(par.comps)+1)
			copy(r.comps, par.comps)
			r.comps[len(par.comps)] = r.text
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

// runtime reads the CUDA runtime calls that carry a correlationId and
// attributes each to the innermost push/pop range on its thread.
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
	gt := colOr(c, "", "globalTid", "0")
	var n int64
	if err := p.db.db.QueryRow(`SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME`).Scan(&n); err != nil {
		return p.db.wrap(tabRuntime, err)
	}
	p.calls = make(map[callKey]int32, n)
	p.callGTID = make([]int64, 0, n)
	p.callRange = make([]int32, 0, n)
	// Threads with push/pop ranges: only their calls need the sweep.
	ranged := map[int64][]int{} // gtid -> indices of push/pop ranges, in sorted order
	for i := range p.ranges {
		if p.ranges[i].kind == RangePushPop {
			ranged[p.ranges[i].gtid] = append(ranged[p.ranges[i].gtid], i)
		}
	}
	type call struct {
		idx        int32
		start, end int64
	}
	perThread := map[int64][]call{}
	rows, err := p.db.db.Query(`SELECT correlationId, COALESCE(` + gt + `,0), start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL`)
	if err != nil {
		return p.db.wrap(tabRuntime, err)
	}
	var corr, g, s, e int64
	for rows.Next() {
		if err := rows.Scan(&corr, &g, &s, &e); err != nil {
			rows.Close()
			return p.db.wrap(tabRuntime, err)
		}
		k := callKey{0, corr}
		if p.byPID {
			k.pid = gtidPID(g)
		}
		if _, dup := p.calls[k]; dup {
			continue // keep the first call with this id
		}
		idx := int32(len(p.callGTID))
		p.calls[k] = idx
		p.callGTID = append(p.callGTID, g)
		p.callRange = append(p.callRange, -1)
		if _, ok := ranged[g]; ok {
			perThread[g] = append(perThread[g], call{idx, s, e})
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return p.db.wrap(tabRuntime, err)
	}
	// Sweep each thread: calls and ranges both by start. Ranges of one
	// domain nest; across domains, the default domain (id 0) wins, then
	// the innermost range of any domain.
	for g, calls := range perThread {
		sort.Slice(calls, func(i, j int) bool { return calls[i].start < calls[j].start })
		rs := ranged[g]
		byDomain := map[int64][]int{}
		var doms []int64
		for _, ri := range rs {
			d := p.ranges[ri].domainID
			if _, ok := byDomain[d]; !ok {
				doms = append(doms, d)
			}
			byDomain[d] = append(byDomain[d], ri)
		}
		sort.Slice(doms, func(i, j int) bool { return doms[i] < doms[j] })
		for _, d := range doms {
			list := byDomain[d]
			var stack []int
			next := 0
			for _, cl := range calls {
				for next < len(list) && p.ranges[list[next]].start <= cl.start {
					r := &p.ranges[list[next]]
					for len(stack) > 0 && p.ranges[stack[len(stack)-1]].end < r.start {
						stack = stack[:len(stack)-1]
					}
					stack = append(stack, list[next])
					next++
				}
				for len(stack) > 0 && p.ranges[stack[len(stack)-1]].end < cl.start {
					stack = stack[:len(stack)-1]
				}
				// Innermost range holding the whole call.
				found := -1
				for j := len(stack) - 1; j >= 0; j-- {
					if r := &p.ranges[stack[j]]; r.start <= cl.start && cl.end <= r.end {
						found = stack[j]
						break
					}
				}
				if found < 0 {
					continue
				}
				cur := p.callRange[cl.idx]
				switch {
				case cur < 0:
					p.callRange[cl.idx] = int32(found)
				case p.ranges[cur].domainID == 0:
					// default domain already attributed
				case d != 0 && p.ranges[found].depth > p.ranges[cur].depth:
					p.callRange[cl.idx] = int32(found)
				}
			}
		}
	}
	return nil
}

func (p *nsysParser) kernels(c map[string]bool) error {
	ic := func(name string) string { return "COALESCE(" + colOr(c, "", name, "0") + ",0)" }
	nameCol := colOr(c, "", "demangledName", `"shortName"`)
	shortCol := colOr(c, "", "shortName", `"demangledName"`)
	q := "SELECT " + strings.Join([]string{
		`"start"`, `"end"`, ic("deviceId"), ic("contextId"), ic("streamId"),
		"COALESCE(" + colOr(c, "", "correlationId", "-1") + ",-1)",
		"COALESCE(" + colOr(c, "", "globalPid", "0") + ",0)",
		"COALESCE(" + nameCol + ",-1)", "COALESCE(" + shortCol + ",-1)",
		"COALESCE(" + colOr(c, "", "mangledName", "-1") + ",-1)",
		ic("registersPerThread"), ic("gridX"), ic("gridY"), ic("gridZ"), ic("blockX"), ic("blockY"), ic("blockZ"),
		ic("staticSharedMemory"), ic("dynamicSharedMemory"), ic("graphNodeId"),
	}, ", ") + ` FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid`
	rows, err := p.db.db.Query(q)
	if err != nil {
		return p.db.wrap(tabKernel, err)
	}
	defer rows.Close()
	var (
		start, end, dev, ctx, stream, corr, gpid, nameID, shortID, mangledID int64
		regs, gx, gy, gz, bx, by, bz, ss, ds, graphNode                      int64
	)
	dst := []any{&start, &end, &dev, &ctx, &stream, &corr, &gpid, &nameID, &shortID, &mangledID,
		&regs, &gx, &gy, &gz, &bx, &by, &bz, &ss, &ds, &graphNode}
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
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return p.db.wrap(tabKernel, err)
		}
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
		k := Kernel{Source: SourceNsys, File: p.file, Pass: PassTimeline,
			Name: name, ShortName: short, Mangled: mangled,
			Device: int32(dev), Context: ctx, Stream: stream, CorrelationID: corr,
			PID:   gtidPID(gpid),
			GridX: int32(gx), GridY: int32(gy), GridZ: int32(gz),
			BlockX: int32(bx), BlockY: int32(by), BlockZ: int32(bz),
			Registers: int32(regs), StaticSharedBytes: ss, DynSharedBytes: ds,
			StartNs: start, DurationNs: end - start}
		if graphNode != 0 {
			gn := graphNode
			k.GraphNodeID = &gn
		}
		cl := none
		key := callKey{0, corr}
		if p.byPID {
			key.pid = gtidPID(gpid)
		}
		if ci, ok := p.calls[key]; ok && corr >= 0 {
			g := p.callGTID[ci]
			k.PID, k.TID = gtidPID(g), gtidTID(g)
			if ri := p.callRange[ci]; ri >= 0 {
				cl = cellOf(ri)
			}
		}
		k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath = cl.exp, cl.variant, cl.shape, cl.rng, cl.path
		p.b.AddKernel(k)
	}
	if err := rows.Err(); err != nil {
		return p.db.wrap(tabKernel, err)
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
