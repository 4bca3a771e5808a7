package ingest

// This file is the contract between rooftool's packages: the Arrow schema of
// every table that ingest writes, and the Go row types that parsers append and
// analysis reads. Every column is documented here, in the Column entries of
// the tables below, and nowhere else: ingest/SCHEMA.md is generated from them
// (go test ./ingest -run TestSchemaDoc -update) and a test fails when it
// differs.
//
// Units are base units throughout: nanoseconds, bytes, hertz, FLOPs, ratios
// (a percentage stays a percentage: unit "%"). Strings that repeat are
// dictionary-encoded. A value that a source does not give is null, not 0.

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rooftool/rooftool/cellkey"
)

// Table names, also the file names of the persisted tables
// (<dir>/<name>.parquet or <dir>/<name>.arrow).
const (
	TableKernels = "kernels"
	TableMetrics = "metrics"
	TableRanges  = "ranges"
	TableGPUs    = "gpus"
	TableMeta    = "meta"
	TableTimings = "timings"
)

// TableNames lists every table in write order.
var TableNames = []string{TableKernels, TableMetrics, TableRanges, TableGPUs, TableMeta, TableTimings}

// SchemaVersion is the version of the table layout Write produces. Every
// file states its version and table in its schema metadata (Parquet:
// key-value metadata) under MetaSchemaVersion and MetaTable. A file without
// them is version 1. Readers accept versions 1 to SchemaVersion.
//
//	1  files written before the key existed: start_ns and end_ns are
//	   int64; a value a source did not give is 0 (nulls only in
//	   graph_node_id, parent_id and metrics.value); one row group.
//	2  start_ns and end_ns are timestamp[ns]; unknown values are null;
//	   field metadata "unit" and "description"; row groups of at most
//	   RowGroupRows rows. duration_ns stays int64 (unit "ns"): Parquet has
//	   no duration type, and arrow-go's Parquet writer and reader support
//	   none.
//	3  a string that is unknown or absent (the columns made with ndict) is
//	   null rather than ""; version 2 files hold "" there, and the readers
//	   give "" for a null string, so both read alike.
//	4  same columns; the meta table holds range_replay rows (which replay
//	   of a cell's range pass each range export is: a cell's range rows
//	   from several exports are replays, never one sum) and the timing
//	   rows device_clock_sample.<rep>.sm_mhz and gpu_uuid. Version 3 tables
//	   hold one range export per cell and no such rows.
const SchemaVersion = 4

// Keys of the schema metadata of every written table.
const (
	MetaSchemaVersion = "rooftool.schema_version"
	MetaTable         = "rooftool.table"
)

// Keys of the field metadata of every column (absent where empty).
const (
	FieldMetaUnit        = "unit"
	FieldMetaDescription = "description"
)

// Sources of a row.
const (
	SourceNCU    = "ncu"
	SourceNsys   = "nsys"
	SourceKineto = "kineto"
	SourceTiming = "timing"
)

// Passes that produced a kernel row (Kernel.Pass).
const (
	PassKernel   = "kernel"   // ncu per-kernel replay: one row per kernel launch
	PassRange    = "range"    // ncu range / app-range replay: one row per NVTX range
	PassTimeline = "timeline" // nsys or Kineto timeline
)

// MetaRangeReplay is the meta key (source ncu) that says which replay of
// its cell's range pass an export is: File "<experiment>/<variant>/<export
// base name>", Value the 1-based replay. The range rows of one export are
// one replay; a range row's replay is its export's.
const MetaRangeReplay = "range_replay"

// Range kinds (ranges.kind).
const (
	RangePushPop    = "push_pop"
	RangeStartEnd   = "start_end"
	RangeAnnotation = "annotation"
	// RangeCUDAGraph is one CUDA graph launch as nsys traces it by default
	// (--cuda-graph-trace=graph): CUPTI_ACTIVITY_KIND_GRAPH_TRACE holds the
	// graph's GPU time and its kernels are not in the kernel table. The row
	// hangs under the NVTX range of its cudaGraphLaunch call.
	RangeCUDAGraph = "cuda_graph"
	// RangeMemcpy and RangeMemset are one memory copy or memset as nsys
	// traces it (CUPTI_ACTIVITY_KIND_MEMCPY, _MEMSET), hung like a kernel
	// under the NVTX range of its launching call; the text says what and
	// how many bytes (copies.go).
	RangeMemcpy = "memcpy"
	RangeMemset = "memset"
)

