package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest/internal/knob"
)

func sampleTables(t *testing.T, mem memory.Allocator) *Tables {
	t.Helper()
	b := NewBuilder(mem)
	defer b.Release()
	g := int64(7)
	id := b.AddKernel(Kernel{Source: SourceNsys, File: "a.sqlite", Pass: PassTimeline, Experiment: "e", Variant: "v", Shape: "M=1",
		Range: "M=1", RangePath: "e/v/M=1", Name: "void k<int>(float*)", ShortName: "k", Device: 0, Stream: 7,
		GridX: 1, GridY: 2, GridZ: 3, BlockX: 128, BlockY: 1, BlockZ: 1, Registers: 32, StartNs: 10, DurationNs: 5, GraphNodeID: &g})
	b.AddKernel(Kernel{Source: SourceNCU, File: "b.csv", Pass: PassKernel, Name: "k2", ShortName: "k2", DurationNs: 9})
	b.AddMetric(Metric{KernelID: id, Name: "dram__bytes_read.sum", Unit: "byte", Value: 1024, Valid: true})
	b.AddMetric(Metric{KernelID: id, Name: "launch__cache", Text: "n/a"})
	p := int64(0)
	b.AddRange(Range{Source: SourceNsys, File: "a.sqlite", Kind: "push_pop", Text: "e", Path: "e", StartNs: 1, EndNs: 100})
	b.AddRange(Range{Source: SourceNsys, File: "a.sqlite", Kind: "push_pop", Text: "v", Path: "e/v", Depth: 1, ParentID: &p, StartNs: 2, EndNs: 99})
	b.AddGPU(GPU{Source: SourceNsys, File: "a.sqlite", Name: "NVIDIA H100 80GB HBM3", CCMajor: 9, SMCount: 132, L2Bytes: 50 << 20})
	b.AddMeta(Meta{Source: SourceNsys, File: "a.sqlite", Key: "EXPORT_SCHEMA_VERSION", Value: "3.20.3"})
	b.AddTiming(Timing{Experiment: "e", Variant: "v", Shape: "M=1", Method: "cuda-graph", Rep: 0, Ms: 0.5})
	return b.Finish()
}

func TestTablesRoundTrip(t *testing.T) {
	for _, format := range []string{FormatParquet, FormatArrow} {
		t.Run(format, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tb := sampleTables(t, mem)
			defer tb.Release()
			dir := t.TempDir()
			if err := tb.Write(dir, format); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != len(TableNames) {
				t.Fatalf("wrote %d files, want %d", len(ents), len(TableNames))
			}
			got, err := ReadDir(dir, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if d := cmp.Diff(tb.Kernels(), got.Kernels()); d != "" {
				t.Errorf("kernels differ (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tb.Metrics(), got.Metrics()); d != "" {
				t.Errorf("metrics differ:\n%s", d)
			}
			if d := cmp.Diff(tb.Ranges(), got.Ranges()); d != "" {
				t.Errorf("ranges differ:\n%s", d)
			}
			for _, f := range []func(*Tables) any{
				func(x *Tables) any { return x.GPUs() }, func(x *Tables) any { return x.Metas() }, func(x *Tables) any { return x.Timings() },
			} {
				if d := cmp.Diff(f(tb), f(got)); d != "" {
					t.Errorf("table differs:\n%s", d)
				}
			}
		})
	}
}

func TestReadDirMissingTable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := sampleTables(t, mem)
	defer tb.Release()
	dir := t.TempDir()
	if err := tb.Write(dir, FormatParquet); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "ranges.parquet"))
	if _, err := ReadDir(dir, mem); err == nil {
		t.Fatal("ReadDir succeeded without ranges.parquet")
	}
}

