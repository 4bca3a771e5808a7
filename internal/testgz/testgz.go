// Package testgz reads the gzipped fixtures tests use (committed exports,
// range CSVs, SQLite files kept as .gz): whole into memory, or unpacked to
// a file. It imports no package of the module; only tests import it.
package testgz

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// Read returns the gunzipped content of the file at path.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// To writes the gunzipped src to dst.
func To(t testing.TB, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
