package nsys

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// ParseGz decompresses a gzipped nsys SQLite export into a temporary
// directory (SQLite needs a file) under the name it had before compression,
// parses it as Parse does, and reports errors against the compressed file.
func ParseGz(b *ingest.Builder, in ingest.Input) error {
	f, err := os.Open(in.Path)
	if err != nil {
		return &ingest.InputError{File: in.Path, Err: err}
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return ingest.BadInput(in.Path, 0, "", "gzip: %v", err)
	}
	dir, err := os.MkdirTemp("", "rooftool-nsys-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	name := strings.TrimSuffix(filepath.Base(in.Path), ".gz")
	if name == filepath.Base(in.Path) || name == "" {
		name = "export.sqlite"
	}
	tmp := filepath.Join(dir, name)
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		return ingest.BadInput(in.Path, 0, "", "gzip: %v", err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	inner := in
	inner.Path = tmp
	err = Parse(b, inner)
	var ie *ingest.InputError
	if errors.As(err, &ie) && ie.File == tmp {
		ie.File = in.Path
	}
	return err
}