// Null marks survive a write and a read; unknown values are nulls in the
// file and read back as 0 with their Null bit; GPU facts of 0 are nulls.
func TestTablesNulls(t *testing.T) {
	for _, format := range []string{FormatParquet, FormatArrow} {
		t.Run(format, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			b := NewBuilder(mem)
			defer b.Release()
			b.AddKernel(Kernel{Source: SourceNCU, File: "k.csv", Pass: PassKernel, Name: "k", CorrelationID: 0, Stream: 7,
				GridX: 4, GridY: 1, GridZ: 1, DurationNs: 900,
				Null: NullStart | NullTID | NullPID | NullBlock | NullRegisters | NullStaticShared | NullDynShared})
			b.AddKernel(Kernel{Source: SourceNsys, File: "t.sqlite", Pass: PassTimeline, Name: "k", StartNs: 0, DurationNs: 5, Null: NullTID})
			b.AddRange(Range{Source: SourceNsys, Kind: RangeCUDAGraph, Text: "g", PID: 12, StartNs: 1, EndNs: 2, Null: NullTID})
			b.AddGPU(GPU{Source: SourceNCU, File: "k.csv", Name: "H100", CCMajor: 9, CCMinor: 0, SMCount: 132})
			b.AddGPU(GPU{Source: SourceNsys, File: "t.sqlite"})
			tb := b.Finish()
			defer tb.Release()
			nulls := func(tb *Tables, table, col string) int {
				rec := tb.Record(table)
				return rec.Column(colIndex(rec, col)).NullN()
			}
			check := func(tb *Tables, what string) {
				for _, c := range []struct {
					table, col string
					want       int
				}{
					{TableKernels, "start_ns", 1}, {TableKernels, "tid", 2}, {TableKernels, "pid", 1},
					{TableKernels, "grid_x", 0}, {TableKernels, "block_y", 1}, {TableKernels, "registers", 1},
					{TableKernels, "stream", 0}, {TableKernels, "duration_ns", 0}, {TableKernels, "correlation_id", 0},
					{TableRanges, "tid", 1}, {TableRanges, "pid", 0},
					{TableGPUs, "cc_major", 1}, {TableGPUs, "cc_minor", 1}, {TableGPUs, "sm_count", 1},
					{TableGPUs, "memory_bandwidth", 2}, {TableGPUs, "device", 0},
				} {
					if got := nulls(tb, c.table, c.col); got != c.want {
						t.Errorf("%s: %s.%s has %d nulls, want %d", what, c.table, c.col, got, c.want)
					}
				}
			}
			check(tb, "built")
			ks := tb.Kernels()
			if ks[0].Null != NullStart|NullTID|NullPID|NullBlock|NullRegisters|NullStaticShared|NullDynShared || ks[1].Null != NullTID {
				t.Errorf("Null bits read back %#x %#x", ks[0].Null, ks[1].Null)
			}
			if ks[0].StartNs != 0 || ks[0].Stream != 7 || ks[0].GridX != 4 || ks[0].DurationNs != 900 {
				t.Errorf("values read back %+v", ks[0])
			}
			dir := t.TempDir()
			if err := tb.Write(dir, format); err != nil {
				t.Fatal(err)
			}
			got, err := ReadDir(dir, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			check(got, "read")
			if d := cmp.Diff(tb.Kernels(), got.Kernels()); d != "" {
				t.Errorf("kernels differ (-written +read):\n%s", d)
			}
			if d := cmp.Diff(tb.Ranges(), got.Ranges()); d != "" {
				t.Errorf("ranges differ (-written +read):\n%s", d)
			}
			if d := cmp.Diff(tb.GPUs(), got.GPUs()); d != "" {
				t.Errorf("gpus differ (-written +read):\n%s", d)
			}
			// Rows read back and appended again keep their nulls.
			b2 := NewBuilder(mem)
			defer b2.Release()
			for _, k := range got.Kernels() {
				b2.AddKernel(k)
			}
			for _, r := range got.Ranges() {
				b2.AddRange(r)
			}
			for _, g := range got.GPUs() {
				b2.AddGPU(g)
			}
			again := b2.Finish()
			defer again.Release()
			check(again, "appended again")
		})
	}
}

