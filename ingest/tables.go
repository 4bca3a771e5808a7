package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Tables is a set of ingested tables, one Arrow record per table. A nil
// record is never stored: empty tables have zero rows. Release frees them.
type Tables struct {
	recs map[string]arrow.RecordBatch
}

// Record returns the named table (owned by t; Retain to keep it past Release).
func (t *Tables) Record(name string) arrow.RecordBatch { return t.recs[name] }

// NumRows returns the row count of the named table.
func (t *Tables) NumRows(name string) int64 {
	if r := t.recs[name]; r != nil {
		return r.NumRows()
	}
	return 0
}

// Release frees every table.
func (t *Tables) Release() {
	if t == nil {
		return
	}
	for k, r := range t.recs {
		r.Release()
		delete(t.recs, k)
	}
}

// Builder accumulates rows of every table. Parsers append to it; Finish turns
// it into Tables. A Builder is not safe for concurrent use.
type Builder struct {
	mem                   memory.Allocator
	b                     map[string]*array.RecordBuilder
	nextKernel, nextRange int64
}

// NewBuilder returns a Builder that allocates from mem (nil: the Go allocator).
func NewBuilder(mem memory.Allocator) *Builder {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	b := &Builder{mem: mem, b: map[string]*array.RecordBuilder{}}
	for _, n := range TableNames {
		b.b[n] = array.NewRecordBuilder(mem, Schema(n))
	}
	return b
}

// Release frees the builder's buffers (after Finish it is a no-op).
func (b *Builder) Release() {
	for k, rb := range b.b {
		rb.Release()
		delete(b.b, k)
	}
}

// NextKernelID returns the id AddKernel will give the next kernel.
func (b *Builder) NextKernelID() int64 { return b.nextKernel }

// NextRangeID returns the id AddRange will give the next range.
func (b *Builder) NextRangeID() int64 { return b.nextRange }

func appendStr(bl array.Builder, s string) {
	switch x := bl.(type) {
	case *array.BinaryDictionaryBuilder:
		if err := x.AppendString(s); err != nil {
			panic(err) // only fails on a type mismatch, a programming error
		}
	case *array.StringBuilder:
		x.Append(s)
	default:
		panic(fmt.Sprintf("ingest: string column of type %T", bl))
	}
}

// AddKernel appends a kernel row, assigns it the next id (k.ID is ignored)
// and returns that id.
func (b *Builder) AddKernel(k Kernel) int64 {
	id := b.nextKernel
	b.nextKernel++
	rb := b.b[TableKernels]
	rb.Field(0).(*array.Int64Builder).Append(id)
	for j, s := range []string{k.Source, k.File, k.Pass, k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath, k.Name, k.ShortName, k.Mangled} {
		appendStr(rb.Field(1+j), s)
	}
	rb.Field(12).(*array.Int32Builder).Append(k.Device)
	for j, v := range [...]int64{k.Context, k.Stream, k.CorrelationID, k.PID, k.TID} {
		rb.Field(13 + j).(*array.Int64Builder).Append(v)
	}
	appendKernelTail(rb, &k)
	return id
}

// appendKernelTail appends the kernels columns from grid_x on (fields
// 18-29: launch geometry, registers, shared memory, times, graph node),
// which every kernel appender writes the same way.
func appendKernelTail(rb *array.RecordBuilder, k *Kernel) {
	for j, v := range [...]int32{k.GridX, k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ, k.Registers} {
		rb.Field(18 + j).(*array.Int32Builder).Append(v)
	}
	for j, v := range [...]int64{k.StaticSharedBytes, k.DynSharedBytes, k.StartNs, k.DurationNs} {
		rb.Field(25 + j).(*array.Int64Builder).Append(v)
	}
	g := rb.Field(29).(*array.Int64Builder)
	if k.GraphNodeID != nil {
		g.Append(*k.GraphNodeID)
	} else {
		g.AppendNull()
	}
}

// AddMetric appends a metric row.
func (b *Builder) AddMetric(m Metric) {
	rb := b.b[TableMetrics]
	rb.Field(0).(*array.Int64Builder).Append(m.KernelID)
	appendStr(rb.Field(1), m.Section)
	appendStr(rb.Field(2), m.Name)
	appendStr(rb.Field(3), m.Unit)
	if m.Valid {
		rb.Field(4).(*array.Float64Builder).Append(m.Value)
	} else {
		rb.Field(4).(*array.Float64Builder).AppendNull()
	}
	appendStr(rb.Field(5), m.Text)
}

