package ingest

// This file is the contract between rooftool's packages: the Arrow schema of
// every table that ingest writes, and the Go row types that parsers append and
// analysis reads. Every column is documented here and nowhere else.
//
// Units are base units throughout: nanoseconds, bytes, hertz, FLOPs, ratios
// (a percentage stays a percentage: unit "%"). Strings that repeat are
// dictionary-encoded.

import (
	"github.com/apache/arrow-go/v18/arrow"
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

var dictString = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

func dict(name string) arrow.Field {
	return arrow.Field{Name: name, Type: dictString}
}
func str(name string) arrow.Field { return arrow.Field{Name: name, Type: arrow.BinaryTypes.String} }
func i64(name string) arrow.Field { return arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64} }
func i32(name string) arrow.Field { return arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32} }
func f64(name string) arrow.Field { return arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64} }
func nf64(name string) arrow.Field {
	return arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
}
func ni64(name string) arrow.Field {
	return arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
}

// KernelsSchema: one row per kernel launch seen by any source (or, for the ncu
// range pass, one row per profiled NVTX range).
//
//	id              row id, unique within one ingest; metrics.kernel_id refers to it
//	source          ncu | nsys | kineto
//	file            base name of the export the row came from
//	pass            kernel | range | timeline (see Pass* constants)
//	experiment      experiment name when the row lies in an experiment > variant > shape
//	variant         NVTX path (rooftool's own runs), else ""
//	shape           canonical shape string, e.g. "B=16,T=512,d=768", else ""
//	range           innermost enclosing NVTX range (or Kineto user annotation), "" if none
//	range_path      full path of nested ranges joined by "/", outermost first
//	name            demangled name (ncu "Kernel Name", nsys demangledName)
//	short_name      base name: no return type, namespace, template or argument list
//	mangled         mangled name where the source has it, else ""
//	device          CUDA device ordinal
//	context         CUDA context id (0 where unknown)
//	stream          CUDA stream id
//	correlation_id  CUPTI correlation id (nsys, Kineto), ncu "ID" for ncu rows
//	pid, tid        host process and thread of the launch where known, else 0
//	grid_x..z       grid dimensions (0 where unknown)
//	block_x..z      block dimensions (0 where unknown)
//	registers       registers per thread (0 where unknown)
//	static_shared_bytes, dynamic_shared_bytes  shared memory per block
//	start_ns        start timestamp (source's clock; 0 for ncu which has none)
//	duration_ns     kernel duration; for ncu rows gpu__time_duration.sum
//	graph_node_id   CUDA graph node id (null when not launched from a graph)
func KernelsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		i64("id"), dict("source"), dict("file"), dict("pass"),
		dict("experiment"), dict("variant"), dict("shape"),
		dict("range"), dict("range_path"),
		dict("name"), dict("short_name"), dict("mangled"),
		i32("device"), i64("context"), i64("stream"), i64("correlation_id"),
		i64("pid"), i64("tid"),
		i32("grid_x"), i32("grid_y"), i32("grid_z"),
		i32("block_x"), i32("block_y"), i32("block_z"),
		i32("registers"), i64("static_shared_bytes"), i64("dynamic_shared_bytes"),
		i64("start_ns"), i64("duration_ns"), ni64("graph_node_id"),
	}, nil)
}

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
}

// MetricsSchema: long form, one row per (kernel row, metric).
//
//	kernel_id  kernels.id of the row the metric belongs to
//	section    ncu section ("Section Name" on the details page), "" on the raw page
//	metric     metric name as the source prints it (e.g. dram__bytes_read.sum,
//	           or "Duration" on the details page)
//	unit       base unit after conversion: "ns", "byte", "byte/s", "Hz", "%",
//	           "cycle", "inst", "" (dimensionless); unknown units are kept verbatim
//	value      value in that unit; null where the source printed n/a or a non-number
//	text       the value as printed when it is not a number (e.g. "Cache Config"), else ""
func MetricsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		i64("kernel_id"), dict("section"), dict("metric"), dict("unit"), nf64("value"), dict("text"),
	}, nil)
}

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

