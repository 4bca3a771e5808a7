package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
)

// TestDeviceLoopClockDrift: the drift check reads the device-time loop's
// clock samples (timing JSON device_clock_samples) as it reads the wall
// loop's. Here the wall loop holds 1980 MHz while the device loop moves from
// 1590 to 1410 MHz: 1590/1410 - 1 = 12.8% > 5%.
func TestDeviceLoopClockDrift(t *testing.T) {
	dir := t.TempDir()
	js := `{"rooftool_timing": 1, "experiment": "e", "variant": "v", "shape": "n=1", "method": "cuda-events",
 "reps": 3, "samples_ms": [1, 1, 1], "device_ms": [0.9, 0.9, 0.9], "gpu_uuid": "GPU-bbbbbbbb",
 "clock_samples": [{"rep": 0, "sm_mhz": 1980}, {"rep": 3, "sm_mhz": 1980}],
 "device_clock_samples": [{"rep": 0, "sm_mhz": 1590}, {"rep": 2, "sm_mhz": 1500}, {"rep": 3, "sm_mhz": 1410}]}`
	p := filepath.Join(dir, "n=1.json")
	if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := detect.File(p, ingest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	var uuid string
	for _, m := range tb.Metas() {
		if m.Key == "gpu_uuid" {
			uuid = m.Value
		}
	}
	if uuid != "GPU-bbbbbbbb" {
		t.Errorf("meta gpu_uuid = %q, want GPU-bbbbbbbb", uuid)
	}
	for _, c := range CellFacts(tb, nil, nil, gpu.Ceilings{}, Options{}) {
		var drift []string
		for _, w := range c.Warnings {
			if w.Code == WarnClocks {
				drift = append(drift, w.Msg)
			}
		}
		if len(drift) != 1 || !strings.Contains(drift[0], "between 1410 and 1590 MHz during the device-time loop (13%)") {
			t.Errorf("clocks-differ warnings %q, want one for the device-time loop, 1410-1590 MHz (13%%)", drift)
		}
	}
}
