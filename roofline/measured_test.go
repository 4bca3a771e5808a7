package roofline

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
	for _, c := range []struct {
		min, max float64
		want     string
	}{{0.9894, 1.1862, "1.00 1.05 1.10 1.15"}, {0, 1.35, "0.0 0.2 0.4 0.6 0.8 1.0 1.2"}, {0.8, 1.43, "0.8 0.9 1.0 1.1 1.2 1.3 1.4"}} {
		var labels []string
		for _, tk := range (linTicks{}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("linTicks(%v, %v) = %q, want %q", c.min, c.max, got, c.want)
		}
	}
	for e, want := range map[int]string{-2: "0.01", 0: "1", 2: "100", 3: "1k", 7: "10M", 15: "1P"} {
		if got := decadeLabel(e); got != want {
			t.Errorf("decadeLabel(%d) = %q, want %q", e, got, want)
		}
	}
	for _, c := range [][4]string{{"swiglu", "M=512,N=4096,K=7168", "roofline", "swiglu-M=512,N=4096,K=7168-roofline"},
		{"swiglu", "M", "sweep", "swiglu-M-sweep"}, {"", "", "roofline", "export-roofline"}, {"a b", "x/y", "kernels", "a_b-x_y-kernels"}} {
		if got := FileName(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("FileName(%q, %q, %q) = %q, want %q", c[0], c[1], c[2], got, c[3])
		}
	}
}
