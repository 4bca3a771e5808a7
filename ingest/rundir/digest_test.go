package rundir

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"
)

// TableDigests hashes the regular files of tables/ by name (SHA-256 hex);
// DigestsDiffer names, sorted, the files changed, gone and added.
func TestTableDigests(t *testing.T) {
	fsys := fstest.MapFS{
		"tables/kernels.parquet": {Data: []byte("abc")},
		"tables/metrics.parquet": {Data: []byte("")},
		"tables/sub/x.parquet":   {Data: []byte("nested")},
		"manifest.json":          {Data: []byte("{}")},
	}
	got, err := TableDigests(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"kernels.parquet": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"metrics.parquet": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	}
	if len(got) != len(want) {
		t.Fatalf("TableDigests = %v, want %v (the folder sub/ left out)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: digest %s, want %s", k, got[k], v)
		}
	}
	if d := DigestsDiffer(want, got); len(d) != 0 {
		t.Errorf("DigestsDiffer of equal digests = %v", d)
	}
	have := map[string]string{"kernels.parquet": "0", "ranges.parquet": "1"}
	if d, w := DigestsDiffer(want, have), []string{"kernels.parquet changed", "metrics.parquet gone", "ranges.parquet added"}; !slices.Equal(d, w) {
		t.Errorf("DigestsDiffer = %v, want %v", d, w)
	}
	if _, err := TableDigests(fstest.MapFS{"manifest.json": {Data: []byte("{}")}}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("TableDigests without tables/: %v, want fs.ErrNotExist", err)
	}
}

// CoverageRatio rounds to four decimals and has no ratio over a kernel
// pass without a positive total.
func TestCoverageRatio(t *testing.T) {
	if r := CoverageRatio(1, 3); r == nil || *r != 0.3333 {
		t.Errorf("CoverageRatio(1, 3) = %v, want 0.3333", r)
	}
	if r := CoverageRatio(2, 2); r == nil || *r != 1 {
		t.Errorf("CoverageRatio(2, 2) = %v, want 1", r)
	}
	for _, k := range []float64{0, -1} {
		if r := CoverageRatio(1, k); r != nil {
			t.Errorf("CoverageRatio(1, %v) = %v, want nil", k, *r)
		}
	}
}