// DeviceMethodPrefix marks timing rows that hold device time (Method
// "device:<how>", e.g. "device:cuda-graph") rather than wall time.
const DeviceMethodPrefix = "device:"

// Meta key prefixes of the timing clock samples: "<prefix><rep>.sm_mhz",
// the wall loop's and the device (graph-replay) loop's.
const (
	MetaClockSample       = "clock_sample."
	MetaDeviceClockSample = "device_clock_sample."
)

// IsDeviceTiming reports whether a timing row's method is a device-time one.
func IsDeviceTiming(method string) bool { return strings.HasPrefix(method, DeviceMethodPrefix) }

// PairedMethodPrefix marks timing rows that hold one arm of a pair
// (Method "paired:<launch>"): rep is the pair's index, the row's variant
// its arm, file the paired record's base name. They are neither a cell's
// wall samples nor its device samples.
const PairedMethodPrefix = "paired:"

// Meta keys of a paired record, on File "<experiment>/<variant>/<file>" of
// each arm: "paired.<launch>.<rep>.sm_mhz" (the arm's clock at the end of
// its block of pair rep), "paired.<launch>.error" (why that launch method
// has no pairs) and "paired.<launch>.role" ("baseline" | "candidate").
const MetaPaired = "paired."

// IsPairedTiming reports whether a timing row's method is a paired one.
func IsPairedTiming(method string) bool { return strings.HasPrefix(method, PairedMethodPrefix) }

// Column documents one column of a table.
type Column struct {
	Name     string
	Type     arrow.DataType
	Nullable bool
	Unit     string // base unit of the values ("ns", "byte", "Hz", ...), "" if none
	Doc      string // what the column holds
	Sources  string // what each source fills, and when the value is null
}

// Field returns the column as an Arrow field, with its unit and description
// as field metadata.
func (c Column) Field() arrow.Field {
	var k, v []string
	if c.Unit != "" {
		k, v = append(k, FieldMetaUnit), append(v, c.Unit)
	}
	if c.Doc != "" {
		k, v = append(k, FieldMetaDescription), append(v, c.Doc)
	}
	return arrow.Field{Name: c.Name, Type: c.Type, Nullable: c.Nullable, Metadata: arrow.NewMetadata(k, v)}
}

// TableDoc documents one table.
type TableDoc struct {
	Name    string
	Doc     string
	Columns []Column
}

var (
	dictString = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	tsNs       = &arrow.TimestampType{Unit: arrow.Nanosecond}
)

func col(name string, t arrow.DataType, null bool, unit, doc, sources string) Column {
	return Column{Name: name, Type: t, Nullable: null, Unit: unit, Doc: doc, Sources: sources}
}

// Column constructors: dict (dictionary-encoded string), str, i32, i64, f64
// are never null; n* may be. An ndict column is null where its string is
// unknown or absent: the builder writes "" as null there.
func dict(name, doc, sources string) Column  { return col(name, dictString, false, "", doc, sources) }
func ndict(name, doc, sources string) Column { return col(name, dictString, true, "", doc, sources) }
func str(name, doc, sources string) Column {
	return col(name, arrow.BinaryTypes.String, false, "", doc, sources)
}
func i32(name, unit, doc, sources string) Column {
	return col(name, arrow.PrimitiveTypes.Int32, false, unit, doc, sources)
}
func i64(name, unit, doc, sources string) Column {
	return col(name, arrow.PrimitiveTypes.Int64, false, unit, doc, sources)
}
func f64(name, unit, doc, sources string) Column {
	return col(name, arrow.PrimitiveTypes.Float64, false, unit, doc, sources)
}
func ni32(name, unit, doc, sources string) Column {
	return col(name, arrow.PrimitiveTypes.Int32, true, unit, doc, sources)
}
func ni64(name, unit, doc, sources string) Column {
	return col(name, arrow.PrimitiveTypes.Int64, true, unit, doc, sources)
}
func nf64(name, unit, doc, sources string) Column {
	return col(name, arrow.PrimitiveTypes.Float64, true, unit, doc, sources)
}

