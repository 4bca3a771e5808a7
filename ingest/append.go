package ingest

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// KernelAppender appends kernel rows like Builder.AddKernel, but for the
// dictionary columns it remembers the dictionary index of each value under
// a caller's integer key (a StringIds id, a range index), so a million rows
// cost a million index appends instead of a million string hashes. It falls
// back to AddKernel when the kernels schema is not the one it was written
// for. Call Flush before anything else appends kernels. Like AddKernel it
// hands full batches to a streaming Builder's sink (the dictionary of a
// column outlives a batch, so the remembered indices stay valid).
type KernelAppender struct {
	b    *Builder
	rb   *array.RecordBuilder
	fast bool
	dict [nKernelDict]dictCol
}

// Dictionary columns of the kernels table, in schema order after id.
const (
	kdSource = iota
	kdFile
	kdPass
	kdExperiment
	kdVariant
	kdShape
	kdRange
	kdRangePath
	kdName
	kdShortName
	kdMangled
	nKernelDict
)

var kernelFastColumns = []string{"id", "source", "file", "pass", "experiment", "variant", "shape", "range", "range_path",
	"name", "short_name", "mangled", "device", "context", "stream", "correlation_id", "pid", "tid",
	"grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers",
	"static_shared_bytes", "dynamic_shared_bytes", "start_ns", "duration_ns", "graph_node_id"}

type dictCol struct {
	b         *array.BinaryDictionaryBuilder
	cache     map[int64]int // -1: a null
	pending   []int
	valid     []bool
	emptyNull bool // "" is appended as null
	// The last key and its index: consecutive rows mostly repeat a key.
	lastKey, lastIdx int64
	hasLast          bool
}

func (c *dictCol) flush() {
	if len(c.pending) == 0 {
		return
	}
	var valid []bool
	for j, i := range c.pending {
		if i >= 0 {
			continue
		}
		if valid == nil {
			valid = c.valid[:0]
			for range c.pending {
				valid = append(valid, true)
			}
			c.valid = valid
		}
		valid[j] = false
	}
	c.b.AppendIndices(c.pending, valid)
	c.pending = c.pending[:0]
}

// append adds value s known under key.
func (c *dictCol) append(key int64, s string) {
	if c.hasLast && key == c.lastKey {
		c.pending = append(c.pending, int(c.lastIdx))
		if len(c.pending) == cap(c.pending) {
			c.flush()
		}
		return
	}
	if s == "" && c.emptyNull {
		c.cache[key] = -1
	}
	if i, ok := c.cache[key]; ok {
		c.lastKey, c.lastIdx, c.hasLast = key, int64(i), true
		c.pending = append(c.pending, i)
		if len(c.pending) == cap(c.pending) {
			c.flush()
		}
		return
	}
	c.flush()
	if err := c.b.AppendString(s); err != nil {
		panic(err) // only fails on a type mismatch, checked in fastDictCols
	}
	c.cache[key] = c.b.GetValueIndex(c.b.Len() - 1)
}

// KernelAppender returns an appender of kernel rows to b.
func (b *Builder) KernelAppender() *KernelAppender {
	a := &KernelAppender{b: b, rb: b.b[TableKernels]}
	a.fast = fastDictCols(a.rb, kernelFastColumns, a.dict[:], kernelsEmptyNull)
	return a
}

// fastDictCols readies the fast append path of a table: where rb's schema
// is exactly cols and its fields 1..len(dict) are binary dictionaries, it
// fills dict with their builders and says true; otherwise (or with
// knob.SlowAppend) false, and rows go through the Builder's Add method.
func fastDictCols(rb *array.RecordBuilder, cols []string, dict []dictCol, emptyNull []bool) bool {
	sc := rb.Schema()
	if knob.SlowAppend || sc.NumFields() != len(cols) {
		return false
	}
	for i, n := range cols {
		if sc.Field(i).Name != n {
			return false
		}
	}
	for j := range dict {
		db, ok := rb.Field(1 + j).(*array.BinaryDictionaryBuilder)
		if !ok {
			return false
		}
		dict[j] = dictCol{b: db, cache: map[int64]int{}, pending: make([]int, 0, 4096), emptyNull: emptyNull[1+j]}
	}
	return true
}

