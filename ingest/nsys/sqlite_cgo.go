//go:build cgo

package nsys

import (
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// sqliteCgo: go-sqlite3 is built with cgo and reads SQLite.
const sqliteCgo = true

// sqliteCode returns the primary SQLite result code of err.
func sqliteCode(err error) (int, bool) {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return int(se.Code), true
	}
	return 0, false
}
