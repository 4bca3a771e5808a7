package detect

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

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/kineto"
	"github.com/rooftool/rooftool/ingest/ncu"
	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/ingest/timing"
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
func Files(inputs []ingest.Input, mem memory.Allocator) (*ingest.Tables, error) {
	b := ingest.NewBuilder(mem)
	defer b.Release()
	if err := parseAll(inputs)(b); err != nil {
		return nil, err
	}
	return b.Finish(), nil
}

// File parses one export into tables of its own.
func File(path string, opts ingest.Options, mem memory.Allocator) (*ingest.Tables, error) {
	return Files([]ingest.Input{{Path: path, Options: opts}}, mem)
}

// Format names the format of the export at path (one of the Format
// constants) from its contents and, for the binary Nsight reports, its
// extension.
func Format(path string) (string, error) {
	if path == "-" {
		return "", ingest.BadInput(path, 0, "", "standard input is not read: exports are read from files; save it to one first (e.g. ... > export.csv) and give its path")
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", &ingest.InputError{File: path, Err: errors.Unwrap(err)}
	}
	if st.IsDir() {
		return "", ingest.BadInput(path, 0, "", "is a directory, expected an export file (ncu CSV, nsys SQLite, Kineto JSON)")
	}
	if !st.Mode().IsRegular() {
		// A pipe or device is read once; the parsers read an export more
		// than once (its kind first, then its rows).
		return "", ingest.BadInput(path, 0, "", "is not a regular file (%s): exports are read from files; save it to one first (e.g. ... > export.csv)", st.Mode().Type())
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
		return "", ingest.BadInput(path, 0, "", "empty file, expected an export (ncu CSV, nsys SQLite, Kineto JSON)")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", &ingest.InputError{File: path, Err: errors.Unwrap(err)}
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
			return "", ingest.BadInput(path, 0, "", "gzip header: %v", err)
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
		return "", ingest.BadInput(path, 0, "", "gzip file holds neither a JSON trace, an ncu CSV nor an nsys SQLite export")
	}
	t := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	if len(t) == 0 {
		return "", ingest.BadInput(path, 0, "", "file holds only white space, expected an export")
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
		return "", ingest.BadInput(path, 0, "", "binary file of unknown kind, expected an export (ncu CSV, nsys SQLite, Kineto JSON)")
	}
	return "", ingest.BadInput(path, 1, "", "not a known export: expected an ncu CSV (header starting with \"ID\"), an nsys SQLite or a Kineto JSON trace")
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

// parseFile parses in into b with the parser of its format, keeping only
// the kernels of in.Cells where that is set.
func parseFile(b *ingest.Builder, in ingest.Input) error {
	if len(in.Cells) > 0 {
		return parseFiltered(b, in)
	}
	defer b.Watch(in.Progress)()
	format, err := Format(in.Path)
	if err != nil {
		return err
	}
	switch format {
	case FormatNCUCSV, FormatNCUGz:
		return ncu.Parse(b, in)
	case FormatNCURep:
		return ncu.ParseRep(b, in)
	case FormatNsysDB:
		return nsys.Parse(b, in)
	case FormatNsysGz:
		return nsys.ParseGz(b, in)
	case FormatNsysRep:
		return nsys.ParseRep(b, in)
	case FormatKineto:
		return kineto.Parse(b, in)
	case FormatTiming:
		return timing.Parse(b, in)
	}
	return ingest.BadInput(in.Path, 0, "", "unsupported format %s", format)
}

// parseFiltered parses in into a builder of its own and copies the rows of
// the kept cells into b, renumbering kernel and range ids.
func parseFiltered(b *ingest.Builder, in ingest.Input) error {
	sub := ingest.NewBuilder(b.Allocator())
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

// parseAll is the fill of ingest.Stream that parses every input into its
// Builder.
func parseAll(inputs []ingest.Input) func(*ingest.Builder) error {
	return func(b *ingest.Builder) error {
		for _, in := range inputs {
			if err := parseFile(b, in); err != nil {
				return err
			}
		}
		return nil
	}
}

// WriteFiles parses every input and persists the tables under dir as
// ingest.Tables.Write does (the same files, staged and swapped in the same
// way: on any error dir is left as it was). With Parquet the rows are
// written as they are parsed, so that an export of any length is ingested
// in bounded memory (ingest.Stream). Parse errors are returned as the
// parsers give them; failures to write are *ingest.WriteError.
func WriteFiles(inputs []ingest.Input, dir, format string, mem memory.Allocator) (*ingest.Written, error) {
	return ingest.Stream(dir, format, mem, nil, parseAll(inputs))
}

// WriteTemp ingests inputs as WriteFiles does, as Parquet, into the tables/
// folder of a new temporary directory named by pattern (os.MkdirTemp).
// Remove deletes the directory.
func WriteTemp(inputs []ingest.Input, pattern string) (*ingest.TempTables, error) {
	return ingest.StreamTemp(pattern, nil, parseAll(inputs))
}

// WriteTempKernels is WriteTemp for a reader of the kernels table alone:
// the other tables are written without rows, and the work of making their
// rows is left out where a parser can (an nsys export's NVTX ranges still
// attribute its kernels, but no ranges row is made).
func WriteTempKernels(inputs []ingest.Input, pattern string) (*ingest.TempTables, error) {
	return ingest.StreamTemp(pattern, []string{ingest.TableKernels}, parseAll(inputs))
}
