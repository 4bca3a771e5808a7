package ncu

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// ncuRecords reads the records of an ncu CSV export.
//
// ncu writes its own messages (==PROF==, ==WARNING==, ==ERROR==) and, when
// stdout was captured, the application's output into the same stream as the
// table. Those lines are not CSV: ncuRecords takes them out (they become
// meta rows). A line is only taken out where it starts a record; before the
// table header any line that does not start like a CSV record ('"' or
// "ID,") is taken out too.
//
// ncu quotes every field. Lines of that form ("a","b",...) are split here
// directly, which is several times faster than encoding/csv; any other line
// (unquoted fields, a quoted field spanning lines, a malformed quote) is
// handed to encoding/csv, so the records and errors are those of
// encoding/csv with FieldsPerRecord = -1 (FuzzNCURecords checks that).
type ncuRecords struct {
	r       *bufio.Reader
	line    int   // number of lines read
	recLine int   // first line of the record last returned
	offset  int64 // bytes read
	started bool  // the header (first CSV record) has been read
	notes   []ncuNote
	outputs int // "output" notes kept
	dropped int // "output" lines beyond maxOutputNotes, counted only
	rec     []string
	long    []byte // a line longer than the reader's buffer
	err     error
}

// ncuNote is a line taken out of the stream.
type ncuNote struct {
	Line int
	Kind string // PROF, WARNING, ERROR, ... (the word between the ==), or "output"
	Text string // the rest of the line
}

func newNCURecords(r io.Reader) *ncuRecords {
	return &ncuRecords{r: bufio.NewReaderSize(r, 64<<10)}
}

// readLine returns the next line with its end of line, valid until the next
// call; nil at the end of the input (r.err then says why).
func (r *ncuRecords) readLine() []byte {
	if r.err != nil {
		return nil
	}
	l, err := r.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(r.long) > ingest.MaxLineBytes {
				r.err = &tooLongError{Line: r.line + 1, What: "line", Limit: ingest.MaxLineBytes}
				return nil
			}
			l, err = r.r.ReadSlice('\n')
			if n := len(r.long) + len(l); n > cap(r.long) {
				// Double (append grows a large slice by a quarter, which
				// costs several times the line in copies).
				r.long = append(make([]byte, 0, max(n, min(2*cap(r.long), ingest.MaxLineBytes+len(l)+1))), r.long...)
			}
			r.long = append(r.long, l...)
		}
		l = r.long
	}
	if err != nil {
		r.err = err
	}
	if len(l) == 0 {
		return nil
	}
	r.line++
	r.offset += int64(len(l))
	if r.line == 1 {
		l = bytes.TrimPrefix(l, []byte("\xef\xbb\xbf"))
	}
	return l
}

// Read returns the next record; the slice is reused by the next call, the
// strings are not. At the end it returns io.EOF (or the read error).
func (r *ncuRecords) Read() ([]string, error) {
	for {
		l := r.readLine()
		if l == nil {
			if errors.Is(r.err, io.EOF) {
				return nil, io.EOF
			}
			return nil, r.err
		}
		body := trimEOL(l)
		if len(body) == 0 {
			continue // encoding/csv skips empty lines too
		}
		t := bytes.TrimLeft(body, " \t")
		switch {
		case bytes.HasPrefix(t, []byte("==")):
			r.note(ncuNoteKind(t), t)
			continue
		case !r.started && len(t) == 0:
			continue
		case !r.started && t[0] != '"' && !bytes.HasPrefix(t, []byte("ID,")):
			r.note("output", t)
			continue
		}
		r.started = true
		r.recLine = r.line
		if rec, ok := r.splitQuoted(body); ok {
			return rec, r.checkFields(rec, len(body))
		}
		rec, err := r.slow(l)
		if err == nil {
			err = r.checkFields(rec, ingest.MaxFieldBytes+1)
		}
		return rec, err
	}
}

// tooLongError is a line, record or field past its size limit.
type tooLongError struct {
	Line  int    // 1-based line where it starts
	What  string // "line", "record", "field N"
	Limit int    // bytes
}

func (e *tooLongError) Error() string {
	return fmt.Sprintf("%s longer than the limit of %s: not an export rooftool reads", e.What, ingest.SizeMiB(e.Limit))
}

