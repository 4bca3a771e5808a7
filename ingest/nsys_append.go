package ingest

import (
	"github.com/apache/arrow-go/v18/arrow/array"
)

// kernelAppender appends kernel rows like Builder.AddKernel, but for the
// dictionary columns it remembers the dictionary index of each value under
// a caller's integer key (a StringIds id, a range index), so a million rows
// cost a million index appends instead of a million string hashes. It falls
// back to AddKernel when the kernels schema is not the one it was written
// for. Call flush before anything else appends kernels.
type kernelAppender struct {
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
	b       *array.BinaryDictionaryBuilder
	cache   map[int64]int
	pending []int
}

func (c *dictCol) flush() {
	if len(c.pending) > 0 {
		c.b.AppendIndices(c.pending, nil)
		c.pending = c.pending[:0]
	}
}

// append adds value s known under key.
func (c *dictCol) append(key int64, s string) {
	if i, ok := c.cache[key]; ok {
		c.pending = append(c.pending, i)
		if len(c.pending) == cap(c.pending) {
			c.flush()
		}
		return
	}
	c.flush()
	if err := c.b.AppendString(s); err != nil {
		panic(err) // only fails on a type mismatch, checked in newKernelAppender
	}
	c.cache[key] = c.b.GetValueIndex(c.b.Len() - 1)
}

// kernelAppenderSlow forces the AddKernel path (tests compare the two).
var kernelAppenderSlow = false

func newKernelAppender(b *Builder) *kernelAppender {
	a := &kernelAppender{b: b, rb: b.b[TableKernels]}
	sc := a.rb.Schema()
	if kernelAppenderSlow || sc.NumFields() != len(kernelFastColumns) {
		return a
	}
	for i, n := range kernelFastColumns {
		if sc.Field(i).Name != n {
			return a
		}
	}
	for j := range a.dict {
		db, ok := a.rb.Field(1 + j).(*array.BinaryDictionaryBuilder)
		if !ok {
			return a
		}
		a.dict[j] = dictCol{b: db, cache: map[int64]int{}, pending: make([]int, 0, 4096)}
	}
	a.fast = true
	return a
}

// kernelKeys are the cache keys of a row's dictionary values: keys[j] names
// the value of dictionary column j; equal keys must mean equal strings.
type kernelKeys [nKernelDict]int64

func (a *kernelAppender) add(k *Kernel, keys *kernelKeys) {
	if !a.fast {
		a.b.AddKernel(*k)
		return
	}
	id := a.b.nextKernel
	a.b.nextKernel++
	rb := a.rb
	rb.Field(0).(*array.Int64Builder).Append(id)
	strs := [nKernelDict]string{k.Source, k.File, k.Pass, k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath, k.Name, k.ShortName, k.Mangled}
	for j := range a.dict {
		a.dict[j].append(keys[j], strs[j])
	}
	appendI32(rb.Field(12), k.Device, k.Null&NullDevice != 0)
	appendKernelCall(rb, k, 13, 5)
	appendKernelTail(rb, k)
}

// addBase appends every column of k except the ones that depend on the
// launching call (experiment, variant, shape, range, range_path, pid, tid);
// addCall appends those. Rows must get both, in the same order. Only for
// the fast path.
func (a *kernelAppender) addBase(k *Kernel, keys *kernelKeys) {
	id := a.b.nextKernel
	a.b.nextKernel++
	rb := a.rb
	rb.Field(0).(*array.Int64Builder).Append(id)
	a.dict[kdSource].append(keys[kdSource], k.Source)
	a.dict[kdFile].append(keys[kdFile], k.File)
	a.dict[kdPass].append(keys[kdPass], k.Pass)
	a.dict[kdName].append(keys[kdName], k.Name)
	a.dict[kdShortName].append(keys[kdShortName], k.ShortName)
	a.dict[kdMangled].append(keys[kdMangled], k.Mangled)
	appendI32(rb.Field(12), k.Device, k.Null&NullDevice != 0)
	appendKernelCall(rb, k, 13, 3)
	appendKernelTail(rb, k)
}

func (a *kernelAppender) addCall(k *Kernel, cellKey int64) {
	a.dict[kdExperiment].append(cellKey, k.Experiment)
	a.dict[kdVariant].append(cellKey, k.Variant)
	a.dict[kdShape].append(cellKey, k.Shape)
	a.dict[kdRange].append(cellKey, k.Range)
	a.dict[kdRangePath].append(cellKey, k.RangePath)
	appendKernelCall(a.rb, k, 16, 2)
}

func (a *kernelAppender) flush() {
	for j := range a.dict {
		if a.dict[j].b != nil {
			a.dict[j].flush()
		}
	}
}
