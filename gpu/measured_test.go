package gpu

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMeasured(t *testing.T) {
	m, err := ParseMeasured([]byte(`{"rooftool_ceilings": 1, "device": "NVIDIA H200", "sm_count": 132, "l2_bytes": 62914560,
	  "clocks": {"sm_mhz": 1980}, "items": [{"name": "DRAM", "kind": "bandwidth", "value": 4.3e12, "median": 4.2e12, "method": "copy", "reps": 20}],
	  "errors": {"tensor fp8": "RuntimeError"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Device != "NVIDIA H200" || m.L2Bytes != 62914560 || len(m.Items) != 1 || m.Items[0].Median != 4.2e12 || m.Errors["tensor fp8"] == "" {
		t.Errorf("%+v", m)
	}
	for _, c := range []struct{ json, want string }{
		{`{"rooftool_ceilings": 2, "items": []}`, "want 1"},
		{`{"rooftool_ceilings": 1, "items": [{"kind": "bandwidth", "value": 1}]}`, "no name"},
		{`{"rooftool_ceilings": 1, "items": [{"name": "x", "kind": "speed", "value": 1}]}`, "kind"},
		{`{"rooftool_ceilings": 1, "items": [{"name": "x", "kind": "compute", "value": 0}]}`, "positive"},
		{`[1, 2]`, "cannot unmarshal"},
	} {
		if _, err := ParseMeasured([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseMeasured(%s) = %v, want error containing %q", c.json, err, c.want)
		}
	}
	p := filepath.Join(t.TempDir(), "ceilings.json")
	os.WriteFile(p, []byte(`{`), 0o644)
	if _, err := ReadMeasured(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("ReadMeasured of a bad file: %v (must name the file)", err)
	}
}

func FuzzParseMeasured(f *testing.F) {
	f.Add([]byte(`{"rooftool_ceilings": 1, "items": [{"name": "DRAM", "kind": "bandwidth", "value": 3e12}]}`))
	f.Add([]byte(`{"rooftool_ceilings": 1, "skipped": "no GPU", "items": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMeasured(data)
		if err != nil {
			return
		}
		for _, it := range m.Items {
			if !(it.Value > 0) || (it.Kind != "bandwidth" && it.Kind != "compute") {
				t.Fatalf("accepted %+v", it)
			}
		}
	})
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		kind string
		want string
	}{
		{3.35e12, "bandwidth", "3.35 TB/s"},
		{989.5e12, "compute", "990 TFLOP/s"},
		{67e12, "compute", "67.0 TFLOP/s"},
		{2.25e15, "compute", "2.25 PFLOP/s"},
		{999.7e9, "bandwidth", "1.00 TB/s"},
		{512, "bandwidth", "512 B/s"},
	} {
		if got := FormatRate(c.v, c.kind); got != c.want {
			t.Errorf("FormatRate(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}
