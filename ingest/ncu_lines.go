package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ncuLines is the io.Reader that sits between an ncu CSV export and
// encoding/csv. ncu writes its own messages (==PROF==, ==WARNING==,
// ==ERROR==) and, when stdout was captured, the application's output into
// the same stream as the table. Those lines are not CSV: ncuLines takes
// them out (they become meta rows) and remembers their line numbers so that
// errors found by the CSV reader can name the line of the original file.
//
// A line is only taken out where it starts a record (not inside a quoted
// field that spans lines). Before the table header any line that does not
// start like a CSV record ('"' or "ID,") is taken out too.
type ncuLines struct {
	r         *bufio.Reader
	pending   []byte // rest of the current line still to hand to csv
	line      int    // 1-based number of the line last read
	inQuote   bool   // inside a quoted field at the end of the data read so far
	lineStart bool   // the next byte read starts a line
	started   bool   // a CSV line has been passed through (header seen)
	skipped   []int  // original numbers of the lines taken out, ascending
	notes     []ncuNote
	err       error
}

// ncuNote is a line taken out of the stream.
type ncuNote struct {
	Line int
	Kind string // PROF, WARNING, ERROR, ... (the word between the ==), or "output"
	Text string // the rest of the line
}

func newNCULines(r io.Reader) *ncuLines {
	return &ncuLines{r: bufio.NewReaderSize(r, 64<<10), lineStart: true}
}

func (l *ncuLines) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.next()
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// next reads the next line (or the next piece of a line longer than the
// buffer) into pending, taking out lines that are not CSV.
func (l *ncuLines) next() {
	chunk, err := l.r.ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		l.err = err
	}
	if len(chunk) == 0 {
		return
	}
	start := l.lineStart
	complete := chunk[len(chunk)-1] == '\n'
	if start {
		l.line++
		if l.line == 1 {
			chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf"))
		}
	}
	if start && !l.inQuote {
		t := bytes.TrimLeft(chunk, " \t")
		switch {
		case bytes.HasPrefix(t, []byte("==")):
			l.takeOut(chunk, complete, ncuNoteKind(t))
			return
		case !l.started && !(len(bytes.TrimSpace(t)) == 0 || t[0] == '"' || bytes.HasPrefix(t, []byte("ID,"))):
			l.takeOut(chunk, complete, "output")
			return
		case len(bytes.TrimSpace(t)) > 0:
			l.started = true
		}
	}
	if bytes.Count(chunk, []byte{'"'})%2 == 1 {
		l.inQuote = !l.inQuote
	}
	l.lineStart = complete
	l.pending = chunk
}

// takeOut records a removed line; a line longer than the reader's buffer
// is read to its end.
func (l *ncuLines) takeOut(chunk []byte, complete bool, kind string) {
	text := append([]byte(nil), chunk...)
	for !complete && l.err == nil {
		more, err := l.r.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			l.err = err
		}
		if len(text) < 64<<10 { // keep at most 64 KiB of a runaway line
			text = append(text, more...)
		}
		complete = len(more) > 0 && more[len(more)-1] == '\n'
		if len(more) == 0 {
			break
		}
	}
	l.lineStart = true
	l.skipped = append(l.skipped, l.line)
	t := string(bytes.TrimSpace(text))
	if kind != "output" {
		t = string(bytes.TrimSpace(bytes.TrimPrefix([]byte(t), []byte("=="+kind+"=="))))
	}
	l.notes = append(l.notes, ncuNote{Line: l.line, Kind: kind, Text: t})
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

// origLine maps a line number of the filtered stream (as encoding/csv
// counts it) to the line of the original file.
func (l *ncuLines) origLine(n int) int {
	o := n
	for _, s := range l.skipped {
		if s <= o {
			o++
		} else {
			break
		}
	}
	return o
}