// AddRange appends a range row, assigns it the next id and returns it.
func (b *Builder) AddRange(r Range) int64 {
	id := b.nextRange
	b.nextRange++
	rb := b.b[TableRanges]
	rb.Field(0).(*array.Int64Builder).Append(id)
	for j, s := range []string{r.Source, r.File, r.Kind, r.Domain, r.Text, r.Path} {
		appendStr(rb.Field(1+j), s)
	}
	rb.Field(7).(*array.Int32Builder).Append(r.Depth)
	if r.ParentID != nil {
		rb.Field(8).(*array.Int64Builder).Append(*r.ParentID)
	} else {
		rb.Field(8).(*array.Int64Builder).AppendNull()
	}
	for j, v := range []int64{r.PID, r.TID, r.StartNs, r.EndNs} {
		rb.Field(9 + j).(*array.Int64Builder).Append(v)
	}
	return id
}

// AddGPU appends a GPU row.
func (b *Builder) AddGPU(g GPU) {
	rb := b.b[TableGPUs]
	appendStr(rb.Field(0), g.Source)
	appendStr(rb.Field(1), g.File)
	rb.Field(2).(*array.Int32Builder).Append(g.Device)
	appendStr(rb.Field(3), g.Name)
	for j, v := range []int32{g.CCMajor, g.CCMinor, g.SMCount} {
		rb.Field(4 + j).(*array.Int32Builder).Append(v)
	}
	rb.Field(7).(*array.Int64Builder).Append(g.MemoryBytes)
	rb.Field(8).(*array.Float64Builder).Append(g.MemoryBandwidth)
	rb.Field(9).(*array.Int64Builder).Append(g.L2Bytes)
	rb.Field(10).(*array.Float64Builder).Append(g.SMClockHz)
	rb.Field(11).(*array.Float64Builder).Append(g.MemClockHz)
	appendStr(rb.Field(12), g.Bus)
}

// AddMeta appends a metadata row.
func (b *Builder) AddMeta(m Meta) {
	rb := b.b[TableMeta]
	for j, s := range []string{m.Source, m.File, m.Key} {
		appendStr(rb.Field(j), s)
	}
	rb.Field(3).(*array.StringBuilder).Append(m.Value)
}

// AddTiming appends a timing row.
func (b *Builder) AddTiming(t Timing) {
	rb := b.b[TableTimings]
	for j, s := range []string{t.Experiment, t.Variant, t.Shape, t.File, t.Device, t.Method} {
		appendStr(rb.Field(j), s)
	}
	rb.Field(6).(*array.Int32Builder).Append(t.Rep)
	rb.Field(7).(*array.Float64Builder).Append(t.Ms)
}

// Finish returns the tables built so far and resets the builder.
func (b *Builder) Finish() *Tables {
	t := &Tables{recs: map[string]arrow.RecordBatch{}}
	for _, n := range TableNames {
		t.recs[n] = b.b[n].NewRecordBatch()
	}
	b.nextKernel, b.nextRange = 0, 0
	return t
}

// Formats of persisted tables.
const (
	FormatParquet = "parquet"
	FormatArrow   = "arrow"
)

