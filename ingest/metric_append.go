package ingest

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// MetricAppender appends many metric rows at once. AddMetric hashes four
// dictionary strings per row; a raw-page row of ncu holds hundreds of
// metrics whose section, name and unit are the same for every kernel, so
// a MetricAppender resolves each string to its dictionary index once and
// then appends plain indices. It writes into the same builders as
// AddMetric, so rows from both paths mix freely.
type MetricAppender struct {
	kid   *array.Int64Builder
	val   *array.Float64Builder
	dicts [4]*array.BinaryDictionaryBuilder // section, metric, unit, text
	cache [4]map[string]int
	b     *Builder
	kids  []int64
	valid []bool
}

// MetricsColumn is a dictionary column of the metrics table, as a
// MetricAppender indexes its values.
type MetricsColumn int

// The dictionary columns of the metrics table.
const (
	MetricsSection MetricsColumn = iota
	MetricsMetric
	MetricsUnit
	MetricsText
)

// MetricAppender returns an appender of metric rows to b.
func (b *Builder) MetricAppender() (*MetricAppender, error) {
	rb := b.b[TableMetrics]
	m := &MetricAppender{b: b}
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

// Index returns the dictionary index of s in column col, inserting it into
// the dictionary (without appending a row) when it is new; -1 (a null) for
// "" in section and text, which are null where absent.
func (m *MetricAppender) Index(col MetricsColumn, s string) int {
	if s == "" && (col == MetricsSection || col == MetricsText) {
		return -1
	}
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
		panic(err) // only a type mismatch, which MetricAppender rules out
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

// AppendRows appends metric rows for one kernel: the four index slices
// (by MetricsColumn: section, metric, unit, text) and vals/valid have the
// same length; valid nil means every value is present; an index of -1 is a
// null string.
func (m *MetricAppender) AppendRows(kernelID int64, idx [4][]int, vals []float64, valid []bool) {
	n := len(vals)
	if n == 0 {
		return
	}
	if cap(m.kids) < n {
		m.kids = make([]int64, n)
	}
	kids := m.kids[:n]
	for i := range kids {
		kids[i] = kernelID
	}
	m.kid.AppendValues(kids, nil)
	for c := range m.dicts {
		m.dicts[c].AppendIndices(idx[c], m.indexValid(idx[c]))
	}
	m.val.AppendValues(vals, valid)
	m.b.spill(TableMetrics)
}

// indexValid returns the validity of indices (-1 is null), nil when none
// is null.
func (m *MetricAppender) indexValid(idx []int) []bool {
	null := false
	for _, i := range idx {
		if i < 0 {
			null = true
			break
		}
	}
	if !null {
		return nil
	}
	if cap(m.valid) < len(idx) {
		m.valid = make([]bool, len(idx))
	}
	v := m.valid[:len(idx)]
	for j, i := range idx {
		v[j] = i >= 0
	}
	return v
}

// Reserve makes room for n more metric rows in every column, so that a
// large export does not pay for repeated buffer doubling. It sizes the
// buffers exactly (an Arrow builder's Reserve would round up to a power of
// two).
func (m *MetricAppender) Reserve(n int) {
	n += n / 64 // a little slack: the row count is an estimate
	if m.b.sink != nil {
		n = min(n, int(BatchRows())) // a streaming Builder holds one batch
	}
	grow := func(b interface {
		Len() int
		Cap() int
		Resize(int)
	}) {
		if want := b.Len() + n; want > b.Cap() {
			b.Resize(want)
		}
	}
	grow(m.kid)
	grow(m.val)
	for _, d := range m.dicts {
		grow(d)
	}
}
