package ingest

// Reading a persisted kernels table a batch at a time, only the columns a
// caller asks for, so that a summary over a table of any length holds one
// batch of rows (plus what it keeps of them) instead of the whole table.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// StrCol is a string column of a batch: Dict holds distinct values and Idx
// each row's index into Dict, -1 for a null (which the row readers read as
// ""). Dict may be shared by consecutive batches; it is never changed.
type StrCol struct {
	Dict []string
	Idx  []int32
}

// KernelBatch holds some rows of the kernels table, the columns that
// ScanKernels was asked for (the others are empty).
type KernelBatch struct {
	Rows                                                     int
	Source, Pass, Range, RangePath, Name, ShortName, Mangled StrCol
	DurationNs                                               []int64 // 0 where null, as Tables.Kernels reads it
}

// scanBatchRows is the rows per batch ScanKernels reads.
const scanBatchRows = 1 << 16

// ScanKernels reads the kernels table that Write or WriteFiles persisted
// under dir (Parquet or Arrow IPC, whichever is there; a folder holding
// both is refused as ReadDir refuses it) and calls fn with each batch of
// rows, in table order. columns names the columns to read: source, pass,
// range, range_path, name, short_name, mangled, duration_ns. The batch is
// reused: fn must copy what it keeps.
func ScanKernels(dir string, columns []string, fn func(*KernelBatch) error) error {
	pq := filepath.Join(dir, TableKernels+"."+FormatParquet)
	ar := filepath.Join(dir, TableKernels+"."+FormatArrow)
	_, perr := os.Stat(pq)
	_, aerr := os.Stat(ar)
	switch {
	case perr == nil && aerr == nil:
		return fmt.Errorf("read tables in %s: both %s and %s exist: one table in two formats (a write that did not finish, or two writers); remove the stale one", dir, pq, ar)
	case perr == nil:
		return scanParquet(pq, columns, fn)
	case aerr == nil:
		return scanArrow(ar, columns, fn)
	case errors.Is(perr, fs.ErrNotExist) && errors.Is(aerr, fs.ErrNotExist):
		return fmt.Errorf("read tables in %s: no %s.parquet or %s.arrow", dir, TableKernels, TableKernels)
	case !errors.Is(perr, fs.ErrNotExist):
		return perr
	}
	return aerr
}

// kernelScanColumns are the columns ScanKernels can read.
var kernelScanColumns = []string{"source", "pass", "range", "range_path", "name", "short_name", "mangled", "duration_ns"}

// scanPlan maps the wanted columns to the file's field indices.
func scanPlan(sc *arrow.Schema, file string, columns []string) ([]int, error) {
	version, err := fileVersion(sc.Metadata(), TableKernels)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	_ = version // every version names and types these columns alike
	idx := make([]int, len(columns))
	for i, c := range columns {
		known := false
		for _, k := range kernelScanColumns {
			known = known || k == c
		}
		if !known {
			return nil, fmt.Errorf("ingest: ScanKernels: no column %q to scan (want %s)", c, strings.Join(kernelScanColumns, ", "))
		}
		f := sc.FieldIndices(c)
		if len(f) == 0 {
			return nil, fmt.Errorf("read %s: table %s has no column %s", file, TableKernels, c)
		}
		idx[i] = f[0]
	}
	return idx, nil
}

// batchFiller turns records into KernelBatches, converting each dictionary
// once.
type batchFiller struct {
	columns []string
	b       KernelBatch
	dicts   map[string]dictMemo
}

// dictMemo is the Go strings of the last dictionary seen in a column.
type dictMemo struct {
	data arrow.ArrayData
	strs []string
}

func (f *batchFiller) fill(rec arrow.RecordBatch, file string) (*KernelBatch, error) {
	b := &f.b
	b.Rows = int(rec.NumRows())
	for _, name := range f.columns {
		k := rec.Schema().FieldIndices(name)
		if len(k) == 0 {
			return nil, fmt.Errorf("read %s: table %s has no column %s", file, TableKernels, name)
		}
		c := rec.Column(k[0])
		if name == "duration_ns" {
			a, ok := c.(*array.Int64)
			if !ok {
				return nil, fmt.Errorf("read %s: column duration_ns is %s, want int64", file, c.DataType())
			}
			b.DurationNs = b.DurationNs[:0]
			vals := a.Int64Values()
			if a.NullN() == 0 {
				b.DurationNs = append(b.DurationNs, vals...)
			} else {
				for j, v := range vals {
					if a.IsNull(j) {
						v = 0
					}
					b.DurationNs = append(b.DurationNs, v)
				}
			}
			continue
		}
		dst := map[string]*StrCol{"source": &b.Source, "pass": &b.Pass, "range": &b.Range, "range_path": &b.RangePath,
			"name": &b.Name, "short_name": &b.ShortName, "mangled": &b.Mangled}[name]
		if err := f.fillStr(dst, name, c, file); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (f *batchFiller) fillStr(dst *StrCol, name string, c arrow.Array, file string) error {
	dst.Idx = dst.Idx[:0]
	switch a := c.(type) {
	case *array.Dictionary:
		d, ok := a.Dictionary().(*array.String)
		if !ok {
			return fmt.Errorf("read %s: column %s is %s, want strings", file, name, c.DataType())
		}
		m := f.dicts[name]
		if m.data != d.Data() {
			m = dictMemo{data: d.Data(), strs: make([]string, d.Len())}
			for i := range m.strs {
				m.strs[i] = strings.Clone(d.Value(i))
			}
			f.dicts[name] = m
		}
		dst.Dict = m.strs
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				dst.Idx = append(dst.Idx, -1)
			} else {
				dst.Idx = append(dst.Idx, int32(a.GetValueIndex(i)))
			}
		}
	case *array.String:
		seen := map[string]int32{}
		dst.Dict = nil
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				dst.Idx = append(dst.Idx, -1)
				continue
			}
			s := a.Value(i)
			j, ok := seen[s]
			if !ok {
				j = int32(len(dst.Dict))
				dst.Dict = append(dst.Dict, strings.Clone(s))
				seen[dst.Dict[j]] = j
			}
			dst.Idx = append(dst.Idx, j)
		}
	default:
		return fmt.Errorf("read %s: column %s is %s, want strings", file, name, c.DataType())
	}
	return nil
}

func scanParquet(path string, columns []string, fn func(*KernelBatch) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	mem := memory.DefaultAllocator
	pf, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{Parallel: true, BatchSize: scanBatchRows}, mem)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	sc, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	idx, err := scanPlan(sc, path, columns)
	if err != nil {
		return err
	}
	slices.Sort(idx)
	rr, err := fr.GetRecordReader(contextBackground(), slices.Compact(idx), nil)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	bf := &batchFiller{columns: columns, dicts: map[string]dictMemo{}}
	for rr.Next() {
		b, err := bf.fill(rr.RecordBatch(), path)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func scanArrow(path string, columns []string, fn func(*KernelBatch) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer r.Close()
	idx, err := scanPlan(r.Schema(), path, columns)
	if err != nil {
		return err
	}
	bf := &batchFiller{columns: columns, dicts: map[string]dictMemo{}}
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		cols := make([]arrow.Array, len(idx))
		fields := make([]arrow.Field, len(idx))
		for j, k := range idx {
			cols[j], fields[j] = rec.Column(k), rec.Schema().Field(k)
		}
		sub := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
		b, err := bf.fill(sub, path)
		sub.Release()
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}
