package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// WriteJSON writes report.json: the same facts as report.md, keys sorted
// at every level, two-space indent, so the output is deterministic and
// diffs well.
func WriteJSON(w io.Writer, r *Report) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	// Round-trip through generic values: encoding/json writes map keys
	// sorted; UseNumber keeps every number exactly as first written.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// ReadJSON reads a report.json back (for diffing reports and tests).
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("report.json: %w", err)
	}
	return &r, nil
}

// MarshalJSON writes a cell that is not ok or partial (failed, skipped or
// missing) with each of its measured figures that is 0 as null: kernels,
// elementwise_kernels, gpu_time_ns, dram_bytes, dram_bytes_kernels,
// l2_bytes and flops. A 0 there would read as a measurement.
func (r CellRow) MarshalJSON() ([]byte, error) {
	type plain CellRow // without this method
	if r.Status == rundir.StatusOK || r.Status == cellPartial || r.Status == "" {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Kernels            *int     `json:"kernels"`
		ElementwiseKernels *int     `json:"elementwise_kernels"`
		GPUTimeNs          *float64 `json:"gpu_time_ns"`
		DRAMBytes          *float64 `json:"dram_bytes"`
		DRAMBytesKernels   *float64 `json:"dram_bytes_kernels"`
		L2Bytes            *float64 `json:"l2_bytes"`
		FLOPs              *float64 `json:"flops"`
	}{plain(r), nonZero(r.Kernels), nonZero(r.ElementwiseKernels), nonZero(r.GPUTimeNs), nonZero(r.DRAMBytes),
		nonZero(r.DRAMBytesKernels), nonZero(r.L2Bytes), nonZero(r.FLOPs)})
}

// nonZero is &v, or nil for 0.
func nonZero[T int | float64](v T) *T {
	if v == 0 {
		return nil
	}
	return &v
}
