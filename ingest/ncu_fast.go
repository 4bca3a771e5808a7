package ingest

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// ncuMetricBatch appends many metric rows at once. AddMetric hashes four
// dictionary strings per row; a raw-page row of ncu holds hundreds of
// metrics whose section, name and unit are the same for every kernel, so
// ncuMetricBatch resolves each string to its dictionary index once and then
// appends plain indices. It writes into the same builders as AddMetric, so
// rows from both paths mix freely.
type ncuMetricBatch struct {
	kid     *array.Int64Builder
	val     *array.Float64Builder
	dicts   [4]*array.BinaryDictionaryBuilder // section, metric, unit, text
	cache   [4]map[string]int
	b       *Builder
	kids    []int64
	idx     [4][]int
	vals    []float64
	valid   []bool
	anyNull bool
}

const (
	mbSection = iota
	mbMetric
	mbUnit
	mbText
)

func newNCUMetricBatch(b *Builder) (*ncuMetricBatch, error) {
	rb := b.b[TableMetrics]
	m := &ncuMetricBatch{b: b}
	var ok bool
	if m.kid, ok = rb.Field(0).(*array.Int64Builder); !ok {
		return nil, fmt.Errorf("metrics.kernel_id builder is %T", rb.Field(0))
	}
	if m.val, ok = rb.Field(4).(*array.Float64Builder); !ok {
		return nil, fmt.Errorf("metrics.value builder is %T", rb.Field(4))
	}
	for i, f := range []int{1, 2, 3, 5} {
		if m.dicts[i], ok = rb.Field(f).(*array.BinaryDictionaryBuilder); !ok {
			return nil, fmt.Errorf("metrics column %d builder is %T, want a string dictionary", f, rb.Field(f))
		}
		m.cache[i] = map[string]int{}
	}
	return m, nil
}

// index returns the dictionary index of s in column col, inserting it into
// the dictionary (without appending a row) when it is new.
func (m *ncuMetricBatch) index(col int, s string) int {
	if i, ok := m.cache[col][s]; ok {
		return i
	}
	d := m.dicts[col]
	before := d.DictionarySize()
	sb := array.NewStringBuilder(m.b.mem)
	sb.Append(s)
	arr := sb.NewStringArray()
	sb.Release()
	err := d.InsertStringDictValues(arr)
	arr.Release()
	if err != nil {
		panic(err) // only a type mismatch, which newNCUMetricBatch rules out
	}
	idx := before
	if d.DictionarySize() == before { // already there, put by another path
		idx = -1
		for i := 0; i < before; i++ {
			if string(d.Value(i)) == s {
				idx = i
				break
			}
		}
		if idx < 0 {
			panic(fmt.Sprintf("ingest: dictionary lost %q", s))
		}
	}
	m.cache[col][s] = idx
	return idx
}

// add queues one metric row; flush appends the queue for a kernel id.
func (m *ncuMetricBatch) add(section, metric, unit int, v float64, valid bool, text int) {
	m.idx[mbSection] = append(m.idx[mbSection], section)
	m.idx[mbMetric] = append(m.idx[mbMetric], metric)
	m.idx[mbUnit] = append(m.idx[mbUnit], unit)
	m.idx[mbText] = append(m.idx[mbText], text)
	m.vals = append(m.vals, v)
	m.valid = append(m.valid, valid)
	if !valid {
		m.anyNull = true
	}
}

func (m *ncuMetricBatch) flush(kernelID int64) {
	n := len(m.vals)
	if n == 0 {
		return
	}
	m.kids = m.kids[:0]
	for i := 0; i < n; i++ {
		m.kids = append(m.kids, kernelID)
	}
	m.kid.AppendValues(m.kids, nil)
	for c := range m.dicts {
		m.dicts[c].AppendIndices(m.idx[c], nil)
		m.idx[c] = m.idx[c][:0]
	}
	if m.anyNull {
		m.val.AppendValues(m.vals, m.valid)
	} else {
		m.val.AppendValues(m.vals, nil)
	}
	m.vals, m.valid, m.anyNull = m.vals[:0], m.valid[:0], false
}

// reset drops queued rows.
func (m *ncuMetricBatch) reset() {
	for c := range m.idx {
		m.idx[c] = m.idx[c][:0]
	}
	m.vals, m.valid, m.anyNull = m.vals[:0], m.valid[:0], false
}
