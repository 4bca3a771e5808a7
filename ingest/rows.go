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
	return strColumn(rec.Column(colIndex(rec, name)))
}

// strColumn reads a dictionary-encoded or plain string column; null reads "".
func strColumn(c arrow.Array) func(int) string {
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
	panic(fmt.Sprintf("ingest: column of type %s, not a string", c.DataType()))
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

// n64At reads a nullable int64 or timestamp column: the value (0 where
// null) and whether it is null.
func n64At(rec arrow.RecordBatch, name string) func(int) (int64, bool) {
	c := rec.Column(colIndex(rec, name))
	var v func(int) int64
	switch a := c.(type) {
	case *array.Int64:
		v = a.Value
	case *array.Timestamp:
		v = func(i int) int64 { return int64(a.Value(i)) }
	default:
		panic(fmt.Sprintf("ingest: column %q is %s, not int64", name, c.DataType()))
	}
	if c.NullN() == 0 {
		return func(i int) (int64, bool) { return v(i), false }
	}
	return func(i int) (int64, bool) {
		if c.IsNull(i) {
			return 0, true
		}
		return v(i), false
	}
}

func i32At(rec arrow.RecordBatch, name string) func(int) int32 {
	a := rec.Column(colIndex(rec, name)).(*array.Int32)
	return a.Value
}

// n32At reads a nullable int32 column: the value (0 where null) and whether
// it is null.
func n32At(rec arrow.RecordBatch, name string) func(int) (int32, bool) {
	a := rec.Column(colIndex(rec, name)).(*array.Int32)
	return func(i int) (int32, bool) {
		if a.IsNull(i) {
			return 0, true
		}
		return a.Value(i), false
	}
}

// f64At reads a float64 column: the value (0 where null) and whether it is
// valid (not null).
func f64At(rec arrow.RecordBatch, name string) func(int) (float64, bool) {
	a := rec.Column(colIndex(rec, name)).(*array.Float64)
	return func(i int) (float64, bool) {
		if a.IsNull(i) {
			return 0, false
		}
		return a.Value(i), true
	}
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
	ctx, stream, corr, pid, tid := n64At(rec, "context"), n64At(rec, "stream"), n64At(rec, "correlation_id"), n64At(rec, "pid"), n64At(rec, "tid")
	dev := n32At(rec, "device")
	launch := [...]func(int) (int32, bool){n32At(rec, "grid_x"), n32At(rec, "grid_y"), n32At(rec, "grid_z"),
		n32At(rec, "block_x"), n32At(rec, "block_y"), n32At(rec, "block_z"), n32At(rec, "registers")}
	ss, ds := n64At(rec, "static_shared_bytes"), n64At(rec, "dynamic_shared_bytes")
	st, du := n64At(rec, "start_ns"), n64At(rec, "duration_ns")
	gn := ni64At(rec, "graph_node_id")
	out := make([]Kernel, n)
	for i := range out {
		k := &out[i]
		*k = Kernel{
			ID: id(i), Source: src(i), File: file(i), Pass: pass(i),
			Experiment: exp(i), Variant: vr(i), Shape: sh(i), Range: rg(i), RangePath: rp(i),
			Name: name(i), ShortName: short(i), Mangled: mangled(i), GraphNodeID: gn(i),
		}
		var null bool
		get64 := func(dst *int64, f func(int) (int64, bool), bit Nulls) {
			if *dst, null = f(i); null {
				k.Null |= bit
			}
		}
		if k.Device, null = dev(i); null {
			k.Null |= NullDevice
		}
		get64(&k.Context, ctx, NullContext)
		get64(&k.Stream, stream, NullStream)
		get64(&k.CorrelationID, corr, NullCorrelationID)
		get64(&k.PID, pid, NullPID)
		get64(&k.TID, tid, NullTID)
		for j, dst := range [...]*int32{&k.GridX, &k.GridY, &k.GridZ, &k.BlockX, &k.BlockY, &k.BlockZ, &k.Registers} {
			if *dst, null = launch[j](i); null {
				k.Null |= kernelTailNulls[j]
			}
		}
		get64(&k.StaticSharedBytes, ss, NullStaticShared)
		get64(&k.DynSharedBytes, ds, NullDynShared)
		get64(&k.StartNs, st, NullStart)
		get64(&k.DurationNs, du, NullDuration)
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
	pid, tid, st, en := n64At(rec, "pid"), n64At(rec, "tid"), n64At(rec, "start_ns"), n64At(rec, "end_ns")
	out := make([]Range, rec.NumRows())
	for i := range out {
		r := &out[i]
		*r = Range{ID: id(i), Source: src(i), File: file(i), Kind: kind(i), Domain: dom(i), Text: txt(i), Path: path(i),
			Depth: depth(i), ParentID: par(i)}
		var null bool
		if r.PID, null = pid(i); null {
			r.Null |= NullPID
		}
		if r.TID, null = tid(i); null {
			r.Null |= NullTID
		}
		r.StartNs, _ = st(i)
		r.EndNs, _ = en(i)
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
	dev, ccj, ccn, sms := i32At(rec, "device"), n32At(rec, "cc_major"), n32At(rec, "cc_minor"), n32At(rec, "sm_count")
	mem, l2 := n64At(rec, "memory_bytes"), n64At(rec, "l2_bytes")
	bw, smc, mc := f64At(rec, "memory_bandwidth"), f64At(rec, "sm_clock_hz"), f64At(rec, "mem_clock_hz")
	out := make([]GPU, rec.NumRows())
	for i := range out {
		// A null reads as 0, the GPU row's "not stated".
		g := &out[i]
		*g = GPU{Source: src(i), File: file(i), Device: dev(i), Name: name(i), Bus: bus(i)}
		g.CCMajor, _ = ccj(i)
		g.CCMinor, _ = ccn(i)
		g.SMCount, _ = sms(i)
		g.MemoryBytes, _ = mem(i)
		g.L2Bytes, _ = l2(i)
		g.MemoryBandwidth, _ = bw(i)
		g.SMClockHz, _ = smc(i)
		g.MemClockHz, _ = mc(i)
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
