package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
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
	// sink, when set, takes each table's rows as they pile up (Stream).
	sink  *tableSink
	drop  map[string]bool // tables whose rows the sink is not given
	warns []Meta          // meta rows with key "warning"
	// progress, when set, counts the kernel rows of the export being
	// parsed (Options.Progress).
	progress *progress
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

// Allocator returns the allocator b builds its tables from.
func (b *Builder) Allocator() memory.Allocator { return b.mem }

// NextKernelID returns the id AddKernel will give the next kernel.
func (b *Builder) NextKernelID() int64 { return b.nextKernel }

// NextRangeID returns the id AddRange will give the next range.
func (b *Builder) NextRangeID() int64 { return b.nextRange }

// appendStrN appends s to a string column that is null where its string is
// unknown (an ndict column of the schema): "" is appended as null.
func appendStrN(bl array.Builder, s string) {
	if s == "" {
		bl.AppendNull()
		return
	}
	appendStr(bl, s)
}

// emptyNull reports, per field of the named table, whether the builder
// writes "" as null there (the nullable string columns).
func emptyNull(table string) []bool {
	cols := Columns(table)
	out := make([]bool, len(cols))
	for i, c := range cols {
		if d, ok := c.Type.(*arrow.DictionaryType); ok && c.Nullable && d.ValueType.ID() == arrow.STRING {
			out[i] = true
		}
	}
	return out
}

var kernelsEmptyNull = emptyNull(TableKernels)

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
// and returns that id. Columns marked in k.Null are appended as null.
func (b *Builder) AddKernel(k Kernel) int64 {
	id := b.nextKernel
	b.nextKernel++
	b.progress.kernel()
	rb := b.b[TableKernels]
	rb.Field(0).(*array.Int64Builder).Append(id)
	for j, s := range []string{k.Source, k.File, k.Pass, k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath, k.Name, k.ShortName, k.Mangled} {
		if kernelsEmptyNull[1+j] {
			appendStrN(rb.Field(1+j), s)
		} else {
			appendStr(rb.Field(1+j), s)
		}
	}
	appendI32(rb.Field(12), k.Device, k.Null&NullDevice != 0)
	appendKernelCall(rb, &k, 13, 5)
	appendKernelTail(rb, &k)
	b.spill(TableKernels)
	return id
}

// appendKernelCall appends n of the kernels columns context, stream,
// correlation_id, pid, tid (fields 13-17), starting at field first.
func appendKernelCall(rb *array.RecordBuilder, k *Kernel, first, n int) {
	vals := [...]int64{k.Context, k.Stream, k.CorrelationID, k.PID, k.TID}
	bits := [...]Nulls{NullContext, NullStream, NullCorrelationID, NullPID, NullTID}
	for f := first; f < first+n; f++ {
		appendI64(rb.Field(f), vals[f-13], k.Null&bits[f-13] != 0)
	}
}

// kernelTailNulls are the Nulls bits of the kernels fields 18-26.
var kernelTailNulls = [...]Nulls{NullGridX, NullGridY, NullGridZ, NullBlockX, NullBlockY, NullBlockZ, NullRegisters, NullStaticShared, NullDynShared}

// appendKernelTail appends the kernels columns from grid_x on (fields
// 18-29: launch geometry, registers, shared memory, times, graph node),
// which every kernel appender writes the same way.
func appendKernelTail(rb *array.RecordBuilder, k *Kernel) {
	for j, v := range [...]int32{k.GridX, k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ, k.Registers} {
		appendI32(rb.Field(18+j), v, k.Null&kernelTailNulls[j] != 0)
	}
	appendI64(rb.Field(25), k.StaticSharedBytes, k.Null&NullStaticShared != 0)
	appendI64(rb.Field(26), k.DynSharedBytes, k.Null&NullDynShared != 0)
	appendI64(rb.Field(27), k.StartNs, k.Null&NullStart != 0)
	appendI64(rb.Field(28), k.DurationNs, k.Null&NullDuration != 0)
	g := rb.Field(29).(*array.Int64Builder)
	if k.GraphNodeID != nil {
		g.Append(*k.GraphNodeID)
	} else {
		g.AppendNull()
	}
}

