package nsys

// Kernels of an Nsight Systems export summed per NVTX range, as `nsys stats
// -r nvtx_kern_sum` projects them: each kernel goes to every NVTX range of
// its launching thread that holds its launching call, not only to the
// innermost one (a kernel under three nested ranges counts in all three),
// push/pop and start/end ranges alike. What is read: the kernel table, the
// runtime calls, the NVTX events and StringIds; nothing else.
//
// nsys builds an R*Tree of the ranges and joins kernels, calls and ranges
// in SQL (105 s and 3.3 GB for a million kernels under 1.8 million
// ranges). Here the kernels are read first (what a call needs of them: its
// process and correlation id, duration, name), then the calls and the
// ranges are swept together in start order (nsys_nvtx_sweep.go): each
// thread keeps the ranges open at the sweep's time, and a call takes those
// that hold it. Memory goes with the kernels (40 bytes each), one duration
// per (kernel, range) pair, and the ranges open at a time, not with the
// ranges or calls of the export.

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// NVTX event types of ranges imported from NVTXT files, which nsys's
// report counts with the ranges of the same style.
const (
	nvtxtPushPopRange  = 70
	nvtxtStartEndRange = 71
)

// nvtxRangeTypes are the eventType values of NVTX ranges, for SQL.
var nvtxRangeTypes = strconv.Itoa(nvtxPushPopRange) + "," + strconv.Itoa(nvtxStartEndRange) + "," +
	strconv.Itoa(nvtxtPushPopRange) + "," + strconv.Itoa(nvtxtStartEndRange)

// Range styles as nvtx_kern_sum names them.
const (
	StylePushPop  = "PushPop"
	StyleStartEnd = "StartEnd"
)

// RangeKernGroup is one row of nsys's nvtx_kern_sum before its
// figures: the kernels of one name launched from one thread under NVTX
// ranges of one name and style.
type RangeKernGroup struct {
	Range string // the range's domain name, ":" and its text ("" for the default domain)
	Style string // StylePushPop or StyleStartEnd
	// RangeNull: the kernels launched outside every range of their
	// thread; Range and Style are NULL.
	RangeNull bool
	PID, TID  int64
	// ThreadNull: the kernels no runtime call launched (none has their
	// process and correlation id); PID, TID, Range and Style are NULL.
	ThreadNull bool
	Kernel     string
	KernelNull bool // the kernel's name id is NULL or not in StringIds
	Ranges     int  // NVTX Inst: the ranges that hold a kernel of the row
	Kernels    int  // Kern Inst: the kernels of the row
	// Durations (end - start, ns) are one per (kernel, range) pair: a
	// kernel under two nested ranges of one name counts twice here, once
	// in Kernels, as nsys counts it.
	Durations []int64
}

