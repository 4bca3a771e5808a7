//go:build cgo

package nsys

import (
	"database/sql"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/callindex"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// genNVTXTrace writes an nsys export of random NVTX ranges, runtime calls
// and kernels: two processes of three threads each; push/pop ranges in two
// domains, nested and overlapping (a range may end past its parent), some
// never closed; start/end ranges; text inline or through textId; ties of
// start; correlation ids repeated within a process. The rows are written
// in the sweep's order (order 0: start, end descending, thread), by start
// alone (1: ties out of that order), shuffled (2) or in the sweep's order
// but for one pair of equal start swapped (3).
func genNVTXTrace(t testing.TB, path string, seed int64, order int) {
	t.Helper()
	rnd := rand.New(rand.NewSource(seed))
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := tx.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`)
	texts := []string{"train", "step", "fwd", "bwd", "gla", "fused", "B=8,T=64", "B=8,T=128", "a/b", ""}
	for i, s := range texts {
		exec(`INSERT INTO StringIds VALUES (?, ?)`, 100+i, s)
	}
	exec(`INSERT INTO StringIds VALUES (1, 'k1'), (2, 'k2'), (3, 'dom-a')`)
	exec(`CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT, domainId INT, textId INT)`)
	exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT, returnValue INT)`)
	exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT, demangledName INT, shortName INT, registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT, globalPid INT, mangledName INT, graphNodeId INT)`)
	type row []any
	var nvtx, rt, kern []row
	for _, pid := range []int64{7, 9} {
		nvtx = append(nvtx, row{int64(0), nil, int64(nvtxDomainCreate), "dom-" + fmt.Sprint(pid), pid<<24 | 1, int64(5), nil})
		for tid := int64(1); tid <= 3; tid++ {
			g := pid<<24 | tid
			// Nested ranges: a random walk of pushes and pops.
			var stack []int64
			now := int64(rnd.Intn(10))
			for i := 0; i < 120; i++ {
				now += int64(rnd.Intn(3)) // ties of start
				dom := int64(0)
				if rnd.Intn(4) == 0 {
					dom = 5
				}
				if len(stack) > 0 && rnd.Intn(3) == 0 {
					stack = stack[:len(stack)-1]
					continue
				}
				length := int64(1 + rnd.Intn(60))
				if len(stack) > 0 && rnd.Intn(5) != 0 {
					length = min(length, stack[len(stack)-1]-now) // nested, else overlapping
				}
				var end any = now + max(length, 0)
				if rnd.Intn(40) == 0 {
					end = nil // never closed
				}
				var text, textID any
				if k := rnd.Intn(len(texts)); rnd.Intn(2) == 0 {
					text = texts[k]
				} else {
					textID = int64(100 + k)
				}
				et := int64(nvtxPushPopRange)
				if rnd.Intn(10) == 0 {
					et = nvtxStartEndRange
				}
				nvtx = append(nvtx, row{now, end, et, text, g, dom, textID})
				if tid > 1 && rnd.Intn(8) == 0 {
					// The same range on a thread of a lower id, after it.
					nvtx = append(nvtx, row{now, end, et, text, g - 1, dom, textID})
				}
				if e, ok := end.(int64); ok && et == nvtxPushPopRange {
					stack = append(stack, e)
				}
			}
			// Calls and their kernels.
			for i := 0; i < 150; i++ {
				cs := int64(rnd.Intn(int(now + 20)))
				corr := int64(rnd.Intn(200)) // repeats within the process
				rt = append(rt, row{cs, cs + int64(rnd.Intn(8)), int64(1), g, corr, int64(1), int64(0)})
				if rnd.Intn(2) == 0 {
					kern = append(kern, row{cs + 50, cs + 50 + int64(rnd.Intn(100)), 0, 1, 7, corr, int64(1 + rnd.Intn(2)), int64(2), 32, 1, 1, 1, 128, 1, 1, 0, 0, pid << 24, nil, nil})
				}
			}
		}
	}
	end := func(r row) int64 {
		if e, ok := r[1].(int64); ok {
			return e
		}
		return 1 << 40
	}
	arrange := func(rows []row) {
		switch order {
		case 0, 3:
			sort.SliceStable(rows, func(i, j int) bool {
				a, b := rows[i], rows[j]
				if a[0].(int64) != b[0].(int64) {
					return a[0].(int64) < b[0].(int64)
				}
				if end(a) != end(b) {
					return end(a) > end(b)
				}
				return a[4].(int64) < b[4].(int64)
			})
		case 1:
			sort.SliceStable(rows, func(i, j int) bool { return rows[i][0].(int64) < rows[j][0].(int64) })
		default:
			rnd.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		}
	}
	arrange(nvtx)
	if order == 3 {
		var ties []int
		for i := 1; i < len(nvtx); i++ {
			if nvtx[i][0].(int64) == nvtx[i-1][0].(int64) && nvtx[i][2].(int64) != nvtxDomainCreate {
				ties = append(ties, i)
			}
		}
		if len(ties) > 0 {
			i := ties[rnd.Intn(len(ties))]
			nvtx[i], nvtx[i-1] = nvtx[i-1], nvtx[i]
		}
	}
	if order != 2 {
		sort.SliceStable(rt, func(i, j int) bool { return rt[i][0].(int64) < rt[j][0].(int64) })
	} else {
		rnd.Shuffle(len(rt), func(i, j int) { rt[i], rt[j] = rt[j], rt[i] })
	}
	for _, r := range nvtx {
		exec(`INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?,?)`, r...)
	}
	for _, r := range rt {
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?)`, r...)
	}
	for _, r := range kern {
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, r...)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// refRange is a range as the reference attribution holds it.
type refRange struct {
	kind, domain, text string
	gtid, domainID     int64
	start, end         int64
	comps              []string
	depth              int32
	parent             int
}

