package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// copyExport copies the nsys SQLite export src into a temporary folder
// (same base name), runs stmts on the copy, and returns its path.
func copyExport(t *testing.T, src string, stmts ...string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(stmts) == 0 {
		return dst
	}
	db, err := sql.Open("sqlite3", dst)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return dst
}
