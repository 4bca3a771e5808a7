package ingest

import (
	"os"
	"path/filepath"
)

// TempTables are exports ingested into a new temporary directory for a
// reader that scans tables instead of holding them (bounded memory).
type TempTables struct {
	Dir     string   // the tables: tables/ under the temporary directory
	Written *Written // what Stream wrote, with its warnings
	root    string
}

// StreamTemp builds tables with fill as Stream does, as Parquet, into the
// tables/ folder of a new temporary directory named by pattern
// (os.MkdirTemp); keep is Stream's. Remove deletes the directory.
func StreamTemp(pattern string, keep []string, fill func(*Builder) error) (*TempTables, error) {
	root, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "tables")
	w, err := Stream(dir, FormatParquet, nil, keep, fill)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return &TempTables{Dir: dir, Written: w, root: root}, nil
}

// Remove deletes the temporary directory and its tables.
func (t *TempTables) Remove() error { return os.RemoveAll(t.root) }