// refAttribution is NVTX attribution done the way it was before the sweep,
// with every range in memory: the ranges read in table order, sorted
// (start, end descending, thread, stable), nested with a stack per thread
// and domain; each call's range found by binary search on its thread's
// ranges and a walk up their parents. It returns the ranges in id order
// and, per kernel in table order, the index of its range (-1: none) and its
// launching thread (0: no call).
func refAttribution(t *testing.T, path string) ([]refRange, []int, []int64) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	str := func(id int64) string {
		var s string
		db.QueryRow(`SELECT value FROM StringIds WHERE id = ?`, id).Scan(&s)
		return s
	}
	domains := map[[2]int64]string{}
	rows, err := db.Query(`SELECT globalTid, domainId, COALESCE(text,'') FROM NVTX_EVENTS WHERE eventType = 75 ORDER BY start`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g, id int64
		var name string
		rows.Scan(&g, &id, &name)
		if _, ok := domains[[2]int64{gtidPID(g), id}]; !ok {
			domains[[2]int64{gtidPID(g), id}] = name
		}
	}
	rows.Close()
	var ranges []refRange
	var maxEnd int64
	rows, err = db.Query(`SELECT start, COALESCE(end, -1), eventType, globalTid, domainId, text, COALESCE(textId, -1) FROM NVTX_EVENTS WHERE eventType IN (59, 60) ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r refRange
		var et, tid int64
		var txt sql.NullString
		if err := rows.Scan(&r.start, &r.end, &et, &r.gtid, &r.domainID, &txt, &tid); err != nil {
			t.Fatal(err)
		}
		if txt.Valid {
			r.text = txt.String
		} else if tid >= 0 {
			r.text = str(tid)
		}
		r.kind = ingest.RangePushPop
		if et == nvtxStartEndRange {
			r.kind = ingest.RangeStartEnd
		}
		if r.domainID != 0 {
			r.domain = domains[[2]int64{gtidPID(r.gtid), r.domainID}]
		}
		maxEnd = max(maxEnd, r.start, r.end)
		ranges = append(ranges, r)
	}
	rows.Close()
	for i := range ranges {
		if ranges[i].end < 0 {
			ranges[i].end = maxEnd
		}
	}
	sort.SliceStable(ranges, func(i, j int) bool {
		a, b := &ranges[i], &ranges[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.gtid < b.gtid
	})
	stacks := map[[2]int64][]int{}
	for i := range ranges {
		r := &ranges[i]
		r.parent = -1
		if r.kind != ingest.RangePushPop {
			r.comps = []string{r.text}
			continue
		}
		k := [2]int64{r.gtid, r.domainID}
		st := stacks[k]
		for len(st) > 0 {
			top := &ranges[st[len(st)-1]]
			if top.start <= r.start && r.end <= top.end {
				break
			}
			st = st[:len(st)-1]
		}
		if len(st) > 0 {
			r.parent = st[len(st)-1]
			r.depth = int32(len(st))
			r.comps = append(slices.Clip(ranges[r.parent].comps), r.text)
		} else {
			r.comps = []string{r.text}
		}
		stacks[k] = append(st, i)
	}
	type group struct {
		domain int64
		idx    []int
	}
	groups := map[int64][]*group{}
	for i := range ranges {
		r := &ranges[i]
		if r.kind != ingest.RangePushPop {
			continue
		}
		var g *group
		for _, x := range groups[r.gtid] {
			if x.domain == r.domainID {
				g = x
			}
		}
		if g == nil {
			g = &group{domain: r.domainID}
			groups[r.gtid] = append(groups[r.gtid], g)
		}
		g.idx = append(g.idx, i)
	}
	for _, gs := range groups {
		sort.Slice(gs, func(i, j int) bool { return gs[i].domain < gs[j].domain })
	}
	innermost := func(g *group, cs, ce int64) int {
		j := sort.Search(len(g.idx), func(i int) bool { return ranges[g.idx[i]].start > cs }) - 1
		if j < 0 {
			return -1
		}
		for r := g.idx[j]; r >= 0; r = ranges[r].parent {
			if rr := &ranges[r]; rr.start <= cs && ce <= rr.end {
				return r
			}
		}
		return -1
	}
	type call struct {
		gtid int64
		rng  int
	}
	calls := map[[2]int64]call{} // first call in table order of (pid, corr)
	rows, err = db.Query(`SELECT correlationId, globalTid, start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var corr, g, cs, ce int64
		rows.Scan(&corr, &g, &cs, &ce)
		c := call{gtid: g, rng: -1}
		for _, gr := range groups[g] {
			r := innermost(gr, cs, ce)
			if r < 0 {
				continue
			}
			if c.rng < 0 || gr.domain != 0 && ranges[c.rng].domainID != 0 && ranges[r].depth > ranges[c.rng].depth {
				c.rng = r
			}
		}
		k := [2]int64{gtidPID(g), corr}
		if _, ok := calls[k]; !ok {
			calls[k] = c
		}
	}
	rows.Close()
	var krng []int
	var ktid []int64
	rows, err = db.Query(`SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var corr, gp int64
		rows.Scan(&corr, &gp)
		c, ok := calls[[2]int64{gtidPID(gp), corr}]
		if !ok {
			c = call{rng: -1}
		}
		krng = append(krng, c.rng)
		ktid = append(ktid, gtidTID(c.gtid))
	}
	rows.Close()
	return ranges, krng, ktid
}

// The sweep's ranges and attribution are those of refAttribution, on
// traces in the sweep's order (read as they are), in start order with ties
// out of it and shuffled (sorted by SQLite), with the call index in memory
// and on disk.
func TestNsysSweepMatchesReference(t *testing.T) {
	cc, cb := callindex.Chunk, callindex.Block
	t.Cleanup(func() { callindex.Chunk, callindex.Block = cc, cb })
	for seed := int64(1); seed <= 6; seed++ {
		for order := range 3 {
			t.Run(fmt.Sprintf("seed%d-order%d", seed, order), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "trace.sqlite")
				genNVTXTrace(t, path, seed, order)
				callindex.Chunk, callindex.Block = cc, cb
				if seed%2 == 0 {
					callindex.Chunk, callindex.Block = 37, 5 // the call index on disk
				}
				want, krng, ktid := refAttribution(t, path)
				tb, err := ingesttest.File(parseExport, path, ingest.Options{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer tb.Release()
				got := tb.Ranges()
				if len(got) != len(want) {
					t.Fatalf("%d ranges, want %d", len(got), len(want))
				}
				nested := 0
				for i, r := range want {
					w := ingest.Range{ID: int64(i), Source: ingest.SourceNsys, File: "trace.sqlite", Kind: r.kind, Domain: r.domain, Text: r.text,
						Path: strings.Join(r.comps, "/"), Depth: r.depth, PID: gtidPID(r.gtid), TID: gtidTID(r.gtid), StartNs: r.start, EndNs: r.end}
					if r.parent >= 0 {
						p := int64(r.parent)
						w.ParentID = &p
						nested++
					}
					if diff := cmp.Diff(w, got[i]); diff != "" {
						t.Fatalf("range %d (-want +got):\n%s", i, diff)
					}
				}
				ks := tb.Kernels()
				if len(ks) != len(krng) {
					t.Fatalf("%d kernels, want %d", len(ks), len(krng))
				}
				inRange := 0
				for i, k := range ks {
					wr, wp := "", ""
					if j := krng[i]; j >= 0 {
						wr, wp = want[j].text, strings.Join(want[j].comps, "/")
						inRange++
					}
					if k.Range != wr || k.RangePath != wp || k.TID != ktid[i] {
						t.Fatalf("kernel %d: range %q path %q tid %d, want %q %q %d", i, k.Range, k.RangePath, k.TID, wr, wp, ktid[i])
					}
				}
				if nested == 0 || inRange == 0 {
					t.Fatalf("degenerate trace: %d nested ranges, %d kernels in a range", nested, inRange)
				}
			})
		}
	}
}

// nvtxPrepare finds the NVTX table in the sweep's order exactly when it is:
// each row, in table order, sorts after the one before it by (start, end
// descending, thread), a range never closed ending at the trace's end.
func TestNVTXPlanSorted(t *testing.T) {
	counts := map[bool]int{}
	for seed := int64(1); seed <= 40; seed++ {
		for _, order := range []int{0, 1, 3} {
			path := filepath.Join(t.TempDir(), fmt.Sprintf("trace%d-%d.sqlite", seed, order))
			genNVTXTrace(t, path, seed, order)
			db, err := openSQLite(path)
			if err != nil {
				t.Fatal(err)
			}
			p := &nsysParser{in: ingest.Input{Path: path}, db: db}
			plan, err := p.nvtxPrepare()
			if err != nil {
				t.Fatal(err)
			}
			rows, err := db.db.Query(`SELECT start, COALESCE(end, ?), globalTid FROM NVTX_EVENTS WHERE eventType IN (59, 60) ORDER BY rowid`, plan.maxEnd)
			if err != nil {
				t.Fatal(err)
			}
			want := true
			var prev [3]int64
			for i := 0; rows.Next(); i++ {
				var r [3]int64
				rows.Scan(&r[0], &r[1], &r[2])
				if i > 0 && (r[0] < prev[0] || r[0] == prev[0] && (r[1] > prev[1] || r[1] == prev[1] && r[2] < prev[2])) {
					want = false
				}
				prev = r
			}
			rows.Close()
			db.Close()
			if plan.sorted != want {
				t.Errorf("seed %d order %d: sorted %v, want %v", seed, order, plan.sorted, want)
			}
			counts[want]++
		}
	}
	if counts[true] < 20 || counts[false] < 20 {
		t.Errorf("traces in order %d, out of it %d: too few of one", counts[true], counts[false])
	}
}

// WriteTempKernels writes the kernels table that WriteTemp writes, NVTX
// attribution included, and the other tables without rows.
func TestWriteTempKernels(t *testing.T) {
	rg := knob.RowGroupRows
	knob.RowGroupRows = 7 // rows handed on (or dropped) in batches
	t.Cleanup(func() { knob.RowGroupRows = rg })
	gen := filepath.Join(t.TempDir(), "trace.sqlite")
	genNVTXTrace(t, gen, 3, 1)
	for _, path := range []string{nsysRealdata + "DLProf/nsys_profile.sqlite", gen} {
		in := []ingest.Input{{Path: path}}
		all, err := ingest.StreamTemp("rooftool-test-*", nil, ingesttest.Fill(parseExport, in))
		if err != nil {
			t.Fatal(err)
		}
		defer all.Remove()
		kern, err := ingest.StreamTemp("rooftool-test-*", []string{ingest.TableKernels}, ingesttest.Fill(parseExport, in))
		if err != nil {
			t.Fatal(err)
		}
		defer kern.Remove()
		a, err := ingest.ReadDir(all.Dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Release()
		k, err := ingest.ReadDir(kern.Dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer k.Release()
		if a.NumRows(ingest.TableRanges) == 0 {
			t.Fatalf("%s: no ranges to leave out", path)
		}
		if d := cmp.Diff(a.Kernels(), k.Kernels()); d != "" {
			t.Errorf("%s: kernels (-WriteTemp +WriteTempKernels):\n%s", path, d)
		}
		for _, n := range ingest.TableNames {
			if n != ingest.TableKernels && (k.NumRows(n) != 0 || kern.Written.Rows[n] != 0) {
				t.Errorf("%s: table %s has %d rows (Written says %d), want none", path, n, k.NumRows(n), kern.Written.Rows[n])
			}
		}
		if !cmp.Equal(all.Written.Warnings, kern.Written.Warnings) {
			t.Errorf("%s: warnings %v, want %v", path, kern.Written.Warnings, all.Written.Warnings)
		}
	}
}

// rowStream gives every row's integers and text as database/sql reads
// them: NULLs, empty texts, a text longer than a chunk's buffer, numbers
// in the text column, more rows than a chunk.
func TestRowStreamTexts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (a INT, b INT, s)`); err != nil {
		t.Fatal(err)
	}
	tx, _ := db.Begin()
	for i := 0; i < 3000; i++ {
		var s any
		switch i % 7 {
		case 0:
			s = nil
		case 1:
			s = ""
		case 2:
			s = strings.Repeat("x", 1+i%300)
		case 3:
			s = int64(i)
		case 4:
			s = 2.5
		default:
			s = fmt.Sprintf("text %d", i)
		}
		if i == 1500 {
			s = strings.Repeat("long", 100_000) // past rowArena
		}
		var b any = int64(i * 3)
		if i%11 == 0 {
			b = nil
		}
		if _, err := tx.Exec(`INSERT INTO t VALUES (?, ?, ?)`, i, b, s); err != nil {
			t.Fatal(err)
		}
	}
	tx.Commit()
	sdb, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := db.Query(`SELECT a, b, s FROM t ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rs := sdb.streamRows("t", `SELECT a, b, s FROM t ORDER BY rowid`, 2, -9)
	defer rs.close()
	n := 0
	for rows.Next() {
		var a int64
		var b sql.NullInt64
		var s sql.NullString
		if err := rows.Scan(&a, &b, &s); err != nil {
			t.Fatal(err)
		}
		wb := b.Int64
		if !b.Valid {
			wb = -9
		}
		v, txt, valid, ok, err := rs.next()
		if err != nil || !ok {
			t.Fatalf("row %d: ok %v, err %v", n, ok, err)
		}
		if v[0] != a || v[1] != wb || valid != s.Valid || txt != s.String {
			t.Fatalf("row %d: %v %q %v, want %d %d %q %v", n, v, txt[:min(len(txt), 20)], valid, a, wb, s.String[:min(len(s.String), 20)], s.Valid)
		}
		n++
	}
	if _, _, _, ok, err := rs.next(); ok || err != nil {
		t.Fatalf("past the last row: ok %v, err %v", ok, err)
	}
	if n != 3000 {
		t.Fatalf("%d rows", n)
	}
}
