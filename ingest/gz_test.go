package ingest

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func gzipFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(out)
	if _, err := io.Copy(zw, in); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// A gzipped nsys export ingests exactly like the plain one, under the name
// it had before compression.
func TestNsysGzip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := filepath.Join("..", "testdata", "realdata", "gpu4", "report.sqlite")
	gz := filepath.Join(t.TempDir(), "report.sqlite.gz")
	gzipFile(t, src, gz)
	if f, err := Detect(gz); err != nil || f != FormatNsysGz {
		t.Fatalf("Detect = %q, %v; want %q", f, err, FormatNsysGz)
	}
	plain, err := File(src, Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Release()
	zipped, err := File(gz, Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer zipped.Release()
	pk, zk := plain.Kernels(), zipped.Kernels()
	if len(pk) == 0 || len(pk) != len(zk) {
		t.Fatalf("kernels: plain %d, gzipped %d", len(pk), len(zk))
	}
	for i := range pk {
		if pk[i].Name != zk[i].Name || pk[i].DurationNs != zk[i].DurationNs || zk[i].File != "report.sqlite" {
			t.Fatalf("kernel %d differs: %+v vs %+v", i, pk[i], zk[i])
		}
	}
}

func TestNsysGzipErrorsNameTheGzFile(t *testing.T) {
	gz := filepath.Join(t.TempDir(), "weather.sqlite.gz")
	gzipFile(t, filepath.Join("..", "testdata", "realdata", "WeatherBench2", "report1.sqlite"), gz)
	_, err := File(gz, Options{}, nil)
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != gz || !strings.Contains(err.Error(), "CUPTI_ACTIVITY_KIND_KERNEL") {
		t.Fatalf("error = %v, want an InputError naming %s and the missing kernel table", err, gz)
	}
	// A truncated gzip stream is bad input, not a crash.
	data, _ := os.ReadFile(gz)
	trunc := filepath.Join(t.TempDir(), "trunc.sqlite.gz")
	os.WriteFile(trunc, data[:len(data)/3], 0o644)
	if _, err := File(trunc, Options{}, nil); !errors.As(err, &ie) {
		t.Fatalf("truncated gzip: error = %v, want an InputError", err)
	}
}
