package nsys

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
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/callindex"
)

// NVTX event types (ENUM_NSYS_EVENT_TYPE, identical in schema 2.9 and 3.x).
const (
	nvtxPushPopRange  = 59
	nvtxStartEndRange = 60
	nvtxDomainCreate  = 75
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

// Parse reads the Nsight Systems SQLite export at in.Path into b: its
// kernels, NVTX ranges, CUDA graph launches, memory copies and memsets,
// GPUs and export metadata.
func Parse(b *ingest.Builder, in ingest.Input) error {
	db, err := openSQLite(in.Path)
	if err != nil {
		return err
	}
	defer db.Close()
	p := &nsysParser{b: b, in: in, db: db, file: filepath.Base(in.Path), str: map[int64]string{}}
	return p.run()
}

type nsysParser struct {
	b    *ingest.Builder
	in   ingest.Input
	db   *sqliteDB
	file string

	str     map[int64]string
	strStmt *sql.Stmt
	// missing counts the kernels whose name id has no StringIds row, by id.
	missing     map[int64]*strMiss
	missingList []int64 // ids in the order first seen

	// nodes are the interned range paths (internNode), nodeIdx their index.
	nodes     []rangeNode
	nodeIdx   map[nodeKey]int32
	rangeBase int64            // id of the export's first NVTX range
	calls     *callindex.Index // runtime calls by (pid, corr); nil without any
	// byPID: kernels carry globalPid and calls globalTid, so correlation ids
	// are matched within a process (ids repeat across processes). Older
	// exports without globalPid match on the correlation id alone.
	byPID bool
}

// kernelTable checks that db is an nsys export with a kernel table and
// StringIds, the kernel table with the columns rooftool reads (start, end,
// a name), and returns the kernel table's columns.
func kernelTable(db *sqliteDB, path string) (map[string]bool, error) {
	if !db.has(tabKernel) {
		if dl := dlprofTables(db); len(dl) > 0 {
			return nil, ingest.BadInput(path, 0, "", "a DLProf database (tables %s), not an Nsight Systems export: DLProf writes its own summary of an nsys profile; "+
				"ingest the nsys export it profiled (the .nsys-rep, or nsys export --type sqlite of it) instead", strings.Join(dl, ", "))
		}
		if db.has(tabStrings) || db.has(tabGPU) || db.has("META_DATA_EXPORT") || db.has("EXPORT_META_DATA") {
			return nil, ingest.NoKernels(path, tabKernel, "missing: the report has no CUDA kernel activity (profile with nsys --trace=cuda and check that the program launched kernels)")
		}
		return nil, ingest.BadInput(path, 0, "", "not an Nsight Systems export: no %s or %s table (has %s)", tabKernel, tabStrings, db.tableList(8))
	}
	if !db.has(tabStrings) {
		return nil, ingest.BadInput(path, 0, tabStrings, "missing: an nsys export keeps kernel names there")
	}
	c, err := db.columns(tabKernel)
	if err != nil {
		return nil, err
	}
	for _, col := range []string{"start", "end"} {
		if !c[col] {
			return nil, ingest.BadInput(path, 0, tabKernel, "no column %q: not an Nsight Systems kernel table", col)
		}
	}
	if !c["demangledName"] && !c["shortName"] {
		return nil, ingest.BadInput(path, 0, tabKernel, "no demangledName or shortName column: not an Nsight Systems kernel table")
	}
	return c, nil
}

// dlprofTables are the tables of db that DLProf's own database holds
// (read_only_kernels, read_only_ops, ...: the read_only_ prefix), sorted;
// an nsys export has none.
func dlprofTables(db *sqliteDB) []string {
	var out []string
	for t := range db.tables {
		if strings.HasPrefix(strings.ToLower(t), "read_only_") || strings.HasPrefix(strings.ToLower(t), "dlprof") {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	if len(out) > 6 {
		out = append(out[:6], fmt.Sprintf("... (%d tables)", len(out)))
	}
	return out
}

// kernelSpanErr is the error for a kernel row (its row id, start and end
// as read, sqlNull for NULL) without a start or end, or ending before it
// starts; nil for a good one.
func kernelSpanErr(path string, rowid, start, end int64) error {
	for j, v := range [...]int64{start, end} {
		if v == sqlNull {
			return ingest.BadInput(path, 0, tabKernel, "row id %d: column %q is NULL: the kernel has no duration", rowid, [...]string{"start", "end"}[j])
		}
	}
	if end < start {
		return ingest.BadInput(path, 0, tabKernel, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", rowid, end, start)
	}
	if d := end - start; d < 0 || d > ingest.MaxKernelNs {
		return ingest.BadInput(path, 0, tabKernel, "row id %d: \"end\" %d - \"start\" %d is more than 2^62 ns (146 years): not a kernel's duration", rowid, end, start)
	}
	return nil
}

func (p *nsysParser) run() error {
	db := p.db
	kcols, err := kernelTable(db, p.in.Path)
	if err != nil {
		return err
	}
	rcols, err := db.columns(tabRuntime)
	if err != nil {
		return err
	}
	p.byPID = kcols["globalPid"] && rcols["globalTid"]
	if err := checkStringIds(db, p.in.Path); err != nil {
		return err
	}
	p.strStmt, err = db.db.Prepare(strQuery)
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
	if err := p.runtime(); err != nil {
		return err
	}
	defer p.calls.Close()
	if err := p.kernels(kcols); err != nil {
		return err
	}
	p.kernelWarnings()
	if err := p.graphs(); err != nil {
		return err
	}
	return p.copies()
}

// strQuery reads one StringIds value and its length in bytes; a value
// longer than MaxFieldBytes is not read (octet_length does not read it).
var strQuery = `SELECT CASE WHEN octet_length(value) > ` + strconv.Itoa(ingest.MaxFieldBytes) + ` THEN '' ELSE value END, COALESCE(octet_length(value), 0) FROM StringIds WHERE id = ?`

// checkStringIds refuses a StringIds table that gives an id twice: a name
// looked up by that id would be one of them, silently.
func checkStringIds(db *sqliteDB, path string) error {
	var id, n int64
	err := db.db.QueryRow(`SELECT id, COUNT(*) FROM StringIds GROUP BY id HAVING COUNT(*) > 1 LIMIT 1`).Scan(&id, &n)
	switch {
	case err == sql.ErrNoRows:
		return nil
	case err != nil:
		return db.wrap(tabStrings, err)
	}
	return ingest.BadInput(path, 0, tabStrings, "id %d is given %d times: the names of the kernels and ranges that name it would be ambiguous", id, n)
}

// queryString reads StringIds id: false where the table lacks it.
func (p *nsysParser) queryString(id int64) (string, bool, error) {
	var s string
	var n int64
	err := p.strStmt.QueryRow(id).Scan(&s, &n)
	if err == sql.ErrNoRows {
		return "", false, nil
	}
	if err != nil {
		return "", false, p.db.wrap(tabStrings, err)
	}
	if n > ingest.MaxFieldBytes {
		return "", false, ingest.BadInput(p.in.Path, 0, tabStrings, "id %d: the value holds %d bytes, longer than the limit of %s", id, n, ingest.SizeMiB(ingest.MaxFieldBytes))
	}
	return s, true, nil
}

// lookup resolves a StringIds id; unknown ids give "".
func (p *nsysParser) lookup(id int64) (string, error) {
	if s, ok := p.str[id]; ok {
		return s, nil
	}
	s, _, err := p.queryString(id)
	if err != nil {
		return "", err
	}
	p.str[id] = s
	return s, nil
}

// strMiss is a StringIds id that kernels name but the table lacks.
type strMiss struct {
	col      string // kernel column that named it first
	firstRow int64  // kernel row id that named it first
	n        int    // kernel columns naming it
}

// unknownName is the name given to a kernel whose name id has no StringIds
// row: it keeps the id, so kernels of different missing names stay apart.
func unknownName(id int64) string { return fmt.Sprintf("<unknown: StringIds id %d>", id) }

// kernelString resolves the name id in kernel column col of kernel row
// rowid. An id that StringIds lacks gives a name marked unknown and a
// warning (kernelWarnings); a negative id (a null name) gives "".
func (p *nsysParser) kernelString(id int64, col string, rowid int64) (string, error) {
	if id < 0 {
		return "", nil
	}
	if m := p.missing[id]; m != nil {
		m.n++
		return unknownName(id), nil
	}
	if s, ok := p.str[id]; ok {
		return s, nil
	}
	s, found, err := p.queryString(id)
	if err != nil {
		return "", err
	}
	if !found {
		if p.missing == nil {
			p.missing = map[int64]*strMiss{}
		}
		p.missing[id] = &strMiss{col: col, firstRow: rowid, n: 1}
		p.missingList = append(p.missingList, id)
		return unknownName(id), nil
	}
	p.str[id] = s
	return s, nil
}

// kernelWarnings writes a meta row (key "warning") for each kernel name id
// that StringIds lacks.
func (p *nsysParser) kernelWarnings() {
	for _, id := range p.missingList {
		m := p.missing[id]
		p.b.AddMeta(ingest.Meta{Source: ingest.SourceNsys, File: p.file, Key: "warning", Value: fmt.Sprintf(
			"table %s has no row id %d, named by %d kernel name column(s) (first: %s.%s, row id %d); those names are marked %q",
			tabStrings, id, m.n, tabKernel, m.col, m.firstRow, unknownName(id))})
	}
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
		// Lengths first (octet_length reads none of the text): a value past
		// MaxFieldBytes is refused, not read.
		lim := strconv.Itoa(ingest.MaxFieldBytes)
		rows, err := p.db.db.Query(`SELECT CASE WHEN octet_length(name) > ` + lim + ` THEN '' ELSE name END, CASE WHEN octet_length(value) > ` + lim +
			` THEN '' ELSE COALESCE(value, '') END, max(COALESCE(octet_length(name), 0), COALESCE(octet_length(value), 0)), rowid FROM "` + t + `"`)
		if err != nil {
			return p.db.wrap(t, err)
		}
		for rows.Next() {
			var k, v string
			var n, rowid int64
			if err := rows.Scan(&k, &v, &n, &rowid); err != nil {
				rows.Close()
				return p.db.wrap(t, err)
			}
			if n > ingest.MaxFieldBytes {
				rows.Close()
				return ingest.BadInput(p.in.Path, 0, t, "row id %d: a name or value of %d bytes, longer than the limit of %s", rowid, n, ingest.SizeMiB(ingest.MaxFieldBytes))
			}
			p.b.AddMeta(ingest.Meta{Source: ingest.SourceNsys, File: p.file, Key: k, Value: v})
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
		p.b.AddMeta(ingest.Meta{Source: ingest.SourceNsys, File: p.file, Key: c.key, Value: strconv.FormatInt(n, 10)})
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
		g := ingest.GPU{Source: ingest.SourceNsys, File: p.file}
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
