package analysis

import "github.com/rooftool/rooftool/ingest"

// ReadIndexed reads the tables under dir for AnalyzeIndexed: every table
// but metrics whole, the metrics table batch by batch (ScanMetricIndex),
// batchRows rows a batch (<= 0: the scan's default), into an index that
// keeps only the metric names analysis reads, so a long-form ncu export of
// millions of metric rows never becomes millions of rows.
func ReadIndexed(dir string, batchRows int) (*ingest.Tables, *MetricIndex, error) {
	x, err := ScanMetricIndex(dir, batchRows)
	if err != nil {
		return nil, nil, err
	}
	t, err := ingest.ReadDirExcept(dir, []string{ingest.TableMetrics}, nil)
	if err != nil {
		return nil, nil, err
	}
	return t, x, nil
}

// ScanMetricIndex adds the valid rows of the metrics table under dir whose
// names analysis reads (Needs) to a new index, in table order, batchRows
// rows a batch (<= 0: the scan's default).
func ScanMetricIndex(dir string, batchRows int) (*MetricIndex, error) {
	x := NewMetricIndex()
	var dict []string
	var keep []bool // by index into dict: Needs of the name
	cols := []string{"kernel_id", "metric", "unit", "value"}
	err := ingest.ScanMetrics(dir, cols, batchRows, func(b *ingest.MetricBatch) error {
		if !sameDict(dict, b.Name.Dict) || keep == nil {
			dict, keep = b.Name.Dict, make([]bool, len(b.Name.Dict))
			for i, n := range dict {
				keep[i] = Needs(n)
			}
		}
		for i := 0; i < b.Rows; i++ {
			j := b.Name.Idx[i]
			if j < 0 || !keep[j] || !b.Valid[i] {
				continue // a null name reads "", which analysis does not read
			}
			unit := ""
			if u := b.Unit.Idx[i]; u >= 0 {
				unit = b.Unit.Dict[u]
			}
			x.Add(b.KernelID[i], dict[j], unit, b.Value[i])
		}
		return nil
	})
	return x, err
}

// sameDict reports whether two dictionaries of a scan are the same slice
// (a scan hands each file's dictionary on from batch to batch).
func sameDict(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
