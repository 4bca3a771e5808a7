package nsys

// GPU memory operations of an Nsight Systems export grouped by kind, read
// from CUPTI_ACTIVITY_KIND_MEMCPY (its copyKind named through
// ENUM_CUDA_MEMCPY_OPER) and CUPTI_ACTIVITY_KIND_MEMSET alone: what `nsys
// stats -r cuda_gpu_mem_time_sum` and `cuda_gpu_mem_size_sum` read.

import (
	"database/sql"
	"sort"

	"github.com/rooftool/rooftool/ingest"
)

// MemGroup is the memory operations of one kind: "[CUDA memcpy
// LABEL]" (LABEL the copyKind's label in ENUM_CUDA_MEMCPY_OPER) or "[CUDA
// memset]", and per operation, in table order, its duration (end - start,
// ns) or its size (bytes), as MemGroups was asked.
type MemGroup struct {
	Name   string
	Values []int64
}

// MemGroups reads the memory copies and memsets of the nsys SQLite
// export at path, grouped by name in name order (the order of nsys's
// GROUP BY), with their sizes where sizes is set, else their durations.
// A copy whose copyKind ENUM_CUDA_MEMCPY_OPER does not name is left out,
// as nsys's inner join leaves it out. Either table may be missing; a copy
// table without ENUM_CUDA_MEMCPY_OPER is bad input (nsys skips the
// report). A NULL time or size, or an operation ending before it starts,
// is bad input.
func MemGroups(path string, sizes bool) ([]MemGroup, error) {
	db, err := openSQLite(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	groups := map[string]*MemGroup{}
	add := func(name string, v int64) {
		g := groups[name]
		if g == nil {
			g = &MemGroup{Name: name}
			groups[name] = g
		}
		g.Values = append(g.Values, v)
	}
	value := func(table string, v []int64) (int64, error) {
		// v: start, end, bytes, rowid
		if v[0] == sqlNull || v[1] == sqlNull || v[2] == sqlNull {
			return 0, ingest.BadInput(path, 0, table, "row id %d: start, end or bytes is NULL", v[3])
		}
		if v[1] < v[0] {
			return 0, ingest.BadInput(path, 0, table, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", v[3], v[1], v[0])
		}
		if sizes {
			return v[2], nil
		}
		return v[1] - v[0], nil
	}
	if db.has(TableMemcpy) {
		if !db.has(TableCopyOp) {
			return nil, ingest.BadInput(path, 0, TableCopyOp, "missing: it names the copy kinds of %s", TableMemcpy)
		}
		labels, err := copyLabels(db)
		if err != nil {
			return nil, err
		}
		if err := memColumns(db, path, TableMemcpy, "copyKind"); err != nil {
			return nil, err
		}
		names := map[int64]string{}
		for id, l := range labels {
			names[id] = "[CUDA memcpy " + l + "]"
		}
		err = db.scanIntsNull(TableMemcpy, `SELECT start, "end", bytes, rowid, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY rowid`, 5, sqlNull, func(v []int64) error {
			name, ok := names[v[4]]
			if !ok {
				return nil
			}
			x, err := value(TableMemcpy, v)
			if err != nil {
				return err
			}
			add(name, x)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if db.has(TableMemset) {
		if err := memColumns(db, path, TableMemset); err != nil {
			return nil, err
		}
		err := db.scanIntsNull(TableMemset, `SELECT start, "end", bytes, rowid FROM CUPTI_ACTIVITY_KIND_MEMSET ORDER BY rowid`, 4, sqlNull, func(v []int64) error {
			x, err := value(TableMemset, v)
			if err != nil {
				return err
			}
			add("[CUDA memset]", x)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]MemGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// memColumns checks that table has start, end, bytes and the extra columns.
func memColumns(db *sqliteDB, path, table string, extra ...string) error {
	c, err := db.columns(table)
	if err != nil {
		return err
	}
	for _, col := range append([]string{"start", "end", "bytes"}, extra...) {
		if !c[col] {
			return ingest.BadInput(path, 0, table, "no column %q: not an Nsight Systems memory operation table", col)
		}
	}
	return nil
}

// copyLabels reads ENUM_CUDA_MEMCPY_OPER: copyKind id -> label. A kind
// whose label is NULL is left out, and so are its copies (nsys would list
// them under a NULL name).
func copyLabels(db *sqliteDB) (map[int64]string, error) {
	rows, err := db.db.Query(`SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER`)
	if err != nil {
		return nil, db.wrap(TableCopyOp, err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id sql.NullInt64
		var l sql.NullString
		if err := rows.Scan(&id, &l); err != nil {
			return nil, db.wrap(TableCopyOp, err)
		}
		if id.Valid && l.Valid {
			out[id.Int64] = l.String
		}
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap(TableCopyOp, err)
	}
	return out, nil
}
