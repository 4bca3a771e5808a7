package ingest

// ScanMetrics: the metrics table read batch by batch, with ScanKernels'
// machinery (scanTable), for analyses that keep a few metrics of each
// kernel and never need every metric row at once.

// MetricBatch holds some rows of the metrics table, the columns that
// ScanMetrics was asked for (the others are empty).
type MetricBatch struct {
	Rows                      int
	KernelID                  []int64
	Section, Name, Unit, Text StrCol
	Value                     []float64 // 0 where null
	Valid                     []bool    // false where value is null, as Metric.Valid
}

// ScanMetrics reads the metrics table under dir as ScanKernels reads the
// kernels table, batchRows rows a batch from Parquet (<= 0: the default;
// Arrow IPC files keep their own batches), and calls fn with each batch in
// table order. columns names the columns to read: kernel_id, section,
// metric, unit, value (fills Value and Valid), text. The batch is reused:
// fn must copy what it keeps.
func ScanMetrics(dir string, columns []string, batchRows int, fn func(*MetricBatch) error) error {
	if batchRows <= 0 {
		batchRows = scanBatchRows
	}
	var b MetricBatch
	cols := []scanCol{
		{name: "kernel_id", i64: &b.KernelID}, {name: "section", str: &b.Section}, {name: "metric", str: &b.Name},
		{name: "unit", str: &b.Unit}, {name: "value", f64: &b.Value, valid: &b.Valid}, {name: "text", str: &b.Text},
	}
	return scanTable(dir, TableMetrics, "ScanMetrics", cols, columns, batchRows, func(rows int) error {
		b.Rows = rows
		return fn(&b)
	})
}