// KernelKeys are the cache keys of a kernel row's dictionary values, one
// per column: equal keys of a column must mean equal strings there, for as
// long as the appender lives. A key left 0 is one value like any other.
type KernelKeys struct {
	Source, File, Pass, Experiment, Variant, Shape, Range, RangePath, Name, ShortName, Mangled int64
}

// Add appends k (its ID is ignored: it gets the next id), its dictionary
// values known under keys.
func (a *KernelAppender) Add(k *Kernel, keys *KernelKeys) {
	if !a.fast {
		a.b.AddKernel(*k)
		return
	}
	id := a.b.nextKernel
	a.b.nextKernel++
	a.b.progress.kernel()
	rb := a.rb
	rb.Field(0).(*array.Int64Builder).Append(id)
	strs := [nKernelDict]string{k.Source, k.File, k.Pass, k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath, k.Name, k.ShortName, k.Mangled}
	ks := [nKernelDict]int64{keys.Source, keys.File, keys.Pass, keys.Experiment, keys.Variant, keys.Shape, keys.Range, keys.RangePath, keys.Name, keys.ShortName, keys.Mangled}
	for j := range a.dict {
		a.dict[j].append(ks[j], strs[j])
	}
	appendI32(rb.Field(12), k.Device, k.Null&NullDevice != 0)
	appendKernelCall(rb, k, 13, 5)
	appendKernelTail(rb, k)
	if a.b.sink != nil && int64(rb.Field(0).Len()) >= BatchRows() {
		a.Flush()
		a.b.spill(TableKernels)
		rb.Reserve(int(BatchRows())) // the next batch: room at once, not by doubling
	}
}

// Flush appends the rows the appender still holds back.
func (a *KernelAppender) Flush() {
	for j := range a.dict {
		if a.dict[j].b != nil {
			a.dict[j].flush()
		}
	}
}

// RangeAppender appends range rows like Builder.AddRange, remembering the
// dictionary index of each value under a caller's integer key, as
// KernelAppender does for kernels: a range path may be a kilobyte long and
// a trace holds millions of ranges of a few paths. Call Flush before
// anything else appends ranges.
type RangeAppender struct {
	b    *Builder
	rb   *array.RecordBuilder
	fast bool
	dict [nRangeDict]dictCol
}

// Dictionary columns of the ranges table, in schema order after id.
const (
	rdSource = iota
	rdFile
	rdKind
	rdDomain
	rdText
	rdPath
	nRangeDict
)

var rangeFastColumns = []string{"id", "source", "file", "kind", "domain", "text", "path", "depth", "parent_id", "pid", "tid", "start_ns", "end_ns"}

var rangesEmptyNull = emptyNull(TableRanges)

// RangeAppender returns an appender of range rows to b.
func (b *Builder) RangeAppender() *RangeAppender {
	a := &RangeAppender{b: b, rb: b.b[TableRanges]}
	a.fast = fastDictCols(a.rb, rangeFastColumns, a.dict[:], rangesEmptyNull)
	return a
}

// RangeKeys are the cache keys of a range row's dictionary values, one per
// column, as KernelKeys are for kernels.
type RangeKeys struct {
	Source, File, Kind, Domain, Text, Path int64
}

// Add appends r (its ID is ignored: it gets the next id), its dictionary
// values known under keys.
func (a *RangeAppender) Add(r *Range, keys *RangeKeys) {
	if !a.fast {
		a.b.AddRange(*r)
		return
	}
	id := a.b.nextRange
	a.b.nextRange++
	rb := a.rb
	rb.Field(0).(*array.Int64Builder).Append(id)
	strs := [nRangeDict]string{r.Source, r.File, r.Kind, r.Domain, r.Text, r.Path}
	ks := [nRangeDict]int64{keys.Source, keys.File, keys.Kind, keys.Domain, keys.Text, keys.Path}
	for j := range a.dict {
		a.dict[j].append(ks[j], strs[j])
	}
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
	if a.b.sink != nil && int64(rb.Field(0).Len()) >= BatchRows() {
		a.Flush()
		a.b.spill(TableRanges)
	}
}

// Flush appends the rows the appender still holds back.
func (a *RangeAppender) Flush() {
	for j := range a.dict {
		if a.dict[j].b != nil {
			a.dict[j].flush()
		}
	}
}