var kernelsDoc = TableDoc{Name: TableKernels,
	Doc: "One row per kernel launch seen by any source (for the ncu range pass, one row per profiled NVTX range).",
	Columns: []Column{
		i64("id", "", "row id, unique within one ingest; metrics.kernel_id refers to it", ""),
		dict("source", "ncu | nsys | kineto", ""),
		dict("file", "base name of the export the row came from", ""),
		dict("pass", "kernel | range | timeline", "ncu: kernel (per-kernel replay) or range (range replay); nsys, kineto: timeline"),
		ndict("experiment", "experiment name when the row lies in an experiment > variant > shape range path, else null",
			"the last three components of range_path when the last looks like a shape (k=v,...); ingest options override"),
		ndict("variant", "variant name (rooftool's own runs), else null", "as experiment"),
		ndict("shape", "canonical shape string, e.g. \"B=16,T=512,d=768\", else null", "as experiment"),
		ndict("range", "innermost enclosing NVTX range (or Kineto user annotation), null if none",
			"ncu: the NVTX push/pop column; nsys: the ranges around the launching runtime call on its thread; kineto: user_annotation around the launching call, else gpu_user_annotation around the kernel"),
		ndict("range_path", "every enclosing range, outermost first, joined by \"/\"; null if none", "as range"),
		ndict("name", "kernel name, demangled where the source demangles", "ncu: Kernel Name; nsys: demangledName; kineto: event name. Null where the source names none"),
		ndict("short_name", "base name: no return type, namespace, template or argument list", "derived from name (nsys: shortName). Null where the source names none"),
		ndict("mangled", "mangled name, null where the source does not give it", "ncu: Kernel Name when it is mangled (_Z...); nsys: mangledName; kineto: null"),
		ni32("device", "", "CUDA device ordinal", "ncu: Device column, else launch__device_id; nsys: deviceId; kineto: args.device, else the event's pid. Null where none is given"),
		ni64("context", "", "CUDA context id", "ncu: Context column, else launch__context_id; nsys: contextId; kineto: args.context. Null where none is given"),
		ni64("stream", "", "CUDA stream id", "ncu: Stream column, else launch__stream_id; nsys: streamId; kineto: args.stream, else the event's tid. Null where none is given"),
		ni64("correlation_id", "", "CUPTI correlation id; for ncu rows ncu's kernel ID", "ncu: ID (never null); nsys: correlationId; kineto: args.correlation. Null where none is given"),
		ni64("pid", "", "host process of the launch", "ncu: Process ID; nsys: process of the launching runtime call, else the kernel's globalPid; kineto: pid of the launching runtime call. Null where unknown"),
		ni64("tid", "", "host thread of the launch", "nsys, kineto: thread of the launching runtime call, null when none is found; ncu: null"),
		ni32("grid_x", "", "grid dimension x", "ncu: Grid Size, else launch__grid_dim_x; nsys: gridX; kineto: args.grid[0]. Null where not given"),
		ni32("grid_y", "", "grid dimension y", "as grid_x"),
		ni32("grid_z", "", "grid dimension z", "as grid_x"),
		ni32("block_x", "", "block dimension x", "ncu: Block Size, else launch__block_dim_x; nsys: blockX; kineto: args.block[0]. Null where not given"),
		ni32("block_y", "", "block dimension y", "as block_x"),
		ni32("block_z", "", "block dimension z", "as block_x"),
		ni32("registers", "", "registers per thread", "ncu: launch__registers_per_thread (details page: Registers Per Thread); nsys: registersPerThread; kineto: args[\"registers per thread\"]. Null where not given"),
		ni64("static_shared_bytes", "byte", "static shared memory per block",
			"ncu: launch__shared_mem_per_block_static; nsys: staticSharedMemory; kineto: args[\"shared memory\"], static and dynamic together. Null where not given"),
		ni64("dynamic_shared_bytes", "byte", "dynamic shared memory per block",
			"ncu: launch__shared_mem_per_block_dynamic; nsys: dynamicSharedMemory; kineto: null (counted in static_shared_bytes). Null where not given"),
		col("start_ns", tsNs, true, "ns", "kernel start on the source's clock (nsys: nanoseconds since the session start; kineto: the trace's ts)",
			"nsys: start; kineto: ts; ncu: null (ncu has no timeline)"),
		ni64("duration_ns", "ns", "kernel duration in nanoseconds",
			"nsys: end - start; kineto: dur; ncu: gpu__time_duration.sum, else the details page's Duration, else sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second, else null"),
		ni64("graph_node_id", "", "CUDA graph node id", "nsys: graphNodeId; null when the kernel was not launched from a graph, and for ncu and kineto"),
	}}

