//go:build !cgo

package nsys

import "errors"

// sqliteCgo: without cgo go-sqlite3 is a stub whose every query fails.
const sqliteCgo = false

// sqliteCode: without cgo go-sqlite3 is a stub with no error codes.
func sqliteCode(err error) (int, bool) { return 0, false }

// nativeOK: without cgo there is no SQLite to read rows from.
const nativeOK = false

type nativeRows struct{}

func openNative(path, query string, ncol, textCol int, mmap int64) (*nativeRows, error) {
	return nil, errors.New("built without cgo")
}

func (r *nativeRows) fill(out []int64, null int64, arena []byte, ends []int64) (int, int, error) {
	return 0, 0, errors.New("built without cgo")
}

func (r *nativeRows) close() {}
