package gpu

import (
	"strings"
	"testing"
)

func TestCeilingsForMeasuredAndPrimary(t *testing.T) {
	m := &Measured{Version: 1, Device: "NVIDIA H100 80GB HBM3", Items: []MeasuredCeiling{
		{Name: "DRAM", Kind: "bandwidth", Value: 3.0e12, Method: "copy"},
		{Name: "tensor bf16", Kind: "compute", Value: 7.9e14, Method: "matmul"},
	}}
	c := CeilingsFor(Ceilings{}, "", m)
	if c.GPU != "NVIDIA H100 80GB HBM3" || c.L2Bytes != 50<<20 {
		t.Errorf("GPU %q L2 %d", c.GPU, c.L2Bytes)
	}
	p := c.Primary()
	if !strings.HasPrefix(p["DRAM"].Source, "catalog:") || p["DRAM"].Value != 3.35e12 {
		t.Errorf("primary DRAM %+v: the catalog roof, not the measured one", p["DRAM"])
	}
	if d, ok := c.Get("DRAM", "measured:"); !ok || d.Value != 3e12 || !strings.Contains(d.Source, "copy") {
		t.Errorf("measured DRAM %+v", d)
	}
	skipped := CeilingsFor(Ceilings{}, "h100", &Measured{Version: 1, Skipped: "no GPU", Items: nil})
	for _, it := range skipped.Items {
		if strings.HasPrefix(it.Source, "measured:") {
			t.Errorf("skipped measurement gave %+v", it)
		}
	}
	if none := CeilingsFor(Ceilings{}, "no such gpu", nil); len(none.Items) != 0 {
		t.Errorf("unknown GPU gave %v", none.Items)
	}
}