var metricsDoc = TableDoc{Name: TableMetrics,
	Doc: "Long form: one row per (kernel row, metric). Only ncu fills it.",
	Columns: []Column{
		i64("kernel_id", "", "kernels.id of the row the metric belongs to", ""),
		ndict("section", "ncu section (Section Name on the details page, with \": <Body Item Label>\" where there is one), null on the raw page", ""),
		dict("metric", "metric name as the source prints it (e.g. dram__bytes_read.sum, or \"Duration\" on the details page); rule rows are \"rule:<Rule Name>\"", ""),
		dict("unit", "base unit after conversion: \"ns\", \"byte\", \"byte/s\", \"Hz\", \"%\", \"cycle\", \"inst\", \"\" (dimensionless); unknown units are kept verbatim", ""),
		nf64("value", "", "value in that unit (the unit column: it differs per row)", "null where the source printed n/a or a non-number"),
		ndict("text", "the value as printed when it is not a number (e.g. \"Cache Config\"), else null", ""),
	}}

var rangesDoc = TableDoc{Name: TableRanges,
	Doc: "NVTX ranges, CUDA graph launches, memory copies and memsets (nsys) and user annotations (Kineto).",
	Columns: []Column{
		i64("id", "", "row id within one ingest", ""),
		dict("source", "nsys | kineto", ""),
		dict("file", "base name of the export", ""),
		dict("kind", "push_pop | start_end | annotation | cuda_graph | memcpy | memset", "nsys: push_pop, start_end, cuda_graph, memcpy, memset; kineto: annotation"),
		ndict("domain", "NVTX domain name, null for the default domain", "kineto: the event category (user_annotation, gpu_user_annotation)"),
		ndict("text", "range text, null where the range has none", "nsys cuda_graph: \"CUDA graph <graphId>\"; memcpy: \"memcpy <DtoD|HtoD|DtoH|...> <bytes> B\"; memset: \"memset <bytes> B\""),
		dict("path", "texts of the nested ranges, outermost first, joined by \"/\"", ""),
		i32("depth", "", "nesting depth, 0 for outermost", ""),
		ni64("parent_id", "", "ranges.id of the enclosing range", "null at depth 0"),
		ni64("pid", "", "host process", "nsys: from globalTid (a cuda_graph row: its launching call's); kineto: the event's pid (gpu_user_annotation: the device). Null where unknown"),
		ni64("tid", "", "host thread", "nsys: from globalTid (a cuda_graph row: its launching call's); kineto: the event's tid (gpu_user_annotation: the stream). Null where unknown"),
		col("start_ns", tsNs, false, "ns", "range start on the source's clock", ""),
		col("end_ns", tsNs, false, "ns", "range end on the source's clock", "nsys: a range never closed ends at the last timestamp of the trace"),
	}}

var gpusDoc = TableDoc{Name: TableGPUs,
	Doc: "Device facts stated by an export (nsys TARGET_INFO_GPU, ncu device__attribute_* metrics and CC column, Kineto deviceProperties). A fact the export does not state is null.",
	Columns: []Column{
		dict("source", "where the facts come from", ""),
		dict("file", "base name of the export", ""),
		i32("device", "", "CUDA device ordinal", ""),
		ndict("name", "device name as printed (e.g. \"NVIDIA H100 80GB HBM3\"), null where not stated", ""),
		ni32("cc_major", "", "compute capability, major", "nsys: computeMajor; ncu: CC, else device__attribute_compute_capability_major; kineto: computeMajor"),
		ni32("cc_minor", "", "compute capability, minor (null when cc_major is)", "as cc_major"),
		ni32("sm_count", "", "streaming multiprocessors", "nsys: smCount; ncu: device__attribute_multiprocessor_count; kineto: numSms"),
		ni64("memory_bytes", "byte", "global memory size", "nsys: totalMemory; ncu: device__attribute_total_memory; kineto: totalGlobalMem"),
		nf64("memory_bandwidth", "byte/s", "DRAM bandwidth as the export states it", "nsys: memoryBandwidth; kineto: 2 x memoryClockRate x memoryBusWidth / 8; ncu: null"),
		ni64("l2_bytes", "byte", "L2 cache size", "nsys: l2CacheSize; ncu: device__attribute_l2_cache_size; kineto: l2CacheSize"),
		nf64("sm_clock_hz", "Hz", "SM clock the export states", "nsys: clockRate; ncu: device__attribute_max_gpu_frequency_khz, else clock_rate; kineto: clockRate"),
		nf64("mem_clock_hz", "Hz", "memory clock", "nsys: memoryClockRate; ncu: device__attribute_max_mem_frequency_khz, else memory_clock_rate; kineto: memoryClockRate"),
		ndict("bus", "PCI bus location or UUID, null where not stated", "nsys: busLocation, else uuid; ncu: from the pci ids; kineto: pciBusID"),
	}}

