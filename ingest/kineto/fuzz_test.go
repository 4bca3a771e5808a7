package kineto

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// FuzzKinetoGzip gzips a trace: reading the .json.gz either fails with an
// *InputError or succeeds, and a trace read plain (either JSON form) is
// read gzipped too, with the same kernels.
func FuzzKinetoGzip(f *testing.F) {
	f.Add([]byte(ingesttest.KinetoArrayTrace))
	f.Add([]byte(synthKineto))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}]}`))
	f.Add([]byte(`[`))
	f.Add([]byte("\xef\xbb\xbf[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		gz := filepath.Join(dir, "trace.json.gz")
		if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		tz, err := ingesttest.File(Parse, gz, ingest.Options{}, nil)
		if err != nil {
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is %T, not an *InputError", err, err)
			}
		}
		b := ingest.NewBuilder(nil)
		defer b.Release()
		perr := parseKineto(b, ingest.Input{Path: "trace.json"}, bytes.NewReader(data))
		body := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
		sniffable := len(data)-len(body) < 512 && len(body) > 0 && (body[0] == '{' || body[0] == '[')
		if perr == nil && sniffable {
			tp := b.Finish()
			defer tp.Release()
			if err != nil {
				t.Fatalf("read plain, refused gzipped: %v", err)
			}
			if a, b := len(tp.Kernels()), len(tz.Kernels()); a != b {
				t.Errorf("%d kernels plain, %d gzipped", a, b)
			}
		}
		if tz != nil {
			tz.Release()
		}
	})
}