// appendI32 appends v, or null, to an int32 column.
func appendI32(bl array.Builder, v int32, null bool) {
	x := bl.(*array.Int32Builder)
	if null {
		x.AppendNull()
	} else {
		x.Append(v)
	}
}

// appendI64 appends v, or null, to an int64 or timestamp column (a
// timestamp in the column's unit).
func appendI64(bl array.Builder, v int64, null bool) {
	if null {
		bl.AppendNull()
		return
	}
	switch x := bl.(type) {
	case *array.Int64Builder:
		x.Append(v)
	case *array.TimestampBuilder:
		x.Append(arrow.Timestamp(v))
	default:
		panic(fmt.Sprintf("ingest: int64 column of type %T", bl))
	}
}

// appendF64 appends v, or null, to a float64 column.
func appendF64(bl array.Builder, v float64, null bool) {
	x := bl.(*array.Float64Builder)
	if null {
		x.AppendNull()
	} else {
		x.Append(v)
	}
}

// AddMetric appends a metric row.
func (b *Builder) AddMetric(m Metric) {
	rb := b.b[TableMetrics]
	rb.Field(0).(*array.Int64Builder).Append(m.KernelID)
	appendStrN(rb.Field(1), m.Section)
	appendStr(rb.Field(2), m.Name)
	appendStr(rb.Field(3), m.Unit)
	if m.Valid {
		rb.Field(4).(*array.Float64Builder).Append(m.Value)
	} else {
		rb.Field(4).(*array.Float64Builder).AppendNull()
	}
	appendStrN(rb.Field(5), m.Text)
	b.spill(TableMetrics)
}

// AddRange appends a range row, assigns it the next id and returns it.
func (b *Builder) AddRange(r Range) int64 {
	id := b.nextRange
	b.nextRange++
	rb := b.b[TableRanges]
	rb.Field(0).(*array.Int64Builder).Append(id)
	appendStr(rb.Field(1), r.Source)
	appendStr(rb.Field(2), r.File)
	appendStr(rb.Field(3), r.Kind)
	appendStrN(rb.Field(4), r.Domain)
	appendStrN(rb.Field(5), r.Text)
	appendStr(rb.Field(6), r.Path)
	rb.Field(7).(*array.Int32Builder).Append(r.Depth)
	if r.ParentID != nil {
		rb.Field(8).(*array.Int64Builder).Append(*r.ParentID)
	} else {
		rb.Field(8).(*array.Int64Builder).AppendNull()
	}
	appendI64(rb.Field(9), r.PID, r.Null&NullPID != 0)
	appendI64(rb.Field(10), r.TID, r.Null&NullTID != 0)
	appendI64(rb.Field(11), r.StartNs, false)
	appendI64(rb.Field(12), r.EndNs, false)
	b.spill(TableRanges)
	return id
}

// AddGPU appends a GPU row. A zero numeric field is a fact the export does
// not state and is appended as null (cc_minor only when cc_major is 0 too:
// a minor version of 0 is common).
func (b *Builder) AddGPU(g GPU) {
	rb := b.b[TableGPUs]
	appendStr(rb.Field(0), g.Source)
	appendStr(rb.Field(1), g.File)
	rb.Field(2).(*array.Int32Builder).Append(g.Device)
	appendStrN(rb.Field(3), g.Name)
	appendI32(rb.Field(4), g.CCMajor, g.CCMajor == 0)
	appendI32(rb.Field(5), g.CCMinor, g.CCMajor == 0 && g.CCMinor == 0)
	appendI32(rb.Field(6), g.SMCount, g.SMCount == 0)
	appendI64(rb.Field(7), g.MemoryBytes, g.MemoryBytes == 0)
	appendF64(rb.Field(8), g.MemoryBandwidth, g.MemoryBandwidth == 0)
	appendI64(rb.Field(9), g.L2Bytes, g.L2Bytes == 0)
	appendF64(rb.Field(10), g.SMClockHz, g.SMClockHz == 0)
	appendF64(rb.Field(11), g.MemClockHz, g.MemClockHz == 0)
	appendStrN(rb.Field(12), g.Bus)
	b.spill(TableGPUs)
}

// AddMeta appends a metadata row.
func (b *Builder) AddMeta(m Meta) {
	rb := b.b[TableMeta]
	for j, s := range []string{m.Source, m.File, m.Key} {
		appendStr(rb.Field(j), s)
	}
	rb.Field(3).(*array.StringBuilder).Append(m.Value)
	if m.Key == "warning" {
		b.warns = append(b.warns, m)
	}
	b.spill(TableMeta)
}

