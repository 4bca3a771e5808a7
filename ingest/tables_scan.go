package ingest

// Reading a persisted kernels or metrics table a batch at a time, only the
// columns a caller asks for, so that a summary over a table of any length
// holds one batch of rows (plus what it keeps of them) instead of the whole
// table. ScanKernels and ScanMetrics share the file handling (scanTable)
// and the column conversion (batchFiller); each names its columns in a
// table of rows (kernelScanCols, metricScanCols).

import (
	"errors"
	"fmt"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

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
	DurationValid                                            []bool  // false where duration_ns is null (an ncu kernel without a time)
}

// scanBatchRows is the rows per batch ScanKernels and ScanMetrics read
// unless told otherwise.
const scanBatchRows = 1 << 16

// ScanKernels reads the kernels table that Write or Stream persisted
// under dir (Parquet or Arrow IPC, whichever is there; a folder holding
// both is refused as ReadDir refuses it) and calls fn with each batch of
// rows, in table order. columns names the columns to read: source, pass,
// range, range_path, name, short_name, mangled, duration_ns. The batch is
// reused: fn must copy what it keeps.
func ScanKernels(dir string, columns []string, fn func(*KernelBatch) error) error {
	var b KernelBatch
	cols := kernelScanCols(&b)
	return scanTable(dir, TableKernels, "ScanKernels", cols, columns, scanBatchRows, func(rows int) error {
		b.Rows = rows
		return fn(&b)
	})
}

// kernelScanCols are the columns ScanKernels can read, each with where it
// goes in b.
func kernelScanCols(b *KernelBatch) []scanCol {
	return []scanCol{
		{name: "source", str: &b.Source}, {name: "pass", str: &b.Pass}, {name: "range", str: &b.Range},
		{name: "range_path", str: &b.RangePath}, {name: "name", str: &b.Name}, {name: "short_name", str: &b.ShortName},
		{name: "mangled", str: &b.Mangled}, {name: "duration_ns", i64: &b.DurationNs, valid: &b.DurationValid},
	}
}

// scanCol is one column a scan can read and the batch field it fills: a
// string column into str, an int64 one into i64 (0 where null; valid, when
// set, false there), a float64 one into f64 with valid false where null.
type scanCol struct {
	name  string
	str   *StrCol
	i64   *[]int64
	f64   *[]float64
	valid *[]bool
}

// scanTable reads table under dir batch by batch (batchRows rows a batch
// from Parquet; Arrow IPC files keep their own batches), fills the wanted
// columns of known and calls fn with the batch's row count. who names the
// caller in errors.
func scanTable(dir, table, who string, known []scanCol, columns []string, batchRows int, fn func(rows int) error) error {
	pq := filepath.Join(dir, table+"."+FormatParquet)
	ar := filepath.Join(dir, table+"."+FormatArrow)
	_, perr := os.Stat(pq)
	_, aerr := os.Stat(ar)
	switch {
	case perr == nil && aerr == nil:
		return fmt.Errorf("read tables in %s: both %s and %s exist: one table in two formats (a write that did not finish, or two writers); remove the stale one", dir, pq, ar)
	case perr == nil, aerr == nil:
		var want []scanCol
		for _, c := range columns {
			k := slices.IndexFunc(known, func(s scanCol) bool { return s.name == c })
			if k < 0 {
				names := make([]string, len(known))
				for i, s := range known {
					names[i] = s.name
				}
				return fmt.Errorf("ingest: %s: no column %q to scan (want %s)", who, c, strings.Join(names, ", "))
			}
			want = append(want, known[k])
		}
		bf := &batchFiller{table: table, columns: want, dicts: map[string]dictMemo{}}
		if perr == nil {
			return scanParquet(pq, bf, batchRows, fn)
		}
		return scanArrow(ar, bf, fn)
	case errors.Is(perr, fs.ErrNotExist) && errors.Is(aerr, fs.ErrNotExist):
		return fmt.Errorf("read tables in %s: no %s.parquet or %s.arrow", dir, table, table)
	case !errors.Is(perr, fs.ErrNotExist):
		return perr
	}
	return aerr
}

// batchFiller turns records into batches, converting each dictionary once.
type batchFiller struct {
	table   string
	columns []scanCol
	dicts   map[string]dictMemo
}

// plan maps the wanted columns to the file's field indices.
func (f *batchFiller) plan(sc *arrow.Schema, file string) ([]int, error) {
	if _, err := fileVersion(sc.Metadata(), f.table); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	// Every version names and types the scannable columns alike.
	idx := make([]int, len(f.columns))
	for i, c := range f.columns {
		k := sc.FieldIndices(c.name)
		if len(k) == 0 {
			return nil, fmt.Errorf("read %s: table %s has no column %s", file, f.table, c.name)
		}
		idx[i] = k[0]
	}
	return idx, nil
}