// RangesSchema: NVTX ranges (nsys) and user annotations (Kineto).
//
//	id          row id within one ingest
//	source      nsys | kineto
//	file        base name of the export
//	kind        push_pop | start_end | annotation
//	domain      NVTX domain name, "" for the default domain
//	text        range text
//	path        full path of nested push/pop ranges joined by "/", outermost first
//	depth       nesting depth, 0 for outermost
//	parent_id   ranges.id of the enclosing range, null at depth 0
//	pid, tid    host process and thread
//	start_ns, end_ns  timestamps on the source's clock
func RangesSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		i64("id"), dict("source"), dict("file"), dict("kind"), dict("domain"),
		dict("text"), dict("path"), i32("depth"), ni64("parent_id"),
		i64("pid"), i64("tid"), i64("start_ns"), i64("end_ns"),
	}, nil)
}

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
}

// GPUsSchema: device facts stated by an export (nsys TARGET_INFO_GPU, ncu
// device__attribute_* metrics, Kineto deviceProperties). Zero means unknown.
//
//	source, file        where the facts come from
//	device              CUDA device ordinal
//	name                device name as printed (e.g. "NVIDIA H100 80GB HBM3")
//	cc_major, cc_minor  compute capability
//	sm_count            streaming multiprocessors
//	memory_bytes        global memory size
//	memory_bandwidth    DRAM bandwidth in byte/s as the export states it
//	l2_bytes            L2 cache size
//	sm_clock_hz         SM clock the export states (max or measured, per source)
//	mem_clock_hz        memory clock
//	bus                 PCI bus location or UUID where known
func GPUsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		dict("source"), dict("file"), i32("device"), dict("name"),
		i32("cc_major"), i32("cc_minor"), i32("sm_count"),
		i64("memory_bytes"), f64("memory_bandwidth"), i64("l2_bytes"),
		f64("sm_clock_hz"), f64("mem_clock_hz"), dict("bus"),
	}, nil)
}

// GPU is one row of the gpus table.
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

// MetaSchema: export metadata as key/value pairs (nsys META_DATA_EXPORT or
// EXPORT_META_DATA, ncu ==PROF== lines, Kineto top-level fields, the clocks
// of a timing JSON). file is the export's base name; for a timing JSON it is
// experiment/variant/<shape>.json, since every experiment names its files by
// shape (tables ingested before 2026-11-22 03:30 UTC hold the base name).
func MetaSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{dict("source"), dict("file"), dict("key"), str("value")}, nil)
}

// Meta is one row of the meta table.
type Meta struct {
	Source, File, Key, Value string
}

// TimingsSchema: one row per timed repetition of the timing pass
// (kernels/run.py time; see kernels/README.md for the JSON it writes).
//
//	experiment, variant, shape  the cell
//	file       base name of the timing JSON
//	device     device name the timing ran on
//	method     cuda-events | cuda-graph
//	rep        repetition index, 0-based
//	ms         wall time of one repetition in milliseconds (the one non-base
//	           unit, kept because every timing tool prints ms)
func TimingsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		dict("experiment"), dict("variant"), dict("shape"), dict("file"),
		dict("device"), dict("method"), i32("rep"), f64("ms"),
	}, nil)
}

// Timing is one row of the timings table.
type Timing struct {
	Experiment, Variant, Shape string
	File, Device, Method       string
	Rep                        int32
	Ms                         float64
}

// Schema returns the schema of the named table, or nil.
func Schema(table string) *arrow.Schema {
	switch table {
	case TableKernels:
		return KernelsSchema()
	case TableMetrics:
		return MetricsSchema()
	case TableRanges:
		return RangesSchema()
	case TableGPUs:
		return GPUsSchema()
	case TableMeta:
		return MetaSchema()
	case TableTimings:
		return TimingsSchema()
	}
	return nil
}