// RangeKernGroups reads the nsys SQLite export at path and returns
// the rows of nvtx_kern_sum, unordered, their kernels named by names:
// "base" (shortName), "mangled" (mangledName where the table has it) or
// anything else (demangledName); a NULL name falls back to
// demangledName, as nsys's coalesce does. Calls are matched to kernels on
// correlationId within the kernel's process (globalPid; on correlationId
// alone in exports without it). Ranges that ended on another thread
// (endGlobalTid set) are left out; a range never closed ends at the last
// NVTX time of the export, as nsys's report has it.
func RangeKernGroups(path, names string) ([]RangeKernGroup, error) {
	db, err := openSQLite(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	kc, err := kernelTable(db, path)
	if err != nil {
		return nil, err
	}
	need := map[string][]string{
		tabKernel:  {"correlationId"},
		tabRuntime: {"correlationId", "globalTid", "start", "end"},
		tabNVTX:    {"start", "eventType", "globalTid"},
	}
	for _, t := range []string{tabKernel, tabRuntime, tabNVTX} {
		if !db.has(t) {
			return nil, ingest.BadInput(path, 0, t, "missing")
		}
		c, err := db.columns(t)
		if err != nil {
			return nil, err
		}
		for _, col := range need[t] {
			if !c[col] {
				return nil, ingest.BadInput(path, 0, t, "no column %q: not an Nsight Systems export", col)
			}
		}
	}
	ks, err := readSweepKernels(db, path, kc, names)
	if err != nil {
		return nil, err
	}
	plan, err := readSweepPlan(db, path)
	if err != nil {
		return nil, err
	}
	var dups map[int32]bool
	sortedCalls, sortedRanges := true, true
	for {
		s := newNVTXSweep(db, path, ks, plan, dups)
		err := s.run(sortedCalls, sortedRanges)
		switch err {
		case errCallOrder:
			sortedCalls = false
			continue
		case errRangeOrder:
			sortedRanges = false
			continue
		case nil:
		default:
			return nil, err
		}
		// A kernel that two calls claim (a correlation id given twice in
		// a process) is counted once per row in Kern Inst: where there is
		// one, the sweep runs again keeping the rows of those kernels.
		if d := ks.claimedTwice(); dups == nil && len(d) > 0 {
			dups = d
			continue
		}
		return s.result(), nil
	}
}

// sweepKernel is what the sweep needs of a kernel.
type sweepKernel struct {
	key   callKey
	dur   int64
	name  int32 // into sweepKernels.names; -1 for NULL
	calls int32 // calls that claimed it in this sweep
}

// callKey matches a kernel with its launching call: the process
// (globalPid, or 0 where calls are matched on correlationId alone) and
// the correlation id.
type callKey struct{ pid, corr int64 }

// sweepKernels are the kernels of an export, sorted by key (those no call
// can claim, a NULL in their key, first).
type sweepKernels struct {
	ks    []sweepKernel
	names []string // kernel names, distinct
	byPID bool
	cur   int // where the last find ended
}

// find returns the first kernel of key, false where none has it. Calls
// come in nearly the order of their correlation ids, so the search
// gallops from where the last one ended: a few probes, near each other
// in memory, where a hash map would miss the cache on every call.
func (k *sweepKernels) find(key callKey) (int32, bool) {
	ks := k.ks
	n := len(ks)
	before := func(i int) bool { return keyLess(ks[i].key, key) }
	// The first kernel not before key lies in [lo, hi].
	var lo, hi int
	c := min(k.cur, n)
	if c < n && before(c) {
		prev, probe := c, c+1
		for step := 1; probe < n && before(probe); probe = c + step {
			prev, step = probe, step*2
		}
		lo, hi = prev+1, min(probe, n)
	} else {
		next, probe := c, c-1
		for step := 1; probe >= 0 && !before(probe); probe = c - step {
			next, step = probe, step*2
		}
		lo, hi = max(probe+1, 0), next
	}
	i := lo + sort.Search(hi-lo, func(j int) bool { return !before(lo + j) })
	k.cur = i
	if i < n && ks[i].key == key {
		return int32(i), true
	}
	return 0, false
}

func keyLess(a, b callKey) bool {
	return a.pid < b.pid || a.pid == b.pid && a.corr < b.corr
}

// claimedTwice returns the kernels that more than one call claimed.
func (k *sweepKernels) claimedTwice() map[int32]bool {
	var out map[int32]bool
	for i := range k.ks {
		if k.ks[i].calls > 1 {
			if out == nil {
				out = map[int32]bool{}
			}
			out[int32(i)] = true
		}
	}
	return out
}

// keyOf is the key of a call on thread gtid (sqlNull: none) with
// correlation id corr; false where no kernel can match it.
func (k *sweepKernels) keyOf(gtid, corr int64) (callKey, bool) {
	if corr == sqlNull {
		return callKey{}, false
	}
	if !k.byPID {
		return callKey{0, corr}, true
	}
	if gtid == sqlNull {
		return callKey{}, false
	}
	return callKey{gtid &^ 0xFFFFFF, corr}, true
}

// readSweepKernels reads the kernels: key, duration, name (interned by
// its text, so that two ids of one text are one name, as nsys's GROUP BY
// on the text has them).
func readSweepKernels(db *sqliteDB, path string, c map[string]bool, names string) (*sweepKernels, error) {
	col := nameColName(c)
	switch {
	case names == "base":
		col = shortColName(c)
	case names == "mangled" && c["mangledName"]:
		col = "mangledName"
	}
	k := &sweepKernels{byPID: c["globalPid"]}
	q := `SELECT correlationId, ` + colOr(c, "", "globalPid", "NULL") + `, start, "end", "` + col + `", "` + nameColName(c) +
		`", rowid FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE %s ORDER BY rowid`
	ids := map[int64]int32{}
	var idList []int64
	err := db.scanSplit(tabKernel, q, 7, sqlNull, func(v []int64) error {
		if err := kernelSpanErr(path, v[6], v[2], v[3]); err != nil {
			return err
		}
		key := callKey{pid: sqlNull, corr: v[0]}
		if v[0] != sqlNull && (!k.byPID || v[1] != sqlNull) {
			key.pid = 0
			if k.byPID {
				key.pid = v[1]
			}
		}
		id := v[4]
		if id == sqlNull {
			id = v[5]
		}
		name := int32(-1)
		if id != sqlNull {
			n, ok := ids[id]
			if !ok {
				n = int32(len(idList))
				ids[id] = n
				idList = append(idList, id)
			}
			name = n
		}
		k.ks = append(k.ks, sweepKernel{key: key, dur: v[3] - v[2], name: name})
		return nil
	})
	if err != nil {
		return nil, err
	}
	text, err := stringsOf(db, path, idList)
	if err != nil {
		return nil, err
	}
	// id index -> name index, one per distinct text; -1 for an id
	// StringIds lacks.
	byText := map[string]int32{}
	remap := make([]int32, len(idList))
	for i, id := range idList {
		t, ok := text[id]
		if !ok {
			remap[i] = -1
			continue
		}
		n, seen := byText[t]
		if !seen {
			n = int32(len(k.names))
			byText[t] = n
			k.names = append(k.names, t)
		}
		remap[i] = n
	}
	for i := range k.ks {
		if n := k.ks[i].name; n >= 0 {
			k.ks[i].name = remap[n]
		}
	}
	slices.SortFunc(k.ks, func(a, b sweepKernel) int {
		if a.key.pid != b.key.pid {
			return cmpInt(a.key.pid, b.key.pid)
		}
		return cmpInt(a.key.corr, b.key.corr)
	})
	return k, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sweepPlan is what the sweep needs to know of the NVTX ranges before it
// reads them.
type sweepPlan struct {
	// openEnd is the end of a range never closed: the last start or end
	// of any range; openOK is false where the export has no closed range
	// (nsys's max() is then NULL and such a range holds nothing).
	openEnd int64
	openOK  bool
	// domains names the NVTX domains by (process, domain id).
	domains      map[domKey]string
	endTid, text string // SQL of endGlobalTid ("NULL" if absent) and of a range's text
}

// readSweepPlan reads the last NVTX time and the domain names: the name a
// domain's earliest NvtxDomainCreate event gives it (a registered string
// or the text), per process.
func readSweepPlan(db *sqliteDB, path string) (*sweepPlan, error) {
	c := db.cols[tabNVTX]
	p := &sweepPlan{domains: map[domKey]string{}, endTid: colOr(c, "ne.", "endGlobalTid", "NULL")}
	switch {
	case c["textId"] && c["text"]:
		p.text = "COALESCE(sid.value, ne.text)"
	case c["textId"]:
		p.text = "sid.value"
	case c["text"]:
		p.text = "ne.text"
	default:
		p.text = "NULL"
	}
	end := colOr(c, "", "end", "NULL")
	var maxStart, maxEnd *int64
	if err := db.db.QueryRow(`SELECT max(start), max(`+end+`) FROM NVTX_EVENTS WHERE eventType IN (`+nvtxRangeTypes+`)`).Scan(&maxStart, &maxEnd); err != nil {
		return nil, db.wrap(tabNVTX, err)
	}
	if maxStart != nil && maxEnd != nil {
		p.openEnd, p.openOK = max(*maxStart, *maxEnd), true
	}
	if !c["domainId"] {
		return p, nil
	}
	type first struct {
		start, row int64
		name       string
	}
	names := map[domKey]first{}
	rs := db.streamRows(tabNVTX, `SELECT ne.domainId, ne.globalTid, ne.start, ne.rowid, `+p.text+` FROM NVTX_EVENTS AS ne`+p.stringJoin(c)+
		` WHERE ne.eventType = `+strconv.Itoa(nvtxDomainCreate), 4, sqlNull)
	defer rs.close()
	for {
		v, text, _, ok, err := rs.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if v[0] == sqlNull || v[1] == sqlNull {
			continue // joins no range
		}
		k := domKey{gtidPID(v[1]), v[0]}
		if f, seen := names[k]; !seen || v[2] < f.start || v[2] == f.start && v[3] < f.row {
			names[k] = first{v[2], v[3], strings.Clone(text)}
		}
	}
	for k, f := range names {
		p.domains[k] = f.name
	}
	return p, nil
}

// stringJoin is the join of NVTX_EVENTS (as ne) with StringIds (as sid)
// that p.text reads, "" where it reads no registered string.
func (p *sweepPlan) stringJoin(c map[string]bool) string {
	if !c["textId"] {
		return ""
	}
	return ` LEFT JOIN StringIds AS sid ON sid.id = ne.textId`
}