// AddTiming appends a timing row.
func (b *Builder) AddTiming(t Timing) {
	rb := b.b[TableTimings]
	for j, s := range []string{t.Experiment, t.Variant, t.Shape, t.File, t.Device, t.Method} {
		appendStr(rb.Field(j), s)
	}
	rb.Field(6).(*array.Int32Builder).Append(t.Rep)
	rb.Field(7).(*array.Float64Builder).Append(t.Ms)
	b.spill(TableTimings)
}

// Finish returns the tables built so far and resets the builder.
func (b *Builder) Finish() *Tables {
	t := &Tables{recs: map[string]arrow.RecordBatch{}}
	for _, n := range TableNames {
		t.recs[n] = b.b[n].NewRecordBatch()
	}
	b.nextKernel, b.nextRange = 0, 0
	b.warns = nil
	return t
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
	if _, err := fs.Stat(fsys, pqPath); err == nil {
		if _, err := fs.Stat(fsys, arPath); err == nil {
			return nil, fmt.Errorf("read tables in %s: both %s and %s exist: one table in two formats (a write that did not finish, or two writers); remove the stale one", dirName, pq, ar)
		}
	}
	if f, closeF, err := open(pqPath, pq); err == nil {
		defer closeF()
		pf, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(mem)))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", pq, err)
		}
		defer pf.Close()
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", pq, err)
		}
		sc, err := fr.Schema() // with the file's metadata, which ReadTable's schema lacks
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", pq, err)
		}
		tbl, err := fr.ReadTable(contextBackground())
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", pq, err)
		}
		defer tbl.Release()
		return conform(tableToRecord(tbl, mem), sc.Metadata(), name, pq, mem)
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
	return conform(tableToRecord(tbl, mem), r.Schema().Metadata(), name, ar, mem)
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

// conform checks that rec, read from file with schema metadata md, has the
// columns of the named table's schema, in order, with compatible types, and
// returns it in the current schema (version SchemaVersion, with its
// metadata); it releases rec. Plain strings are kept for dictionary
// columns; int64 columns of older files become timestamp columns where the
// schema has those (nanoseconds in both). Version 1 files, which wrote 0 for
// what a source did not give, get nulls where that version documented 0 as
// unknown (upgradeV1).
func conform(rec arrow.RecordBatch, md arrow.Metadata, name, file string, mem memory.Allocator) (arrow.RecordBatch, error) {
	defer rec.Release()
	want := Schema(name)
	version, err := fileVersion(md, name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if int(rec.NumCols()) != want.NumFields() {
		return nil, fmt.Errorf("read %s: table %s has %d columns, want %d (%s)", file, name, rec.NumCols(), want.NumFields(), fieldNames(want))
	}
	fields := make([]arrow.Field, want.NumFields())
	cols := make([]arrow.Array, want.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range want.Fields() {
		got := rec.Schema().Field(i)
		if got.Name != f.Name || !compatible(got.Type, f.Type) {
			return nil, fmt.Errorf("read %s: table %s column %d is %s %s, want %s %s", file, name, i, got.Name, got.Type, f.Name, f.Type)
		}
		c := rec.Column(i)
		switch {
		case arrow.TypeEqual(got.Type, f.Type):
			c.Retain()
		case got.Type.ID() == arrow.INT64:
			c = retype(c, f.Type)
		default: // a plain string column for a dictionary one, or the reverse
			c.Retain()
			f.Type = got.Type
		}
		fields[i], cols[i] = f, c
	}
	if version < 2 {
		upgradeV1(name, cols, mem)
	}
	wmd := want.Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &wmd), cols, rec.NumRows()), nil
}

// fileVersion returns the schema version that a table's metadata states: 1
// when it states none. A version newer than SchemaVersion, or a table name
// other than name, is an error.
func fileVersion(md arrow.Metadata, name string) (int, error) {
	if t := md.FindKey(MetaTable); t >= 0 && md.Values()[t] != name {
		return 0, fmt.Errorf("holds table %q, not %s", md.Values()[t], name)
	}
	i := md.FindKey(MetaSchemaVersion)
	if i < 0 {
		return 1, nil
	}
	v, err := strconv.Atoi(md.Values()[i])
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%s %q is not a version number", MetaSchemaVersion, md.Values()[i])
	}
	if v > SchemaVersion {
		return 0, fmt.Errorf("table %s has schema version %d; this rooftool reads versions 1 to %d", name, v, SchemaVersion)
	}
	return v, nil
}

