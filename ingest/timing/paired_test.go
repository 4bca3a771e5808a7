package timing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

const pairedBody = `{"rooftool_paired": 1, "experiment": "gated_ssm", "shape": "B=16", "baseline": "eager",
 "candidate": "quack-epilogue", "device": "NVIDIA H100", "gpu_uuid": "GPU-1", "discarded_pairs": 4,
 "launches": [
  {"launch": "eager", "calls": {"baseline": 1, "candidate": 1}, "pairs": [
   {"order": "BC", "baseline_ms": 2.0, "candidate_ms": 1.6, "baseline_sm_mhz": 1650, "candidate_sm_mhz": 1650},
   {"order": "CB", "baseline_ms": 2.2, "candidate_ms": 1.5, "baseline_sm_mhz": 1455, "candidate_sm_mhz": 1650}]},
  {"launch": "graph", "error": "RuntimeError: operation not permitted when stream is capturing"}]}`

// A paired record becomes two timing rows per pair (one per arm, method
// paired:<launch>, rep the pair) and clock meta rows per arm and pair.
func TestPairedRecord(t *testing.T) {
	p := filepath.Join(t.TempDir(), "eager~quack-epilogue~B=16.json")
	if err := os.WriteFile(p, []byte(pairedBody), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := ingesttest.Ingest(t, Parse, p, ingest.Options{})
	got := map[string]float64{}
	for _, r := range tb.Timings() {
		if r.Method != "paired:eager" || r.File != "eager~quack-epilogue~B=16.json" || r.Shape != "B=16" {
			t.Errorf("row %+v", r)
		}
		got[r.Variant+"/"+string(rune('0'+r.Rep))] = r.Ms
	}
	want := map[string]float64{"eager/0": 2.0, "quack-epilogue/0": 1.6, "eager/1": 2.2, "quack-epilogue/1": 1.5}
	if len(got) != len(want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	meta := map[string]string{}
	for _, m := range tb.Metas() {
		meta[m.File+" "+m.Key] = m.Value
	}
	for k, v := range map[string]string{
		"gated_ssm/eager/eager~quack-epilogue~B=16.json paired.eager.1.sm_mhz":          "1455",
		"gated_ssm/quack-epilogue/eager~quack-epilogue~B=16.json paired.eager.1.sm_mhz": "1650",
		"gated_ssm/quack-epilogue/eager~quack-epilogue~B=16.json paired.graph.role":     "candidate",
		"gated_ssm/eager/eager~quack-epilogue~B=16.json paired.graph.error":             "RuntimeError: operation not permitted when stream is capturing",
	} {
		if meta[k] != v {
			t.Errorf("meta %q = %q, want %q", k, meta[k], v)
		}
	}
}

func TestPairedRecordRejects(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{`"candidate_ms": 1.5`, `"candidate_ms": 0`, "launches[0].pairs[1].candidate_ms"},
		{`"launch": "graph"`, `"launch": "cuda"`, `launch "cuda"`},
		{`"launch": "graph"`, `"launch": "eager"`, "given twice"},
		{`"candidate": "quack-epilogue"`, `"candidate": "eager"`, "both"},
	} {
		p := filepath.Join(t.TempDir(), "p.json")
		if err := os.WriteFile(p, []byte(strings.Replace(pairedBody, tc.from, tc.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ingesttest.File(Parse, p, ingest.Options{}, nil)
		var ie *ingest.InputError
		if !errors.As(err, &ie) || ie.File != p || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s -> %s: err = %v, want an InputError on %s naming %q", tc.from, tc.to, err, p, tc.want)
		}
	}
}
