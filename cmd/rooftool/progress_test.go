package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressOffTerminal: where stderr is not a terminal (a pipe, a
// file, this buffer), ingest and stats print no progress: stderr holds
// their usual lines and nothing else.
func TestProgressOffTerminal(t *testing.T) {
	export := statsRealdata + "gpu4/report.sqlite"
	dir := filepath.Join(t.TempDir(), "tables")
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"ingest", export, "-o", dir}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, e.String())
	}
	// 12 ranges: the export's memory copies (sqlite3: select count(*) from
	// CUPTI_ACTIVITY_KIND_MEMCPY gives 12; it has no memset table and no NVTX).
	want := "ingested 1 file(s): 4 kernels, 0 metrics, 12 ranges, 0 timings -> " + dir + "\n"
	if e.String() != want || o.Len() != 0 {
		t.Errorf("ingest in a pipe: stderr %q, stdout %q; want stderr %q alone", e.String(), o.String(), want)
	}
	for _, in := range []string{export, dir} {
		o.Reset()
		e.Reset()
		if code := run(context.Background(), []string{"stats", in}, &IO{Out: &o, Err: &e}); code != exitOK {
			t.Fatalf("stats %s: exit %d: %s", in, code, e.String())
		}
		if e.Len() != 0 || !strings.HasPrefix(o.String(), "NVTX range: ") {
			t.Errorf("stats %s in a pipe: stderr %q (want nothing), stdout %q", in, e.String(), o.String())
		}
	}
}

// TestProgressOnTerminal: with stderr a terminal the same commands draw a
// progress line there (the export being read, its kernels), wiped before
// the command's own lines.
func TestProgressOnTerminal(t *testing.T) {
	export := statsRealdata + "gpu4/report.sqlite"
	dir := filepath.Join(t.TempDir(), "tables")
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"ingest", export, "-o", dir}, &IO{Out: &o, Err: &e, ErrIsTTY: true}); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, e.String())
	}
	s := e.String()
	if !strings.Contains(s, "reading report.sqlite: ") {
		t.Errorf("ingest on a terminal: no progress line in %q", s)
	}
	last := s[strings.LastIndexByte(s[:len(s)-1], '\r')+1:]
	if last != "ingested 1 file(s): 4 kernels, 0 metrics, 12 ranges, 0 timings -> "+dir+"\n" {
		t.Errorf("ingest on a terminal: the line after the wiped progress is %q", last)
	}
	o.Reset()
	e.Reset()
	if code := run(context.Background(), []string{"stats", export}, &IO{Out: &o, Err: &e, ErrIsTTY: true}); code != exitOK {
		t.Fatalf("stats: exit %d: %s", code, e.String())
	}
	if s := e.String(); !strings.Contains(s, "reading report.sqlite") || !strings.Contains(s, "summarising") || !strings.HasSuffix(s, "\r") {
		t.Errorf("stats on a terminal: stderr %q; want the progress lines, wiped at the end", s)
	}
}
