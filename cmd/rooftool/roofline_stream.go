package main

// roofline's input: a directory of tables read as it is, raw exports once
// ingested into a temporary directory (ingest.WriteFiles, bounded memory).
// Every table but metrics is read whole; the metrics table is read batch
// by batch (ingest.ScanMetrics) into an analysis.MetricIndex that keeps
// only the metric names analysis reads (analysis.Needs), so a long-form ncu
// export of millions of metric rows never becomes millions of rows.

import (
	"os"
	"path/filepath"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// rooflineInput is what roofline draws from: the tables without their
// metrics, the metric index, and the run directory where the input is one.
type rooflineInput struct {
	t       *ingest.Tables
	metrics *analysis.MetricIndex
	runDir  string
	tmp     string // temporary directory of ingested exports, removed by Close
}

func (in *rooflineInput) Close() {
	in.t.Release()
	if in.tmp != "" {
		os.RemoveAll(in.tmp)
	}
}

// openRooflineInput reads inputs (raw exports, or one directory of
// ingested tables), the metrics table batchRows rows a batch (<= 0: the
// scan's default).
func openRooflineInput(inputs []string, batchRows int) (*rooflineInput, error) {
	if len(inputs) == 1 {
		if st, err := os.Stat(inputs[0]); err == nil && st.IsDir() {
			if err := checkTablesDir(inputs[0]); err != nil {
				return nil, err
			}
			if _, err := rundir.Open(inputs[0]); err != nil {
				return nil, &ingest.InputError{File: inputs[0], Err: err}
			}
			in, err := readRooflineTables(tablesDir(inputs[0]), batchRows)
			if err != nil {
				return nil, &ingest.InputError{File: inputs[0], Err: err}
			}
			if st, err := os.Stat(filepath.Join(inputs[0], rundir.TablesDir)); err == nil && st.IsDir() {
				in.runDir = inputs[0]
			}
			return in, nil
		}
	}
	tmp, err := os.MkdirTemp("", "rooftool-roofline-*")
	if err != nil {
		return nil, err
	}
	var files []ingest.Input
	for _, p := range inputs {
		files = append(files, ingest.Input{Path: p})
	}
	dir := filepath.Join(tmp, "tables")
	if _, err := ingest.WriteFiles(files, dir, ingest.FormatParquet, nil); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	in, err := readRooflineTables(dir, batchRows)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	in.tmp = tmp
	return in, nil
}

// readRooflineTables reads the tables under dir, the metrics table into a
// metric index.
func readRooflineTables(dir string, batchRows int) (*rooflineInput, error) {
	x, err := scanMetricIndex(dir, batchRows)
	if err != nil {
		return nil, err
	}
	t, err := ingest.ReadDirExcept(dir, []string{ingest.TableMetrics}, nil)
	if err != nil {
		return nil, err
	}
	return &rooflineInput{t: t, metrics: x}, nil
}

// scanMetricIndex adds the valid rows of the metrics table under dir whose
// names analysis reads to a new index, in table order.
func scanMetricIndex(dir string, batchRows int) (*analysis.MetricIndex, error) {
	x := analysis.NewMetricIndex()
	var dict []string
	var keep []bool // by index into dict: analysis.Needs of the name
	cols := []string{"kernel_id", "metric", "unit", "value"}
	err := ingest.ScanMetrics(dir, cols, batchRows, func(b *ingest.MetricBatch) error {
		if !sameDict(dict, b.Name.Dict) || keep == nil {
			dict, keep = b.Name.Dict, make([]bool, len(b.Name.Dict))
			for i, n := range dict {
				keep[i] = analysis.Needs(n)
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
