package kineto

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// The reader passes JSON whose whitespace runs are short unchanged, caps a
// long run outside strings, keeps the same run inside a string, and maps
// the decoder's positions back to the file's: encoding/json reading the
// file itself is the reference.
func TestSpaceReader(t *testing.T) {
	long := strings.Repeat(" ", 3*maxSpaceRun)
	doc := `{"a": "` + long + `", "b":` + long + "\n" + long + `[1, 2]}` + long + `{"c": 3}`
	got, err := io.ReadAll(newSpaceReader(strings.NewReader(doc)))
	if err != nil {
		t.Fatal(err)
	}
	// Inside the string the run stays; outside, the two runs (a 3*max run,
	// a newline and another 3*max run: one run) keep maxSpaceRun bytes each.
	want := `{"a": "` + long + `", "b":` + strings.Repeat(" ", maxSpaceRun) + `[1, 2]}` + strings.Repeat(" ", maxSpaceRun) + `{"c": 3}`
	if string(got) != want {
		t.Fatalf("passed %d bytes, want %d", len(got), len(want))
	}
	sr := newSpaceReader(strings.NewReader(doc))
	capped, raw := json.NewDecoder(sr), json.NewDecoder(strings.NewReader(doc))
	for {
		_, err1 := capped.Token()
		_, err2 := raw.Token()
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("tokens differ: %v / %v", err1, err2)
		}
		if err1 != nil {
			break
		}
		if got, want := sr.Offset(capped.InputOffset()), raw.InputOffset(); got != want {
			t.Fatalf("offset %d, the file's %d", got, want)
		}
	}
	// An escaped quote does not end a string.
	esc := `["\"` + long + `"]`
	if b, _ := io.ReadAll(newSpaceReader(strings.NewReader(esc))); string(b) != esc {
		t.Errorf("escaped quote: the string's spaces were dropped")
	}
}

// A gzipped trace that is mostly whitespace is read in time linear in its
// size: 32 MB of spaces inside traceEvents took about 12 s when the
// decoder rescanned them (6.7 s at 24 MB, 0.96 s at 6 MB).
func TestKinetoWhitespaceLinear(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(`{"traceEvents": [`))
	zw.Write(bytes.Repeat([]byte(" "), 32<<20))
	zw.Write([]byte(`]}`))
	zw.Close()
	p := filepath.Join(t.TempDir(), "ws.json.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	_, err := ingesttest.Files(Parse, []ingest.Input{{Path: p}}, memory.DefaultAllocator)
	if el := time.Since(t0); el > 10*time.Second {
		t.Errorf("32 MB of whitespace took %s (err %v)", el, err)
	}
}

// A kernel event without dur is refused, naming the event, rather than
// ingested as a 0 ns kernel.
func TestKinetoKernelWithoutDur(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nodur.json")
	doc := `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "args": {"correlation": 1}}]}`
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ingesttest.Files(Parse, []ingest.Input{{Path: p}}, memory.DefaultAllocator)
	if err == nil || !strings.Contains(err.Error(), "no dur") || !strings.Contains(err.Error(), "event 0") {
		t.Fatalf("err = %v, want the kernel event without dur named", err)
	}
}