// Write persists every table under dir as <table>.parquet (or .arrow). Each
// file is written to a temporary name in dir and renamed into place, so a
// failure never leaves a half-written table that looks whole.
func (t *Tables) Write(dir, format string) error {
	if format != FormatParquet && format != FormatArrow {
		return fmt.Errorf("unknown table format %q (want parquet or arrow)", format)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var tmps []string
	defer func() {
		for _, p := range tmps {
			os.Remove(p)
		}
	}()
	// Write every table to a temp file first, then rename them all: a
	// failure part-way leaves the directory as it was.
	for _, n := range TableNames {
		f, err := os.CreateTemp(dir, "."+n+".*.tmp")
		if err != nil {
			return err
		}
		tmps = append(tmps, f.Name())
		if err := writeRecord(f, t.recs[n], format); err != nil {
			return fmt.Errorf("write table %s: %w", n, err)
		}
	}
	for i, n := range TableNames {
		// CreateTemp makes 0600 files; tables are ordinary shared outputs.
		if err := os.Chmod(tmps[i], 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmps[i], filepath.Join(dir, n+"."+format)); err != nil {
			return err
		}
	}
	tmps = nil
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
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(true))
		w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
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

// ReadDir reads the tables that Write persisted under dir (Parquet or Arrow
// IPC, whichever is there). A missing table file is an error naming it.
func ReadDir(dir string, mem memory.Allocator) (*Tables, error) {
	return ReadFS(os.DirFS(dir), ".", dir, mem)
}

// ReadFS reads the tables in folder dir of fsys (an embedded run, or
// os.DirFS); name is how errors call that folder. Parquet needs random
// access: fsys's files must implement io.ReaderAt (os and embed files do).
func ReadFS(fsys fs.FS, dir, name string, mem memory.Allocator) (*Tables, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	t := &Tables{recs: map[string]arrow.RecordBatch{}}
	for _, n := range TableNames {
		rec, err := readTable(fsys, dir, name, n, mem)
		if err != nil {
			t.Release()
			return nil, err
		}
		t.recs[n] = rec
	}
	return t, nil
}

// randomAccess is what the Parquet and Arrow IPC readers need of a file.
type randomAccess interface {
	io.ReaderAt
	io.Seeker
	io.Reader
}

func readTable(fsys fs.FS, dir, dirName, name string, mem memory.Allocator) (arrow.RecordBatch, error) {
	pqPath, arPath := path.Join(dir, name+"."+FormatParquet), path.Join(dir, name+"."+FormatArrow)
	pq := filepath.Join(dirName, name+"."+FormatParquet)
	ar := filepath.Join(dirName, name+"."+FormatArrow)
	open := func(p, shown string) (randomAccess, func(), error) {
		f, err := fsys.Open(p)
		if err != nil {
			return nil, nil, err
		}
		ra, ok := f.(randomAccess)
		if !ok {
			f.Close()
			return nil, nil, fmt.Errorf("read %s: the file system gives no random access", shown)
		}
		return ra, func() { f.Close() }, nil
	}
	if f, closeF, err := open(pqPath, pq); err == nil {
		defer closeF()
		tbl, err := pqarrow.ReadTable(contextBackground(), f, parquet.NewReaderProperties(mem), pqarrow.ArrowReadProperties{}, mem)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", pq, err)
		}
		defer tbl.Release()
		return conform(tableToRecord(tbl, mem), name, pq, mem)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, closeF, err := open(arPath, ar)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read tables in %s: no %s.parquet or %s.arrow", dirName, name, name)
		}
		return nil, err
	}
	defer closeF()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ar, err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", ar, err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	tbl := array.NewTableFromRecords(r.Schema(), recs)
	for _, rec := range recs {
		rec.Release()
	}
	defer tbl.Release()
	return conform(tableToRecord(tbl, mem), name, ar, mem)
}

// tableToRecord concatenates a table's chunks into one record.
func tableToRecord(tbl arrow.Table, mem memory.Allocator) arrow.RecordBatch {
	cols := make([]arrow.Array, tbl.NumCols())
	for i := range cols {
		chunks := tbl.Column(i).Data().Chunks()
		switch len(chunks) {
		case 0:
			cols[i] = array.MakeArrayOfNull(mem, tbl.Schema().Field(i).Type, 0)
		case 1:
			chunks[0].Retain()
			cols[i] = chunks[0]
		default:
			c, err := array.Concatenate(chunks, mem)
			if err != nil {
				panic(err)
			}
			cols[i] = c
		}
	}
	rec := array.NewRecordBatch(tbl.Schema(), cols, tbl.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// conform checks that rec has the columns of the named table's schema, in
// order, with compatible types (plain strings are accepted for dictionary
// columns).
func conform(rec arrow.RecordBatch, name, file string, mem memory.Allocator) (arrow.RecordBatch, error) {
	want := Schema(name)
	if int(rec.NumCols()) != want.NumFields() {
		rec.Release()
		return nil, fmt.Errorf("read %s: table %s has %d columns, want %d (%s)", file, name, rec.NumCols(), want.NumFields(), fieldNames(want))
	}
	for i, f := range want.Fields() {
		got := rec.Schema().Field(i)
		if got.Name != f.Name || !compatible(got.Type, f.Type) {
			rec.Release()
			return nil, fmt.Errorf("read %s: table %s column %d is %s %s, want %s %s", file, name, i, got.Name, got.Type, f.Name, f.Type)
		}
	}
	return rec, nil
}

func compatible(got, want arrow.DataType) bool {
	if arrow.TypeEqual(got, want) {
		return true
	}
	isStr := func(t arrow.DataType) bool {
		if d, ok := t.(*arrow.DictionaryType); ok {
			t = d.ValueType
		}
		return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING
	}
	return isStr(got) && isStr(want)
}

func fieldNames(s *arrow.Schema) string {
	var n []string
	for _, f := range s.Fields() {
		n = append(n, f.Name)
	}
	return strings.Join(n, ",")
}