// dictMemo is the Go strings of the last dictionary seen in a column.
type dictMemo struct {
	data arrow.ArrayData
	strs []string
}

func (f *batchFiller) fill(rec arrow.RecordBatch, file string) error {
	for _, col := range f.columns {
		k := rec.Schema().FieldIndices(col.name)
		if len(k) == 0 {
			return fmt.Errorf("read %s: table %s has no column %s", file, f.table, col.name)
		}
		c := rec.Column(k[0])
		switch {
		case col.str != nil:
			if err := f.fillStr(col.str, col.name, c, file); err != nil {
				return err
			}
		case col.i64 != nil:
			a, ok := c.(*array.Int64)
			if !ok {
				return fmt.Errorf("read %s: column %s is %s, want int64", file, col.name, c.DataType())
			}
			*col.i64 = append((*col.i64)[:0], a.Int64Values()...)
			if col.valid != nil {
				*col.valid = (*col.valid)[:0]
				for j := range *col.i64 {
					*col.valid = append(*col.valid, a.IsValid(j))
				}
			}
			if a.NullN() > 0 {
				for j := range *col.i64 {
					if a.IsNull(j) {
						(*col.i64)[j] = 0
					}
				}
			}
		case col.f64 != nil:
			a, ok := c.(*array.Float64)
			if !ok {
				return fmt.Errorf("read %s: column %s is %s, want float64", file, col.name, c.DataType())
			}
			*col.f64 = append((*col.f64)[:0], a.Float64Values()...)
			*col.valid = (*col.valid)[:0]
			for j := range *col.f64 {
				*col.valid = append(*col.valid, a.IsValid(j))
				if a.IsNull(j) {
					(*col.f64)[j] = 0
				}
			}
		}
	}
	return nil
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
		if ix, ok := a.Indices().(*array.Int32); ok {
			// The indices as they are (the writer's), nulls marked after.
			dst.Idx = append(dst.Idx, ix.Int32Values()...)
			if a.NullN() > 0 {
				for i := range dst.Idx {
					if a.IsNull(i) {
						dst.Idx[i] = -1
					}
				}
			}
			break
		}
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

func scanParquet(path string, bf *batchFiller, batchRows int, fn func(rows int) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var mem memory.Allocator = &poolAllocator{free: map[int][][]byte{}}
	pf, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{Parallel: true, BatchSize: int64(batchRows)}, mem)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	sc, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	idx, err := bf.plan(sc, path)
	if err != nil {
		return err
	}
	idx = slices.Clone(idx)
	slices.Sort(idx)
	rr, err := fr.GetRecordReader(contextBackground(), slices.Compact(idx), nil)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if err := bf.fill(rec, path); err != nil {
			return err
		}
		if err := fn(int(rec.NumRows())); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func scanArrow(path string, bf *batchFiller, fn func(rows int) error) error {
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
	idx, err := bf.plan(r.Schema(), path)
	if err != nil {
		return err
	}
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
		err = bf.fill(sub, path)
		sub.Release()
		if err != nil {
			return err
		}
		if err := fn(int(rec.NumRows())); err != nil {
			return err
		}
	}
	return nil
}

// poolAllocator hands out again the buffers that a scan's released batches
// give back, a batch's columns being of the same sizes as the one before:
// fresh Go memory for every batch costs its zeroing by the OS, and the
// garbage collector's time, over a hundred million rows. Buffers are of a
// power of two bytes, at most poolKeep of a size kept; it is safe for the
// concurrent use of a parallel Parquet reader.
type poolAllocator struct {
	mu   sync.Mutex
	free map[int][][]byte // by log2 of the capacity
}

const poolKeep = 64

func (a *poolAllocator) Allocate(size int) []byte {
	c := bits.Len(uint(max(size, 64) - 1))
	a.mu.Lock()
	l := a.free[c]
	var b []byte
	if n := len(l); n > 0 {
		b, a.free[c] = l[n-1], l[:n-1]
	}
	a.mu.Unlock()
	if b == nil {
		// 64-byte aligned, as memory.GoAllocator's buffers are.
		raw := make([]byte, 1<<c+64)
		shift := int(-uintptr(unsafe.Pointer(&raw[0])) & 63)
		return raw[shift : shift+size : shift+1<<c]
	}
	b = b[:cap(b)]
	clear(b) // arrow's buffers start zeroed
	return b[:size]
}

func (a *poolAllocator) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *poolAllocator) Free(b []byte) {
	c := bits.Len(uint(cap(b)) - 1)
	if cap(b) < 64 || cap(b) != 1<<c {
		return // not one of ours
	}
	a.mu.Lock()
	if len(a.free[c]) < poolKeep {
		a.free[c] = append(a.free[c], b)
	}
	a.mu.Unlock()
}
