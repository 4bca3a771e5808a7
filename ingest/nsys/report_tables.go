package nsys

// What the nsys stats reports that rooftool stats --report reproduces
// need of an export before they read it: the tables it has, and names
// looked up by StringIds id.

// Tables of an Nsight Systems export that the stats reports read.
const (
	TableKernel  = tabKernel
	TableRuntime = tabRuntime
	TableNVTX    = tabNVTX
	TableStrings = tabStrings
	TableMemcpy  = "CUPTI_ACTIVITY_KIND_MEMCPY"
	TableMemset  = "CUPTI_ACTIVITY_KIND_MEMSET"
	TableCopyOp  = "ENUM_CUDA_MEMCPY_OPER" // copyKind -> label of a memcpy
)

// TableSet returns the tables (and views) of the SQLite export at
// path, by name; no table is read.
func TableSet(path string) (map[string]bool, error) {
	db, err := openSQLite(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.tables, nil
}

// stringsOf looks up the ids in StringIds: ids the table lacks are
// absent from the map.
func stringsOf(db *sqliteDB, path string, ids []int64) (map[int64]string, error) {
	keys := make([][3]int64, len(ids))
	for i, id := range ids {
		keys[i] = [3]int64{id, -1, -1}
	}
	return nsysStrings(db, path, keys)
}
