package ingest

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func contextBackground() context.Context { return context.Background() }

// column accessors that accept both dictionary-encoded and plain columns.

func colIndex(rec arrow.RecordBatch, name string) int {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) == 0 {
		panic(fmt.Sprintf("ingest: no column %q", name)) // conform() guarantees the schema
	}
	return idx[0]
}

func strAt(rec arrow.RecordBatch, name string) func(int) string {
	c := rec.Column(colIndex(rec, name))
	switch a := c.(type) {
	case *array.Dictionary:
		dict := a.Dictionary()
		switch d := dict.(type) {
		case *array.String:
			return func(i int) string {
				if a.IsNull(i) {
					return ""
				}
				return d.Value(a.GetValueIndex(i))
			}
		case *array.LargeString:
			return func(i int) string {
				if a.IsNull(i) {
					return ""
				}
				return d.Value(a.GetValueIndex(i))
			}
		}
	case *array.String:
		return func(i int) string { return a.Value(i) }
	case *array.LargeString:
		return func(i int) string { return a.Value(i) }
	}
	panic(fmt.Sprintf("ingest: column %q is %s, not a string", name, c.DataType()))
}

func i64At(rec arrow.RecordBatch, name string) func(int) int64 {
	a := rec.Column(colIndex(rec, name)).(*array.Int64)
	return a.Value
}

func ni64At(rec arrow.RecordBatch, name string) func(int) *int64 {
	a := rec.Column(colIndex(rec, name)).(*array.Int64)
	return func(i int) *int64 {
		if a.IsNull(i) {
			return nil
		}
		v := a.Value(i)
		return &v
	}
}

func i32At(rec arrow.RecordBatch, name string) func(int) int32 {
	a := rec.Column(colIndex(rec, name)).(*array.Int32)
	return a.Value
}

func f64At(rec arrow.RecordBatch, name string) func(int) (float64, bool) {
	a := rec.Column(colIndex(rec, name)).(*array.Float64)
	return func(i int) (float64, bool) { return a.Value(i), a.IsValid(i) }
}

// Kernels returns the kernels table as rows.
func (t *Tables) Kernels() []Kernel {
	rec := t.recs[TableKernels]
	if rec == nil {
		return nil
	}
	n := int(rec.NumRows())
	id := i64At(rec, "id")
	src, file, pass := strAt(rec, "source"), strAt(rec, "file"), strAt(rec, "pass")
	exp, vr, sh := strAt(rec, "experiment"), strAt(rec, "variant"), strAt(rec, "shape")
	rg, rp := strAt(rec, "range"), strAt(rec, "range_path")
	name, short, mangled := strAt(rec, "name"), strAt(rec, "short_name"), strAt(rec, "mangled")
	dev := i32At(rec, "device")
	ctx, stream, corr, pid, tid := i64At(rec, "context"), i64At(rec, "stream"), i64At(rec, "correlation_id"), i64At(rec, "pid"), i64At(rec, "tid")
	gx, gy, gz := i32At(rec, "grid_x"), i32At(rec, "grid_y"), i32At(rec, "grid_z")
	bx, by, bz := i32At(rec, "block_x"), i32At(rec, "block_y"), i32At(rec, "block_z")
	regs := i32At(rec, "registers")
	ss, ds := i64At(rec, "static_shared_bytes"), i64At(rec, "dynamic_shared_bytes")
	st, du := i64At(rec, "start_ns"), i64At(rec, "duration_ns")
	gn := ni64At(rec, "graph_node_id")
	out := make([]Kernel, n)
	for i := range out {
		out[i] = Kernel{
			ID: id(i), Source: src(i), File: file(i), Pass: pass(i),
			Experiment: exp(i), Variant: vr(i), Shape: sh(i), Range: rg(i), RangePath: rp(i),
			Name: name(i), ShortName: short(i), Mangled: mangled(i),
			Device: dev(i), Context: ctx(i), Stream: stream(i), CorrelationID: corr(i), PID: pid(i), TID: tid(i),
			GridX: gx(i), GridY: gy(i), GridZ: gz(i), BlockX: bx(i), BlockY: by(i), BlockZ: bz(i),
			Registers: regs(i), StaticSharedBytes: ss(i), DynSharedBytes: ds(i),
			StartNs: st(i), DurationNs: du(i), GraphNodeID: gn(i),
		}
	}
	return out
}

