// Package ingest is the first stage of rooftool's pipeline after the profile
// runner: it reads raw profiler exports (Nsight Compute CSV, Nsight Systems
// SQLite, Kineto / PyTorch-profiler Chrome traces, rooftool timing JSON) into
// the Arrow tables described in schema.go, and persists them as Parquet or
// Arrow IPC. Files builds the tables in memory; WriteFiles writes Parquet
// row groups as the exports are parsed, so that an nsys trace or an ncu
// export of any length is ingested in bounded memory, and ScanKernels
// reads a kernels table back a batch at a time. Arrow, cgo and SQLite
// details stay behind this package's API.
package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Format names of raw exports.
const (
	FormatNCUCSV  = "ncu-csv"
	FormatNCUGz   = "ncu-csv-gz" // an ncu CSV compressed with gzip (a committed run's raw/ncu*/)
	FormatNCURep  = "ncu-rep"
	FormatNsysDB  = "nsys-sqlite"
	FormatNsysGz  = "nsys-sqlite-gz" // an nsys SQLite export compressed with gzip
	FormatNsysRep = "nsys-rep"
	FormatKineto  = "kineto-json"
	FormatTiming  = "timing-json"
)

// Files parses every input into one set of tables. On any error nothing is
// returned: callers write either all tables or none.
func Files(inputs []Input, mem memory.Allocator) (*Tables, error) {
	b := NewBuilder(mem)
	defer b.Release()
	for _, in := range inputs {
		if err := parseFile(b, in); err != nil {
			return nil, err
		}
	}
	return b.Finish(), nil
}

// File parses one export.
func File(path string, opts Options, mem memory.Allocator) (*Tables, error) {
	return Files([]Input{{Path: path, Options: opts}}, mem)
}

// Detect names the format of the export at path from its contents (and, for
// the binary Nsight reports, its extension).
func Detect(path string) (string, error) {
	if path == "-" {
		return "", BadInput(path, 0, "", "standard input is not read: exports are read from files; save it to one first (e.g. ... > export.csv) and give its path")
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", &InputError{File: path, Err: errors.Unwrap(err)}
	}
	if st.IsDir() {
		return "", BadInput(path, 0, "", "is a directory, expected an export file (ncu CSV, nsys SQLite, Kineto JSON)")
	}
	if !st.Mode().IsRegular() {
		// A pipe or device is read once; the parsers read an export more
		// than once (its kind first, then its rows).
		return "", BadInput(path, 0, "", "is not a regular file (%s): exports are read from files; save it to one first (e.g. ... > export.csv)", st.Mode().Type())
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ncu-rep":
		return FormatNCURep, nil
	case ".nsys-rep", ".qdrep":
		// An SQLite export renamed .nsys-rep is read as the SQLite it is.
		if f, err := os.Open(path); err == nil {
			head := make([]byte, 16)
			n, _ := io.ReadFull(f, head)
			f.Close()
			if bytes.Equal(head[:n], []byte("SQLite format 3\x00")) {
				return FormatNsysDB, nil
			}
		}
		return FormatNsysRep, nil
	}
	if st.Size() == 0 {
		return "", BadInput(path, 0, "", "empty file, expected an export (ncu CSV, nsys SQLite, Kineto JSON)")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", &InputError{File: path, Err: errors.Unwrap(err)}
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return sniff(path, head)
}

func sniff(path string, head []byte) (string, error) {
	switch {
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return FormatNsysDB, nil
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return "", BadInput(path, 0, "", "gzip header: %v", err)
		}
		inner := make([]byte, 1024)
		k, _ := io.ReadFull(zr, inner)
		inner = inner[:k]
		if bytes.HasPrefix(inner, []byte("SQLite format 3\x00")) {
			return FormatNsysGz, nil
		}
		inner = bytes.TrimSpace(bytes.TrimPrefix(inner, []byte("\xef\xbb\xbf")))
		if len(inner) > 0 && (inner[0] == '{' || inner[0] == '[') { // object or JSON-array trace
			return FormatKineto, nil
		}
		if isNCUText(inner) {
			return FormatNCUGz, nil
		}
		return "", BadInput(path, 0, "", "gzip file holds neither a JSON trace, an ncu CSV nor an nsys SQLite export")
	}
	t := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	if len(t) == 0 {
		return "", BadInput(path, 0, "", "file holds only white space, expected an export")
	}
	if t[0] == '{' || t[0] == '[' {
		if bytes.Contains(head, []byte(`"samples_ms"`)) || bytes.Contains(head, []byte(`"rooftool_timing"`)) || bytes.Contains(head, []byte(`"rooftool_paired"`)) {
			return FormatTiming, nil
		}
		return FormatKineto, nil
	}
	if isNCUText(t) {
		return FormatNCUCSV, nil
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "", BadInput(path, 0, "", "binary file of unknown kind, expected an export (ncu CSV, nsys SQLite, Kineto JSON)")
	}
	return "", BadInput(path, 1, "", "not a known export: expected an ncu CSV (header starting with \"ID\"), an nsys SQLite or a Kineto JSON trace")
}