// checkFields refuses a record with a field longer than MaxFieldBytes;
// n bounds the record's length (no field is longer when n is not).
func (r *ncuRecords) checkFields(rec []string, n int) error {
	if n <= ingest.MaxFieldBytes {
		return nil
	}
	for i, f := range rec {
		if len(f) > ingest.MaxFieldBytes {
			return &tooLongError{Line: r.recLine, What: fmt.Sprintf("field %d", i+1), Limit: ingest.MaxFieldBytes}
		}
	}
	return nil
}

func trimEOL(l []byte) []byte {
	if n := len(l); n > 0 && l[n-1] == '\n' {
		l = l[:n-1]
		if n := len(l); n > 0 && l[n-1] == '\r' {
			l = l[:n-1]
		}
	}
	return l
}

// maxOutputNotes caps the application output lines kept as meta rows.
const maxOutputNotes = 200

func (r *ncuRecords) note(kind string, t []byte) {
	if kind == "output" {
		if r.outputs >= maxOutputNotes {
			r.dropped++
			return
		}
		r.outputs++
	}
	s := strings.TrimSpace(string(t))
	if kind != "output" {
		s = strings.TrimSpace(strings.TrimPrefix(s, "=="+kind+"=="))
	}
	r.notes = append(r.notes, ncuNote{Line: r.line, Kind: kind, Text: s})
}

// splitQuoted splits a line made only of quoted fields. ok is false for
// anything else, which the caller hands to encoding/csv.
func (r *ncuRecords) splitQuoted(body []byte) ([]string, bool) {
	if len(body) == 0 || body[0] != '"' || bytes.IndexByte(body, '\r') >= 0 {
		return nil, false // \r: leave encoding/csv's handling of it to encoding/csv
	}
	s := string(body) // the fields share this one allocation
	rec := r.rec[:0]
	i := 0 // s[i] is the opening quote of a field
	for {
		j := i + 1
		esc := false
		for {
			k := strings.IndexByte(s[j:], '"')
			if k < 0 {
				return nil, false // the field goes on past the line
			}
			j += k
			if j+1 < len(s) && s[j+1] == '"' {
				esc = true
				j += 2
				continue
			}
			break
		}
		f := s[i+1 : j]
		if esc {
			f = strings.ReplaceAll(f, `""`, `"`)
		}
		rec = append(rec, f)
		j++ // past the closing quote
		if j == len(s) {
			break
		}
		if s[j] != ',' {
			return nil, false
		}
		j++
		if j == len(s) {
			rec = append(rec, "") // trailing comma: an empty last field
			break
		}
		if s[j] != '"' {
			return nil, false
		}
		i = j
	}
	r.rec = rec
	return rec, true
}

// slow parses the record that starts with line l through encoding/csv,
// reading further lines while a quoted field is open.
func (r *ncuRecords) slow(l []byte) ([]string, error) {
	chunk := append([]byte(nil), l...)
	for bytes.Count(chunk, []byte{'"'})%2 == 1 {
		more := r.readLine()
		if more == nil {
			if r.err != nil && !errors.Is(r.err, io.EOF) {
				return nil, r.err
			}
			break
		}
		if len(chunk)+len(more) > ingest.MaxLineBytes {
			return nil, &tooLongError{Line: r.recLine, What: "record (a quoted field spanning lines)", Limit: ingest.MaxLineBytes}
		}
		chunk = append(chunk, more...)
	}
	cr := csv.NewReader(bytes.NewReader(chunk))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			q := *pe
			q.StartLine += r.recLine - 1
			q.Line += r.recLine - 1
			return nil, &q
		}
		if errors.Is(err, io.EOF) {
			return r.Read() // the chunk held only what csv skips
		}
		return nil, err
	}
	r.rec = append(r.rec[:0], rec...)
	return r.rec, nil
}

// ncuNoteKind returns the word of an ncu message line "==WORD== ...", or
// "output" when the line does not have that form.
func ncuNoteKind(t []byte) string {
	rest := t[2:]
	i := bytes.Index(rest, []byte("=="))
	if i <= 0 || i > 16 {
		return "output"
	}
	for _, c := range rest[:i] {
		if !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && c != '_' && c != '-' {
			return "output"
		}
	}
	return string(rest[:i])
}

// InputOffset returns the number of bytes read so far.
func (r *ncuRecords) InputOffset() int64 { return r.offset }
