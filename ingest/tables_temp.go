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
	return writeTemp(inputs, pattern, nil)
}

// WriteTempKernels is WriteTemp for a reader of the kernels table alone:
// the other tables are written without rows, and the work of making their
// rows is left out where a parser can (an nsys export's NVTX ranges still
// attribute its kernels, but no ranges row is made).
func WriteTempKernels(inputs []Input, pattern string) (*TempTables, error) {
	drop := map[string]bool{}
	for _, n := range TableNames {
		drop[n] = n != TableKernels
	}
	return writeTemp(inputs, pattern, drop)
}

func writeTemp(inputs []Input, pattern string, drop map[string]bool) (*TempTables, error) {
	root, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "tables")
	w, err := writeFiles(inputs, dir, FormatParquet, nil, drop)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return &TempTables{Dir: dir, Written: w, root: root}, nil
}

// Remove deletes the temporary directory and its tables.
func (t *TempTables) Remove() error { return os.RemoveAll(t.root) }