var metaDoc = TableDoc{Name: TableMeta,
	Doc: "Export metadata as key/value pairs (nsys META_DATA_EXPORT or EXPORT_META_DATA, ncu ==PROF== lines, Kineto top-level fields, the clocks of a timing JSON).",
	Columns: []Column{
		dict("source", "ncu | nsys | kineto | timing", ""),
		dict("file", "base name of the export; for a timing JSON experiment/variant/<shape>.json, since every experiment names its files by shape (tables written by earlier versions of ingest hold the base name alone)", ""),
		dict("key", "metadata key", "timing: clock.<name> (read after the timed loop), clock_sample.<rep>.sm_mhz (during the wall-time loop), device_clock_sample.<rep>.sm_mhz (during the device-time loop), gpu_uuid (the GPU the clocks were read from), device_error, launch_method, launch_error; paired.<launch>.<rep>.sm_mhz (a paired record's arm, file experiment/variant/<record>: the clock at the end of its block of pair rep), paired.<launch>.role, paired.<launch>.error; ncu: range_replay (the export's replay of its cell's range pass, 1-based; file is experiment/variant/<export>)"),
		str("value", "metadata value as printed", ""),
	}}

var timingsDoc = TableDoc{Name: TableTimings,
	Doc: "One row per timed repetition of the timing pass (kernels/run.py time; see kernels/README.md for the JSON it writes).",
	Columns: []Column{
		dict("experiment", "experiment of the cell", ""),
		dict("variant", "variant of the cell", ""),
		dict("shape", "shape of the cell", ""),
		dict("file", "base name of the timing JSON", ""),
		dict("device", "device name the timing ran on", ""),
		dict("method", "cuda-events | cuda-graph (wall loop); device:cuda-graph (device-time loop); paired:eager | paired:graph (one arm of a paired record, kernels/run.py pair: rep is the pair, variant the arm, file the record)", ""),
		i32("rep", "", "repetition index, 0-based", ""),
		f64("ms", "ms", "wall time of one repetition (the one non-base unit, kept because every timing tool prints ms)", ""),
	}}

// TableDocs returns the documentation of every table, in TableNames order.
func TableDocs() []TableDoc {
	return []TableDoc{kernelsDoc, metricsDoc, rangesDoc, gpusDoc, metaDoc, timingsDoc}
}

// Columns returns the columns of the named table, or nil.
func Columns(table string) []Column {
	for _, t := range TableDocs() {
		if t.Name == table {
			return t.Columns
		}
	}
	return nil
}

func schemaOf(t TableDoc) *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = c.Field()
	}
	md := arrow.NewMetadata([]string{MetaSchemaVersion, MetaTable}, []string{strconv.Itoa(SchemaVersion), t.Name})
	return arrow.NewSchema(fields, &md)
}

// KernelsSchema is the schema of the kernels table (see Kernel).
func KernelsSchema() *arrow.Schema { return schemaOf(kernelsDoc) }

// Nulls marks the columns of a kernels or ranges row whose value is unknown.
// The builder appends null there, whatever the Go field holds; the row
// readers set the bit where the column is null and leave the field 0. The
// zero value marks nothing: rows built without Nulls are written whole.
type Nulls uint32

