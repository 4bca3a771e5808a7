package ingest

import (
	"os"
	"path/filepath"
)

// TempTables are exports ingested into a new temporary directory for a
// reader that scans tables instead of holding them (bounded memory).
type TempTables struct {
	Dir     string   // the tables: tables/ under the temporary directory
	Written *Written // what WriteFiles wrote, with its warnings
	root    string
}

// WriteTemp ingests inputs as WriteFiles does, as Parquet, into the tables/
// folder of a new temporary directory named by pattern (os.MkdirTemp).
// Remove deletes the directory.
func WriteTemp(inputs []Input, pattern string) (*TempTables, error) {
	root, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "tables")
	w, err := WriteFiles(inputs, dir, FormatParquet, nil)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return &TempTables{Dir: dir, Written: w, root: root}, nil
}

// Remove deletes the temporary directory and its tables.
func (t *TempTables) Remove() error { return os.RemoveAll(t.root) }
