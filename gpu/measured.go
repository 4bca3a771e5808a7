package gpu

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// ReadMeasured reads RUNDIR/ceilings.json.
func ReadMeasured(path string) (*Measured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read ceilings %s: %w", path, err)
	}
	m, err := ParseMeasured(data)
	if err != nil {
		return nil, fmt.Errorf("read ceilings %s: %w", path, err)
	}
	return m, nil
}

// ParseMeasured decodes and checks the JSON of kernels/ceilings.py.
func ParseMeasured(data []byte) (*Measured, error) {
	var m Measured
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m.Version != 1 {
		return nil, fmt.Errorf("rooftool_ceilings is %d, want 1", m.Version)
	}
	for i, it := range m.Items {
		if it.Name == "" {
			return nil, fmt.Errorf("items[%d]: no name", i)
		}
		if it.Kind != "bandwidth" && it.Kind != "compute" {
			return nil, fmt.Errorf("items[%d] %q: kind %q, want bandwidth or compute", i, it.Name, it.Kind)
		}
		if !(it.Value > 0) || math.IsInf(it.Value, 0) {
			return nil, fmt.Errorf("items[%d] %q: value %v, want a positive rate", i, it.Name, it.Value)
		}
	}
	return &m, nil
}