// Nulls bits. A Range uses NullPID and NullTID only.
const (
	NullDevice Nulls = 1 << iota
	NullContext
	NullStream
	NullCorrelationID
	NullPID
	NullTID
	NullGridX
	NullGridY
	NullGridZ
	NullBlockX
	NullBlockY
	NullBlockZ
	NullRegisters
	NullStaticShared
	NullDynShared
	NullStart
	NullDuration

	NullGrid   = NullGridX | NullGridY | NullGridZ
	NullBlock  = NullBlockX | NullBlockY | NullBlockZ
	NullLaunch = NullGrid | NullBlock | NullRegisters | NullStaticShared | NullDynShared
)

// Kernel is one row of the kernels table.
type Kernel struct {
	ID                                int64
	Source, File, Pass                string
	Experiment, Variant, Shape        string
	Range, RangePath                  string
	Name, ShortName, Mangled          string
	Device                            int32
	Context, Stream, CorrelationID    int64
	PID, TID                          int64
	GridX, GridY, GridZ               int32
	BlockX, BlockY, BlockZ            int32
	Registers                         int32
	StaticSharedBytes, DynSharedBytes int64
	StartNs, DurationNs               int64
	GraphNodeID                       *int64 // nil: not launched from a CUDA graph
	Null                              Nulls  // columns whose value is unknown (written as null)
}

// Key is the cell the kernel was launched in (empty fields: outside any cell).
func (k Kernel) Key() cellkey.Key {
	return cellkey.New(k.Experiment, k.Variant, k.Shape)
}

// MetricsSchema is the schema of the metrics table (see Metric).
func MetricsSchema() *arrow.Schema { return schemaOf(metricsDoc) }

// Metric is one row of the metrics table.
type Metric struct {
	KernelID int64
	Section  string
	Name     string
	Unit     string
	Value    float64
	Valid    bool // false: value is null (n/a or text)
	Text     string
}

// RangesSchema is the schema of the ranges table (see Range).
func RangesSchema() *arrow.Schema { return schemaOf(rangesDoc) }

// Range is one row of the ranges table.
type Range struct {
	ID             int64
	Source, File   string
	Kind, Domain   string
	Text, Path     string
	Depth          int32
	ParentID       *int64
	PID, TID       int64
	StartNs, EndNs int64
	Null           Nulls // NullPID, NullTID: unknown (written as null)
}

// GPUsSchema is the schema of the gpus table (see GPU).
func GPUsSchema() *arrow.Schema { return schemaOf(gpusDoc) }

// GPU is one row of the gpus table. A zero numeric field is a fact the
// export does not state: it is written as null (cc_minor only when cc_major
// is 0 too), and a null reads back as 0.
type GPU struct {
	Source, File          string
	Device                int32
	Name                  string
	CCMajor, CCMinor      int32
	SMCount               int32
	MemoryBytes           int64
	MemoryBandwidth       float64
	L2Bytes               int64
	SMClockHz, MemClockHz float64
	Bus                   string
}

// MetaSchema is the schema of the meta table (see Meta).
func MetaSchema() *arrow.Schema { return schemaOf(metaDoc) }

// Meta is one row of the meta table.
type Meta struct {
	Source, File, Key, Value string
}

// TimingsSchema is the schema of the timings table (see Timing).
func TimingsSchema() *arrow.Schema { return schemaOf(timingsDoc) }

// Timing is one row of the timings table.
type Timing struct {
	Experiment, Variant, Shape string
	File, Device, Method       string
	Rep                        int32
	Ms                         float64
}

// Key is the cell the sample was timed in.
func (t Timing) Key() cellkey.Key {
	return cellkey.New(t.Experiment, t.Variant, t.Shape)
}

// Schema returns the schema of the named table, or nil.
func Schema(table string) *arrow.Schema {
	for _, t := range TableDocs() {
		if t.Name == table {
			return schemaOf(t)
		}
	}
	return nil
}

