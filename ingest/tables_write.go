package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// Formats of persisted tables.
const (
	FormatParquet = "parquet"
	FormatArrow   = "arrow"
)

// RowGroupRows is the most rows Write puts in one Parquet row group, so that
// readers can skip groups of a large table by their statistics.
const RowGroupRows = 1 << 20

// Write persists every table under dir as <table>.parquet (or .arrow) and
// removes the other format's file of each table, so that readers never mix
// the new set with a stale one. Every table is first written into a
// temporary directory beside dir (in dir's parent, on the same file
// system); a failure there leaves dir as it was. When dir does not exist
// the temporary directory is renamed to dir, which swaps the whole set in
// at once. Otherwise each table is renamed into dir and then the other
// format's files are removed: until that is done a reader sees both formats
// of a table and refuses the directory rather than read stale data. Files
// in dir other than the tables are left alone.
func (t *Tables) Write(dir, format string) error {
	st, err := stage(dir, format)
	if err != nil {
		return err
	}
	defer st.cleanup()
	for _, n := range TableNames {
		f, err := st.create(n)
		if err != nil {
			return err
		}
		if err := writeRecord(f, t.recs[n], format); err != nil {
			return fmt.Errorf("write table %s: %w", n, err)
		}
	}
	return st.commit()
}

// staging is a temporary directory that a table set is written into
// before commit moves it to dir.
type staging struct {
	dir, parent, tmp, format string
}

// stage makes the temporary directory for a table set bound for dir:
// beside dir (in its parent, on the same file system), or inside dir when
// the parent takes no new entries.
func stage(dir, format string) (*staging, error) {
	if format != FormatParquet && format != FormatArrow {
		return nil, fmt.Errorf("unknown table format %q (want parquet or arrow)", format)
	}
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		// A parent that takes no new entries: stage inside dir instead.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if tmp, err = os.MkdirTemp(dir, ".tables.tmp-*"); err != nil {
			return nil, err
		}
	}
	return &staging{dir: dir, parent: parent, tmp: tmp, format: format}, nil
}

// create opens the staged file of table n.
func (st *staging) create(n string) (*os.File, error) {
	return os.OpenFile(filepath.Join(st.tmp, n+"."+st.format), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// cleanup removes the temporary directory (nothing after commit).
func (st *staging) cleanup() { os.RemoveAll(st.tmp) }

// commit moves the staged tables to dir and removes the other format's
// files there.
func (st *staging) commit() error {
	dir, tmp := st.dir, st.tmp
	other := FormatArrow
	if st.format == FormatArrow {
		other = FormatParquet
	}
	if filepath.Dir(tmp) == st.parent {
		// MkdirTemp makes 0700 directories; tables are ordinary shared outputs.
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		err := os.Rename(tmp, dir)
		if err == nil {
			return nil
		}
		if _, serr := os.Lstat(dir); serr != nil {
			return err // dir is absent, yet the rename failed
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range TableNames {
		if err := os.Rename(filepath.Join(tmp, n+"."+st.format), filepath.Join(dir, n+"."+st.format)); err != nil {
			return err
		}
	}
	for _, n := range TableNames {
		if err := os.Remove(filepath.Join(dir, n+"."+other)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stale table: %w", err)
		}
	}
	return nil
}

func writeRecord(f *os.File, rec arrow.RecordBatch, format string) error {
	switch format {
	case FormatArrow:
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
		if err != nil {
			f.Close()
			return err
		}
		if err := w.Write(rec); err != nil {
			w.Close()
			f.Close()
			return err
		}
		if err := w.Close(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	default:
		w, err := newParquetWriter(rec.Schema(), f)
		if err != nil {
			f.Close()
			return err
		}
		if err := w.Write(rec); err != nil {
			w.Close()
			return err
		}
		return w.Close() // closes f too
	}
}

// newParquetWriter starts a Parquet file of the given schema on f: Zstandard,
// row groups of at most knob.RowGroupRows rows, the Arrow schema stored in the
// file. String and int32 columns get dictionary pages; the int64, timestamp
// and float64 columns (ids, times, durations, values: mostly distinct)
// are written plain, which spares hashing every value only to give up the
// dictionary once it is full.
func newParquetWriter(sc *arrow.Schema, f *os.File) (*pqarrow.FileWriter, error) {
	opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(true),
		parquet.WithMaxRowGroupLength(knob.RowGroupRows)}
	for _, fd := range sc.Fields() {
		switch fd.Type.ID() {
		case arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64:
			opts = append(opts, parquet.WithDictionaryFor(fd.Name, false))
		}
	}
	return pqarrow.NewFileWriter(sc, f, parquet.NewWriterProperties(opts...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
}
