package nsys

// Kernel durations of an Nsight Systems export grouped by name, read from
// the kernel table and the StringIds it names alone: what `nsys stats -r
// cuda_gpu_kern_sum` reads. Runtime calls, NVTX events, GPUs and metadata
// are not read.

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// KernelGroup is the kernels of an export that share their three name
// ids, with their names resolved as ingest resolves them (a null id gives
// "", an id StringIds lacks unknownName's text) and their durations (end -
// start, ns) in kernel row order.
type KernelGroup struct {
	Name, ShortName, Mangled string
	Durations                []int64
}

// KernelGroups reads the kernels of the nsys SQLite export at path,
// grouped by name ids, and the warnings ingest would record for it (a name
// id StringIds lacks). It checks the kernel table as ingest does: a kernel
// without start or end, or ending before it starts, is bad input.
func KernelGroups(path string) ([]KernelGroup, []ingest.Meta, error) {
	db, err := openSQLite(path)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	c, err := kernelTable(db, path)
	if err != nil {
		return nil, nil, err
	}
	cols := [3]string{nameColName(c), shortColName(c), "mangledName"}
	q := `SELECT start, "end", "` + cols[0] + `", "` + cols[1] + `", ` + colOr(c, "", "mangledName", "NULL") +
		`, rowid, ` + colOr(c, "", "deviceId", "NULL") + `, ` + colOr(c, "", "contextId", "NULL") + `, ` + colOr(c, "", "streamId", "NULL") +
		` FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE %s ORDER BY rowid`
	type ids = [3]int64
	type group struct {
		first int64 // row id of the group's first kernel
		durs  []int64
	}
	groups := map[ids]*group{}
	var order []ids
	var streams streamOrder
	err = db.scanSplit(tabKernel, q, 9, sqlNull, func(v []int64) error {
		rowid := v[5]
		if err := kernelSpanErr(path, rowid, v[0], v[1]); err != nil {
			return err
		}
		streams.add(v[6], v[7], v[8], v[0])
		k := ids{v[2], v[3], v[4]}
		for i := range k {
			if k[i] == sqlNull {
				k[i] = -1
			}
		}
		g := groups[k]
		if g == nil {
			g = &group{first: rowid}
			groups[k] = g
			order = append(order, k)
		}
		g.durs = append(g.durs, v[1]-v[0])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	names, err := nsysStrings(db, path, order)
	if err != nil {
		return nil, nil, err
	}
	// A missing id: how many kernel name columns name it, and the first
	// (lowest row id, then column order) that does.
	type miss struct {
		n           int
		row, colIdx int64
	}
	missing := map[int64]*miss{}
	var missOrder []int64
	out := make([]KernelGroup, 0, len(order))
	for _, k := range order {
		g := groups[k]
		var s [3]string
		for i, id := range k {
			if id < 0 {
				continue
			}
			v, ok := names[id]
			if ok {
				s[i] = v
				continue
			}
			s[i] = unknownName(id)
			m := missing[id]
			if m == nil {
				m = &miss{row: g.first, colIdx: int64(i)}
				missing[id] = m
				missOrder = append(missOrder, id)
			} else if g.first < m.row || g.first == m.row && int64(i) < m.colIdx {
				m.row, m.colIdx = g.first, int64(i)
			}
			m.n += len(g.durs)
		}
		out = append(out, KernelGroup{Name: s[0], ShortName: s[1], Mangled: s[2], Durations: g.durs})
	}
	var warn []ingest.Meta
	n := 0
	if streams.suspect() {
		if n, err = repeatedRows(db, tabKernel, q, 9, 5); err != nil { // column 5: rowid
			return nil, nil, err
		}
	}
	if n > 0 {
		warn = append(warn, ingest.Meta{Source: ingest.SourceNsys, File: filepath.Base(path), Key: "warning", Value: fmt.Sprintf(
			"%d rows of %s have the start, end and names of another row: a kernel written twice is counted twice, as nsys stats counts it", n, tabKernel)})
	}
	for _, id := range missOrder {
		m := missing[id]
		warn = append(warn, ingest.Meta{Source: ingest.SourceNsys, File: filepath.Base(path), Key: "warning", Value: fmt.Sprintf(
			"table %s has no row id %d, named by %d kernel name column(s) (first: %s.%s, row id %d); those names are marked %q",
			tabStrings, id, m.n, tabKernel, cols[m.colIdx], m.row, unknownName(id))})
	}
	return out, warn, nil
}

// nsysStrings looks up in StringIds the ids the groups name (no other
// row is read), in queries of at most 500 ids.
func nsysStrings(db *sqliteDB, path string, groups [][3]int64) (map[int64]string, error) {
	seen := map[int64]bool{}
	var want []int64
	for _, k := range groups {
		for _, id := range k {
			if id >= 0 && !seen[id] {
				seen[id] = true
				want = append(want, id)
			}
		}
	}
	if err := checkStringIds(db, path); err != nil {
		return nil, err
	}
	names := make(map[int64]string, len(want))
	for len(want) > 0 {
		n := min(len(want), 500)
		ph := strings.TrimSuffix(strings.Repeat("?,", n), ",")
		args := make([]any, n)
		for i, id := range want[:n] {
			args[i] = id
		}
		want = want[n:]
		if err := scanStrings(db, `SELECT id, CASE WHEN octet_length(value) > `+strconv.Itoa(ingest.MaxFieldBytes)+` THEN NULL ELSE value END, COALESCE(octet_length(value), 0) FROM StringIds WHERE id IN (`+ph+`)`, args, names); err != nil {
			var tl *tooLongString
			if errors.As(err, &tl) {
				return nil, ingest.BadInput(path, 0, tabStrings, "id %d: the value holds %d bytes, longer than the limit of %s", tl.id, tl.n, ingest.SizeMiB(ingest.MaxFieldBytes))
			}
			return nil, err
		}
	}
	return names, nil
}

// tooLongString is a StringIds value past MaxFieldBytes.
type tooLongString struct{ id, n int64 }

func (e *tooLongString) Error() string {
	return fmt.Sprintf("StringIds id %d holds %d bytes", e.id, e.n)
}

func scanStrings(db *sqliteDB, q string, args []any, names map[int64]string) error {
	rows, err := db.db.Query(q, args...)
	if err != nil {
		return db.wrap(tabStrings, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int64
		var v sql.NullString
		if err := rows.Scan(&id, &v, &n); err != nil {
			return db.wrap(tabStrings, err)
		}
		if n > ingest.MaxFieldBytes {
			return &tooLongString{id, n}
		}
		names[id] = v.String
	}
	if err := rows.Err(); err != nil {
		return db.wrap(tabStrings, err)
	}
	return nil
}

// HasRanges reports whether the nsys SQLite export at path holds an
// NVTX push/pop or start/end range, the events ingest attributes kernels
// to (true too for an NVTX table without eventType, which ingest refuses);
// it stops at the first.
func HasRanges(path string) (bool, error) {
	db, err := openSQLite(path)
	if err != nil {
		return false, err
	}
	defer db.Close()
	if !db.has(tabNVTX) {
		return false, nil
	}
	c, err := db.columns(tabNVTX)
	if err != nil {
		return false, err
	}
	if !c["eventType"] {
		return true, nil // ingest reports the table as bad input
	}
	var one int
	err = db.db.QueryRow(`SELECT 1 FROM NVTX_EVENTS WHERE eventType IN (` + strconv.Itoa(nvtxPushPopRange) + `,` +
		strconv.Itoa(nvtxStartEndRange) + `) LIMIT 1`).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, db.wrap(tabNVTX, err)
	}
	return true, nil
}