// Metrics returns the metrics table as rows.
func (t *Tables) Metrics() []Metric {
	rec := t.recs[TableMetrics]
	if rec == nil {
		return nil
	}
	kid := i64At(rec, "kernel_id")
	sec, m, u, txt := strAt(rec, "section"), strAt(rec, "metric"), strAt(rec, "unit"), strAt(rec, "text")
	val := f64At(rec, "value")
	out := make([]Metric, rec.NumRows())
	for i := range out {
		v, ok := val(i)
		out[i] = Metric{KernelID: kid(i), Section: sec(i), Name: m(i), Unit: u(i), Value: v, Valid: ok, Text: txt(i)}
	}
	return out
}

// Ranges returns the ranges table as rows.
func (t *Tables) Ranges() []Range {
	rec := t.recs[TableRanges]
	if rec == nil {
		return nil
	}
	id := i64At(rec, "id")
	src, file, kind, dom, txt, path := strAt(rec, "source"), strAt(rec, "file"), strAt(rec, "kind"), strAt(rec, "domain"), strAt(rec, "text"), strAt(rec, "path")
	depth := i32At(rec, "depth")
	par := ni64At(rec, "parent_id")
	pid, tid, st, en := i64At(rec, "pid"), i64At(rec, "tid"), i64At(rec, "start_ns"), i64At(rec, "end_ns")
	out := make([]Range, rec.NumRows())
	for i := range out {
		out[i] = Range{ID: id(i), Source: src(i), File: file(i), Kind: kind(i), Domain: dom(i), Text: txt(i), Path: path(i),
			Depth: depth(i), ParentID: par(i), PID: pid(i), TID: tid(i), StartNs: st(i), EndNs: en(i)}
	}
	return out
}

// GPUs returns the gpus table as rows.
func (t *Tables) GPUs() []GPU {
	rec := t.recs[TableGPUs]
	if rec == nil {
		return nil
	}
	src, file, name, bus := strAt(rec, "source"), strAt(rec, "file"), strAt(rec, "name"), strAt(rec, "bus")
	dev, ccj, ccn, sms := i32At(rec, "device"), i32At(rec, "cc_major"), i32At(rec, "cc_minor"), i32At(rec, "sm_count")
	mem, l2 := i64At(rec, "memory_bytes"), i64At(rec, "l2_bytes")
	bw, smc, mc := f64At(rec, "memory_bandwidth"), f64At(rec, "sm_clock_hz"), f64At(rec, "mem_clock_hz")
	out := make([]GPU, rec.NumRows())
	for i := range out {
		b, _ := bw(i)
		s, _ := smc(i)
		m, _ := mc(i)
		out[i] = GPU{Source: src(i), File: file(i), Device: dev(i), Name: name(i), CCMajor: ccj(i), CCMinor: ccn(i),
			SMCount: sms(i), MemoryBytes: mem(i), MemoryBandwidth: b, L2Bytes: l2(i), SMClockHz: s, MemClockHz: m, Bus: bus(i)}
	}
	return out
}

// Metas returns the meta table as rows.
func (t *Tables) Metas() []Meta {
	rec := t.recs[TableMeta]
	if rec == nil {
		return nil
	}
	src, file, key, val := strAt(rec, "source"), strAt(rec, "file"), strAt(rec, "key"), strAt(rec, "value")
	out := make([]Meta, rec.NumRows())
	for i := range out {
		out[i] = Meta{Source: src(i), File: file(i), Key: key(i), Value: val(i)}
	}
	return out
}

// Timings returns the timings table as rows.
func (t *Tables) Timings() []Timing {
	rec := t.recs[TableTimings]
	if rec == nil {
		return nil
	}
	e, v, s, f, d, m := strAt(rec, "experiment"), strAt(rec, "variant"), strAt(rec, "shape"), strAt(rec, "file"), strAt(rec, "device"), strAt(rec, "method")
	rep := i32At(rec, "rep")
	ms := f64At(rec, "ms")
	out := make([]Timing, rec.NumRows())
	for i := range out {
		x, _ := ms(i)
		out[i] = Timing{Experiment: e(i), Variant: v(i), Shape: s(i), File: f(i), Device: d(i), Method: m(i), Rep: rep(i), Ms: x}
	}
	return out
}