// schemaMarkdown renders the documentation of every table as Markdown, the
// text of ingest/SCHEMA.md.
func schemaMarkdown() string {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	cell := func(s string) string {
		if s == "" {
			return ""
		}
		return strings.NewReplacer("|", `\|`, "<", `\<`, ">", `\>`).Replace(s)
	}
	w("# rooftool tables, schema version ", strconv.Itoa(SchemaVersion))
	w()
	w("<!-- Generated from ingest/schema.go by `go test ./ingest -run TestSchemaDoc -update`; edit the Column entries there, not this file. -->")
	w()
	w("`rooftool ingest` writes one file per table under `<run>/tables/`: `<table>.parquet` (Zstandard, dictionary pages), or `<table>.arrow` (Arrow IPC) with `--table-format arrow`.")
	w()
	w("- **Version.** Every file's schema metadata (Parquet: its key-value metadata) holds `", MetaSchemaVersion, "` = `\"", strconv.Itoa(SchemaVersion), "\"` and `", MetaTable, "` = the table name. A file without them is version 1 (see below); rooftool reads versions 1 to ", strconv.Itoa(SchemaVersion), ".")
	w("- **Row groups.** A Parquet row group holds at most ", strconv.Itoa(RowGroupRows), " rows (`rooftool ingest` writes ", strconv.Itoa(StreamRowGroupRows), " a group, holding only a few groups of rows in memory at a time), with column statistics, so readers can skip groups of a large table.")
	w("- **Units.** Base units: nanoseconds, bytes, hertz, byte/s; a percentage stays a percentage (`%`); `timings.ms` is the one exception. Each column's unit and description are also in its Arrow field metadata (keys `", FieldMetaUnit, "`, `", FieldMetaDescription, "`).")
	w("- **Nulls.** A null is a value the source does not give (ncu has no timeline, so `kernels.start_ns` is null on every ncu row); a 0 is a real 0. A string column marked null \"yes\" is null where the string is unknown or absent (an empty string is never written there); the others always hold a string. pandas reads an integer column with nulls as float64 unless asked for nullable types (`to_pandas(types_mapper=pd.ArrowDtype)`, or `pd.read_parquet(..., dtype_backend=\"pyarrow\")`).")
	w("- **Time.** `start_ns` and `end_ns` are `timestamp[ns]` without a time zone, counted on the source's clock (nsys: from the start of the session, so pandas shows them as 1970-01-01 plus the offset); the difference of two is a duration. `duration_ns` is `int64` nanoseconds: Parquet has no duration type.")
	w("- **Strings.** Dictionary-encoded columns read as `category` in pandas and `Categorical` in polars.")
	w()
	w("Version 1 (files without `", MetaSchemaVersion, "`): `start_ns` and `end_ns` are `int64`, and a value a source does not give is 0 (nulls only in `graph_node_id`, `parent_id` and `metrics.value`); one row group per file. rooftool reads such a file as version ", strconv.Itoa(SchemaVersion), ": it turns 0 into null where version 1 documented 0 as unknown (kernels: context, pid, tid, grid, block, registers; start_ns of ncu rows; duration_ns of ncu rows when 0; dynamic_shared_bytes of Kineto rows; every numeric gpus fact). Version 2 files hold `\"\"` where version 3 holds a null string; rooftool reads a null string as `\"\"`, so both versions read alike. Version 4 has the columns of version 3; its meta table adds `"+MetaRangeReplay+"` rows (source ncu: which replay of its cell's range pass each range export is, so a cell's range rows from several exports are replays, not one sum) and the timing rows `device_clock_sample.<rep>.sm_mhz` and `gpu_uuid`; a version 3 table holds one range export per cell.")
	for _, t := range TableDocs() {
		w()
		w("## ", t.Name)
		w()
		w(t.Doc)
		w()
		w("| column | type | null | unit | meaning | filled by |")
		w("|---|---|---|---|---|---|")
		for _, c := range t.Columns {
			null := "no"
			if c.Nullable {
				null = "yes"
			}
			src := c.Sources
			if src == "" {
				src = "every row"
			}
			w("| `", c.Name, "` | ", typeName(c.Type), " | ", null, " | ", cell(c.Unit), " | ", cell(c.Doc), " | ", cell(src), " |")
		}
	}
	return b.String()
}

// typeName names an Arrow type for the schema documentation.
func typeName(t arrow.DataType) string {
	switch x := t.(type) {
	case *arrow.DictionaryType:
		return typeName(x.ValueType) + " (dictionary)"
	case *arrow.StringType:
		return "string"
	case *arrow.TimestampType:
		return "timestamp[" + x.Unit.String() + "]"
	}
	return t.String()
}
