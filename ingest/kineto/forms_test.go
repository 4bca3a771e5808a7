package kineto

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// A gzipped Kineto trace is read in either JSON form, as the same file
// unzipped; a runtime call's args that rooftool does not read (a "0x0"
// stream, an object) are ignored whatever their type.
func TestKinetoGzipArrayAndArgs(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "trace.json")
	if err := os.WriteFile(plain, []byte(ingesttest.KinetoArrayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "trace.json.gz")
	ingesttest.GzipFile(t, plain, gz)
	for _, p := range []string{plain, gz} {
		tb, err := ingesttest.File(Parse, p, ingest.Options{}, nil)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		ks := tb.Kernels()
		if len(ks) != 1 || ks[0].DurationNs != 2500 || ks[0].CorrelationID != 7 || ks[0].Stream != 7 || ks[0].PID != 1 || ks[0].TID != 2 {
			t.Errorf("%s: kernels %+v; want one of 2500 ns, correlation 7, stream 7, launched from pid 1 tid 2", filepath.Base(p), ks)
		}
		tb.Release()
	}
}
