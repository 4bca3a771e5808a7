package nsys

// CUDA API calls of an Nsight Systems export grouped by name, read from
// CUPTI_ACTIVITY_KIND_RUNTIME and the StringIds it names alone: what
// `nsys stats -r cuda_api_sum` reads.

import (
	"slices"

	"github.com/rooftool/rooftool/ingest"
)

// CallGroup is the runtime calls of an export that share a name id:
// their durations (end - start, ns) in table order, and the name
// (NameNull where StringIds has no row for the id).
type CallGroup struct {
	NameID    int64
	Name      string
	NameNull  bool
	Durations []int64
}

// CallGroups reads the CUDA API calls of the nsys SQLite export at
// path grouped by name id, in name id order (the order of nsys's GROUP
// BY). A call without a start, end or name id, or ending before it
// starts, is bad input.
func CallGroups(path string) ([]CallGroup, error) {
	db, err := openSQLite(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if !db.has(tabRuntime) {
		return nil, ingest.BadInput(path, 0, tabRuntime, "missing")
	}
	c, err := db.columns(tabRuntime)
	if err != nil {
		return nil, err
	}
	for _, col := range []string{"start", "end", "nameId"} {
		if !c[col] {
			return nil, ingest.BadInput(path, 0, tabRuntime, "no column %q: not an Nsight Systems runtime table", col)
		}
	}
	groups := map[int64]*CallGroup{}
	var last *CallGroup // calls of one name come in runs
	q := `SELECT nameId, start, "end", rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE %s ORDER BY rowid`
	err = db.scanSplit(tabRuntime, q, 4, sqlNull, func(v []int64) error {
		id, s, e := v[0], v[1], v[2]
		if id == sqlNull || s == sqlNull || e == sqlNull {
			return ingest.BadInput(path, 0, tabRuntime, "row id %d: nameId, start or end is NULL", v[3])
		}
		if e < s {
			return ingest.BadInput(path, 0, tabRuntime, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", v[3], e, s)
		}
		g := last
		if g == nil || g.NameID != id {
			if g = groups[id]; g == nil {
				g = &CallGroup{NameID: id}
				groups[id] = g
			}
			last = g
		}
		g.Durations = append(g.Durations, e-s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	names, err := stringsOf(db, path, ids)
	if err != nil {
		return nil, err
	}
	out := make([]CallGroup, 0, len(ids))
	for _, id := range ids {
		g := groups[id]
		g.Name, g.NameNull = names[id], !hasKey(names, id)
		out = append(out, *g)
	}
	return out, nil
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}
