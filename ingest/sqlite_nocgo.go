//go:build !cgo

package ingest

// sqliteCode: without cgo go-sqlite3 is a stub with no error codes.
func sqliteCode(err error) (int, bool) { return 0, false }
