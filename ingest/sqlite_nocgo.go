//go:build !cgo

package ingest

// sqliteCgo: without cgo go-sqlite3 is a stub whose every query fails.
const sqliteCgo = false

// sqliteCode: without cgo go-sqlite3 is a stub with no error codes.
func sqliteCode(err error) (int, bool) { return 0, false }