// isNCUText reports whether t (the start of a file, white space and a
// UTF-8 byte-order mark trimmed, as the CSV reader skips them) is an ncu
// CSV: ==PROF==/==WARNING==/==ERROR== lines or a quoted header whose first
// field is "ID" (raw page, details page).
func isNCUText(t []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(t))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		return strings.HasPrefix(l, "==") || strings.HasPrefix(l, `"ID"`) || strings.HasPrefix(l, "ID,")
	}
	return false
}

func parseFile(b *Builder, in Input) error {
	if len(in.Cells) > 0 {
		return parseFiltered(b, in)
	}
	defer b.Watch(in.Progress)()
	format, err := Detect(in.Path)
	if err != nil {
		return err
	}
	switch format {
	case FormatNCUCSV, FormatNCUGz:
		return parseNCUFile(b, in)
	case FormatNCURep:
		return parseNCURep(b, in)
	case FormatNsysDB:
		return parseNsys(b, in)
	case FormatNsysGz:
		return parseNsysGz(b, in)
	case FormatNsysRep:
		return parseNsysRep(b, in)
	case FormatKineto:
		return parseKinetoFile(b, in)
	case FormatTiming:
		return parseTimingFile(b, in)
	}
	return BadInput(in.Path, 0, "", "unsupported format %s", format)
}

// parseNsysGz decompresses a gzipped nsys SQLite export into a temporary
// directory (SQLite needs a file) under the name it had before compression,
// parses it, and reports errors against the compressed file.
func parseNsysGz(b *Builder, in Input) error {
	f, err := os.Open(in.Path)
	if err != nil {
		return &InputError{File: in.Path, Err: err}
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return BadInput(in.Path, 0, "", "gzip: %v", err)
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
		return BadInput(in.Path, 0, "", "gzip: %v", err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	inner := in
	inner.Path = tmp
	err = parseNsys(b, inner)
	var ie *InputError
	if errors.As(err, &ie) && ie.File == tmp {
		ie.File = in.Path
	}
	return err
}

// parseFiltered parses in into a builder of its own and copies the rows of
// the kept cells into b, renumbering kernel and range ids.
func parseFiltered(b *Builder, in Input) error {
	sub := NewBuilder(b.Allocator())
	defer sub.Release()
	inner := in
	inner.Cells = nil
	if err := parseFile(sub, inner); err != nil {
		return err
	}
	t := sub.Finish()
	defer t.Release()
	return b.AppendCells(t, in.Cells)
}

// parseAll is the fill of Stream that parses every input into its Builder.
func parseAll(inputs []Input) func(*Builder) error {
	return func(b *Builder) error {
		for _, in := range inputs {
			if err := parseFile(b, in); err != nil {
				return err
			}
		}
		return nil
	}
}

// WriteFiles parses every input and persists the tables under dir as
// Tables.Write does (ingest.Stream: with Parquet, the rows are written as
// they are parsed, in bounded memory). Parse errors are returned as the
// parsers give them; failures to write are *WriteError.
func WriteFiles(inputs []Input, dir, format string, mem memory.Allocator) (*Written, error) {
	return Stream(dir, format, mem, nil, parseAll(inputs))
}

// WriteTemp ingests inputs as WriteFiles does, as Parquet, into the tables/
// folder of a new temporary directory named by pattern (os.MkdirTemp).
// Remove deletes the directory.
func WriteTemp(inputs []Input, pattern string) (*TempTables, error) {
	return StreamTemp(pattern, nil, parseAll(inputs))
}

// WriteTempKernels is WriteTemp for a reader of the kernels table alone:
// the other tables are written without rows, and the work of making their
// rows is left out where a parser can (an nsys export's NVTX ranges still
// attribute its kernels, but no ranges row is made).
func WriteTempKernels(inputs []Input, pattern string) (*TempTables, error) {
	return StreamTemp(pattern, []string{TableKernels}, parseAll(inputs))
}