func compatible(got, want arrow.DataType) bool {
	if arrow.TypeEqual(got, want) {
		return true
	}
	if w, ok := want.(*arrow.TimestampType); ok && got.ID() == arrow.INT64 {
		return w.Unit == arrow.Nanosecond
	}
	isStr := func(t arrow.DataType) bool {
		if d, ok := t.(*arrow.DictionaryType); ok {
			t = d.ValueType
		}
		return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING
	}
	return isStr(got) && isStr(want)
}

// retype returns a's values as an array of type t of the same layout
// (int64 as timestamp), sharing a's buffers.
func retype(a arrow.Array, t arrow.DataType) arrow.Array {
	d := a.Data()
	nd := array.NewData(t, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// upgradeV1 turns into nulls the values that version 1 wrote as 0 for
// "unknown": in kernels context, pid, tid, grid, block and registers when 0,
// start_ns of ncu rows (ncu has no timeline), duration_ns of ncu rows when
// 0, dynamic_shared_bytes of kineto rows (Kineto states shared memory as
// one figure, kept in static_shared_bytes); in gpus every numeric fact that
// is 0 (cc_minor only when cc_major is 0 too). cols are replaced in place.
func upgradeV1(name string, cols []arrow.Array, mem memory.Allocator) {
	set := func(i int, null func(int) bool) {
		a := nullWhere(cols[i], null, mem)
		cols[i].Release()
		cols[i] = a
	}
	zero := func(i int) func(int) bool {
		switch a := cols[i].(type) {
		case *array.Int32:
			return func(j int) bool { return a.Value(j) == 0 }
		case *array.Int64:
			return func(j int) bool { return a.Value(j) == 0 }
		case *array.Float64:
			return func(j int) bool { return a.Value(j) == 0 }
		}
		panic(fmt.Sprintf("ingest: upgradeV1: column %d is %s", i, cols[i].DataType()))
	}
	idx := func(col string) int {
		for i, c := range Columns(name) {
			if c.Name == col {
				return i
			}
		}
		panic("ingest: upgradeV1: no column " + col)
	}
	switch name {
	case TableKernels:
		src := strColumn(cols[idx("source")])
		for _, c := range []string{"context", "pid", "tid", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers"} {
			set(idx(c), zero(idx(c)))
		}
		set(idx("start_ns"), func(j int) bool { return src(j) == SourceNCU })
		dz := zero(idx("duration_ns"))
		set(idx("duration_ns"), func(j int) bool { return src(j) == SourceNCU && dz(j) })
		set(idx("dynamic_shared_bytes"), func(j int) bool { return src(j) == SourceKineto })
	case TableGPUs:
		for _, c := range []string{"sm_count", "memory_bytes", "memory_bandwidth", "l2_bytes", "sm_clock_hz", "mem_clock_hz"} {
			set(idx(c), zero(idx(c)))
		}
		maj, min := zero(idx("cc_major")), zero(idx("cc_minor"))
		set(idx("cc_minor"), func(j int) bool { return maj(j) && min(j) })
		set(idx("cc_major"), maj)
	}
}

// nullWhere returns a with the rows where null(row) holds made null. The
// result shares a's value buffers; a itself is not changed.
func nullWhere(a arrow.Array, null func(int) bool, mem memory.Allocator) arrow.Array {
	d := a.Data()
	n, off := d.Len(), d.Offset()
	bm := memory.NewResizableBuffer(mem)
	defer bm.Release()
	bm.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bits := bm.Bytes()
	clear(bits)
	nulls := 0
	for i := 0; i < n; i++ {
		if a.IsValid(i) && !null(i) {
			bitutil.SetBit(bits, off+i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bm}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, nil, nulls, off)
	defer nd.Release()
	return array.MakeFromData(nd)
}

func fieldNames(s *arrow.Schema) string {
	var n []string
	for _, f := range s.Fields() {
		n = append(n, f.Name)
	}
	return strings.Join(n, ",")
}
