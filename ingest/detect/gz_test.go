package detect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// plainAndGzipped ingests src and a gzipped copy of it (dst, a file name in
// a temporary folder), checking that Format calls the copy want; it
// returns both tables, released when the test ends, and the copy's path.
func plainAndGzipped(t *testing.T, src, dst, want string, mem memory.Allocator) (plain, zipped *ingest.Tables, gz string) {
	t.Helper()
	gz = filepath.Join(t.TempDir(), dst)
	ingesttest.GzipFile(t, src, gz)
	if f, err := Format(gz); err != nil || f != want {
		t.Fatalf("Format = %q, %v; want %q", f, err, want)
	}
	plain, err := File(src, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(plain.Release)
	zipped, err = File(gz, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(zipped.Release)
	return plain, zipped, gz
}

// A gzipped nsys export ingests exactly like the plain one, under the name
// it had before compression.
func TestNsysGzip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) }) // after the tables' release
	src := filepath.Join(ingesttest.Realdata, "gpu4", "report.sqlite")
	plain, zipped, _ := plainAndGzipped(t, src, "report.sqlite.gz", FormatNsysGz, mem)
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
	ingesttest.GzipFile(t, filepath.Join(ingesttest.Realdata, "WeatherBench2", "report1.sqlite"), gz)
	_, err := File(gz, ingest.Options{}, nil)
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.File != gz || !strings.Contains(err.Error(), "CUPTI_ACTIVITY_KIND_KERNEL") {
		t.Fatalf("error = %v, want an InputError naming %s and the missing kernel table", err, gz)
	}
	// A truncated gzip stream is bad input, not a crash.
	data, _ := os.ReadFile(gz)
	trunc := filepath.Join(t.TempDir(), "trunc.sqlite.gz")
	os.WriteFile(trunc, data[:len(data)/3], 0o644)
	if _, err := File(trunc, ingest.Options{}, nil); !errors.As(err, &ie) {
		t.Fatalf("truncated gzip: error = %v, want an InputError", err)
	}
}

// Options.Cells keeps the named cells' kernels (and kernels outside any
// cell) and renumbers ids so that metrics and range parents still match.
func TestCellsFilter(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// The DLProf nsys export has nested ranges.
	p := filepath.Join(ingesttest.Realdata, "DLProf", "nsys_profile.sqlite")
	all, err := File(p, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	none, err := File(p, ingest.Options{Cells: []string{"no-such/cell"}}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer none.Release()
	// DLProf's ranges are not experiment/variant/shape paths: no kernel has a
	// cell, so the filter keeps every one.
	if len(all.Kernels()) != len(none.Kernels()) || len(all.Ranges()) != len(none.Ranges()) {
		t.Fatalf("filter dropped cell-less rows: %d/%d kernels, %d/%d ranges", len(none.Kernels()), len(all.Kernels()), len(none.Ranges()), len(all.Ranges()))
	}
	for i, r := range none.Ranges() {
		if r.ID != int64(i) || (r.ParentID != nil && *r.ParentID >= r.ID) {
			t.Fatalf("range %d renumbered badly: %+v", i, r)
		}
	}
	// Two cells in one file: keep one.
	b := ingest.NewBuilder(mem)
	defer b.Release()
	k0 := b.AddKernel(ingest.Kernel{Source: ingest.SourceNsys, File: "x", Variant: "a", Shape: "M=1", Name: "ka"})
	b.AddKernel(ingest.Kernel{Source: ingest.SourceNsys, File: "x", Variant: "b", Shape: "M=1", Name: "kb"})
	b.AddKernel(ingest.Kernel{Source: ingest.SourceNsys, File: "x", Name: "warmup"})
	b.AddMetric(ingest.Metric{KernelID: k0, Name: "m", Value: 1, Valid: true})
	two := b.Finish()
	defer two.Release()
	dst := ingest.NewBuilder(mem)
	defer dst.Release()
	dst.AddKernel(ingest.Kernel{Name: "earlier"}) // ids of the copied rows start after it
	if err := dst.AppendCells(two, []string{"b/M=1"}); err != nil {
		t.Fatal(err)
	}
	got := dst.Finish()
	defer got.Release()
	var names []string
	for _, k := range got.Kernels() {
		names = append(names, k.Name)
	}
	if strings.Join(names, ",") != "earlier,kb,warmup" || len(got.Metrics()) != 0 {
		t.Fatalf("kept %v and %d metrics, want earlier,kb,warmup and none", names, len(got.Metrics()))
	}
}

// A gzipped ncu CSV ingests exactly like the plain one: the same rows and
// metas, which name the file as it was before compression; a truncated
// stream is bad input naming the .gz file.
func TestNCUGzip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) }) // after the tables' release
	src := filepath.Join(ingesttest.Realdata, "Roofline-Analysis", "torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv")
	plain, zipped, gz := plainAndGzipped(t, src, filepath.Base(src)+".gz", FormatNCUGz, mem)
	if d := cmp.Diff(plain.Kernels(), zipped.Kernels()); d != "" || len(plain.Kernels()) == 0 {
		t.Errorf("kernels differ (-plain +gzipped), %d plain:\n%s", len(plain.Kernels()), d)
	}
	if d := cmp.Diff(plain.Metrics(), zipped.Metrics()); d != "" {
		t.Errorf("metrics differ (-plain +gzipped):\n%s", d)
	}
	if d := cmp.Diff(plain.Metas(), zipped.Metas()); d != "" {
		t.Errorf("metas differ (-plain +gzipped):\n%s", d)
	}
	data, _ := os.ReadFile(gz)
	trunc := filepath.Join(t.TempDir(), "trunc.csv.gz")
	if err := os.WriteFile(trunc, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := File(trunc, ingest.Options{}, nil)
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.File != trunc {
		t.Fatalf("truncated: error = %v, want an InputError naming %s", err, trunc)
	}
}
