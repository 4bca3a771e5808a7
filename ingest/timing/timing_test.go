package timing

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// A timing JSON that starts with a byte-order mark is read too.
func TestTimingByteOrderMark(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.json")
	body := `{"rooftool_timing": 1, "experiment": "e", "variant": "v", "shape": "M=1", "method": "wall", "samples_ms": [0.5, 0.25]}`
	if err := os.WriteFile(p, []byte("\xef\xbb\xbf"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := ingesttest.Ingest(t, Parse, p, ingest.Options{})
	if n := tb.NumRows(ingest.TableTimings); n != 2 {
		t.Errorf("%d timing rows, want 2", n)
	}
}
