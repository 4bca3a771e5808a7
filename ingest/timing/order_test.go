package timing

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// TestTimingClockMetasOrdered: a timing JSON's clocks become meta rows in
// the order of their keys, the same at every ingest, so that a run's
// tables come out byte for byte as its manifest's digests recorded them.
// Five clocks in a map would come out in the written order by chance once
// in 120 ingests; twenty ingests all in key order cannot be chance.
func TestTimingClockMetasOrdered(t *testing.T) {
	p := filepath.Join(t.TempDir(), "M=1.json")
	if err := os.WriteFile(p, []byte(`{"experiment":"e","variant":"v","shape":"M=1","samples_ms":[1.5],
		"clocks":{"sm_mhz":1980,"mem_mhz":2619,"gr_mhz":1980,"app_sm_mhz":1755,"max_sm_mhz":1980}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"clock.app_sm_mhz", "clock.gr_mhz", "clock.max_sm_mhz", "clock.mem_mhz", "clock.sm_mhz"}
	for i := range 20 {
		tb, err := ingesttest.Files(Parse, []ingest.Input{{Path: p, Options: ingest.Options{Experiment: "e", Variant: "v", Shape: "M=1"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, m := range tb.Metas() {
			if m.Source == ingest.SourceTiming && len(m.Key) > 6 && m.Key[:6] == "clock." {
				keys = append(keys, m.Key)
			}
		}
		tb.Release()
		if !slices.Equal(keys, want) {
			t.Fatalf("ingest %d: clock metas %v, want %v", i+1, keys, want)
		}
	}
}