// Written files state their schema version and table, carry field
// metadata, and type start_ns as a timestamp.
func TestWriteMetadata(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := sampleTables(t, mem)
	defer tb.Release()
	dir := t.TempDir()
	if err := tb.Write(dir, FormatParquet); err != nil {
		t.Fatal(err)
	}
	for _, n := range TableNames {
		pf, err := file.OpenParquetFile(filepath.Join(dir, n+".parquet"), false)
		if err != nil {
			t.Fatal(err)
		}
		kv := pf.MetaData().KeyValueMetadata()
		if v := kv.FindValue(MetaSchemaVersion); v == nil || *v != "4" {
			t.Errorf("%s: %s = %v", n, MetaSchemaVersion, v)
		}
		if v := kv.FindValue(MetaTable); v == nil || *v != n {
			t.Errorf("%s: %s = %v", n, MetaTable, v)
		}
		if n == TableKernels {
			c := pf.MetaData().Schema.Column(pf.MetaData().Schema.ColumnIndexByName("start_ns"))
			if c.LogicalType().String() != "Timestamp(isAdjustedToUTC=false, timeUnit=nanoseconds, is_from_converted_type=false, force_set_converted_type=false)" {
				t.Errorf("start_ns is stored as %s", c.LogicalType())
			}
		}
		pf.Close()
	}
	got, err := ReadDir(dir, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	f := got.Record(TableKernels).Schema().Field(colIndex(got.Record(TableKernels), "static_shared_bytes"))
	if u, _ := f.Metadata.GetValue(FieldMetaUnit); u != "byte" {
		t.Errorf("static_shared_bytes read back with unit %q", u)
	}
}

// A large table is split into row groups of knob.RowGroupRows rows.
func TestWriteRowGroups(t *testing.T) {
	defer func(n int64) { knob.RowGroupRows = n }(knob.RowGroupRows)
	knob.RowGroupRows = 10
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := NewBuilder(mem)
	defer b.Release()
	for i := 0; i < 25; i++ {
		b.AddKernel(Kernel{Source: SourceNsys, Name: fmt.Sprintf("k%d", i%3), StartNs: int64(i), DurationNs: 1, Null: Nulls(i%2) * NullTID})
	}
	tb := b.Finish()
	defer tb.Release()
	dir := t.TempDir()
	if err := tb.Write(dir, FormatParquet); err != nil {
		t.Fatal(err)
	}
	pf, err := file.OpenParquetFile(filepath.Join(dir, "kernels.parquet"), false)
	if err != nil {
		t.Fatal(err)
	}
	if n := pf.NumRowGroups(); n != 3 {
		t.Errorf("%d row groups, want 3", n)
	}
	pf.Close()
	got, err := ReadDir(dir, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if d := cmp.Diff(tb.Kernels(), got.Kernels()); d != "" {
		t.Errorf("kernels differ (-written +read):\n%s", d)
	}
}

// writeV1 writes rec as a version 1 file would be: the schema without
// metadata, start/end times as int64.
func writeV1(t *testing.T, path string, rec arrow.RecordBatch) {
	t.Helper()
	var fields []arrow.Field
	var cols []arrow.Array
	for i, f := range rec.Schema().Fields() {
		c := rec.Column(i)
		if f.Type.ID() == arrow.TIMESTAMP {
			f.Type = arrow.PrimitiveTypes.Int64
			c = retype(c, f.Type)
			defer c.Release()
		}
		fields = append(fields, arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable})
		cols = append(cols, c)
	}
	v1 := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	defer v1.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(v1.Schema(), f, nil, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(v1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A version 1 file (no schema version, int64 times, 0 for unknown) reads
// with the same row values, typed times, and nulls where version 1
// documented 0 as unknown.
func TestReadVersion1(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := NewBuilder(mem)
	defer b.Release()
	// Version 1 rows: every value known, 0 where the source gave none.
	b.AddKernel(Kernel{Source: SourceNCU, File: "k.csv", Pass: PassKernel, Name: "a", Context: 1, Stream: 7, PID: 99,
		GridX: 4, GridY: 1, GridZ: 1, BlockX: 128, BlockY: 1, BlockZ: 1, DurationNs: 900})
	b.AddKernel(Kernel{Source: SourceNCU, File: "k.csv", Pass: PassKernel, Name: "b", CorrelationID: 1})
	b.AddKernel(Kernel{Source: SourceNsys, File: "t.sqlite", Pass: PassTimeline, Name: "a", Context: 1, PID: 99, TID: 98,
		GridX: 4, GridY: 1, GridZ: 1, BlockX: 128, BlockY: 1, BlockZ: 1, Registers: 32, StartNs: 1000, DurationNs: 800})
	b.AddKernel(Kernel{Source: SourceKineto, File: "t.json", Pass: PassTimeline, Name: "a", StaticSharedBytes: 4096, StartNs: 0, DurationNs: 700})
	b.AddRange(Range{Source: SourceNsys, Kind: RangePushPop, Text: "r", PID: 0, TID: 0, StartNs: 5, EndNs: 6})
	b.AddGPU(GPU{Source: SourceNsys, File: "t.sqlite", Name: "H100", CCMajor: 9, SMCount: 132, SMClockHz: 1.98e9})
	tb := b.Finish()
	defer tb.Release()
	dir := t.TempDir()
	for _, n := range TableNames {
		writeV1(t, filepath.Join(dir, n+".parquet"), tb.Record(n))
	}
	got, err := ReadDir(dir, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	want := tb.Kernels()
	want[0].Null = NullStart | NullTID
	want[1].Null = NullStart | NullDuration | NullContext | NullPID | NullTID | NullGrid | NullBlock | NullRegisters
	want[2].Null = 0
	want[3].Null = NullContext | NullPID | NullTID | NullGrid | NullBlock | NullRegisters | NullDynShared
	for i := range want {
		if i != 2 {
			want[i].Null |= NullRegisters
		}
	}
	if d := cmp.Diff(want, got.Kernels()); d != "" {
		t.Errorf("kernels (-want +got):\n%s", d)
	}
	// Ranges of version 1 keep their values: 0 was not documented as unknown there.
	if d := cmp.Diff(tb.Ranges(), got.Ranges()); d != "" {
		t.Errorf("ranges (-want +got):\n%s", d)
	}
	if d := cmp.Diff(tb.GPUs(), got.GPUs()); d != "" {
		t.Errorf("gpus (-want +got):\n%s", d)
	}
	g := got.Record(TableGPUs)
	for col, want := range map[string]int{"cc_major": 0, "cc_minor": 0, "sm_count": 0, "memory_bytes": 1, "sm_clock_hz": 0, "mem_clock_hz": 1} {
		if n := g.Column(colIndex(g, col)).NullN(); n != want {
			t.Errorf("gpus.%s: %d nulls, want %d", col, n, want)
		}
	}
	k := got.Record(TableKernels)
	if typ := k.Column(colIndex(k, "start_ns")).DataType(); typ.ID() != arrow.TIMESTAMP {
		t.Errorf("start_ns read as %s", typ)
	}
	if v, _ := k.Schema().Metadata().GetValue(MetaSchemaVersion); v != "4" {
		t.Errorf("read schema version %q", v)
	}
}

// The committed runs were written as version 1: they read, with every ncu
// row's start_ns null and every timeline row's start_ns set.
func TestReadCommittedRunV1(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ReadDir("../testdata/runs/2026-11-23-h100-140505/tables", mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	var ncu, timeline int
	for _, k := range tb.Kernels() {
		switch k.Source {
		case SourceNCU:
			ncu++
			if k.Null&NullStart == 0 || k.StartNs != 0 {
				t.Fatalf("ncu kernel %d: start %d, Null %#x", k.ID, k.StartNs, k.Null)
			}
		default:
			timeline++
			if k.Null&NullStart != 0 {
				t.Fatalf("%s kernel %d: start_ns null", k.Source, k.ID)
			}
		}
	}
	if ncu == 0 || timeline == 0 {
		t.Errorf("%d ncu and %d timeline kernels; want both", ncu, timeline)
	}
}

// knob.RowGroupRows, the row group that tests lower, starts at RowGroupRows.
func TestRowGroupKnob(t *testing.T) {
	if knob.RowGroupRows != RowGroupRows {
		t.Errorf("knob.RowGroupRows = %d, want RowGroupRows = %d", knob.RowGroupRows, RowGroupRows)
	}
}
