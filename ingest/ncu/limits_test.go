package ncu

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

const ncuLimitHdr = `"ID","Process ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum"` + "\n" +
	`"","","","","","ns"` + "\n"

// wantLimitErr checks that err is bad input naming file, line and the
// limit (its size printed in MiB).
func wantLimitErr(t *testing.T, err error, file string, line int, limit string) {
	t.Helper()
	var ie *ingest.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want an *InputError", err)
	}
	if ie.File != file || ie.Line != line || !strings.Contains(err.Error(), "limit of "+limit) {
		t.Fatalf("err = %q (file %q line %d), want %s line %d and \"limit of %s\"", err, ie.File, ie.Line, file, line, limit)
	}
}

// An ncu raw page whose kernel name is 256 MiB (one line) is refused at
// the line limit, 64 MiB, naming line 3, the line after the units row:
// bounded memory (far less than the 256 MiB the name would hold) and time.
func TestNCULineLimit(t *testing.T) {
	const name = 256 << 20
	var err error
	start := time.Now()
	alloc := ingesttest.AllocDuring(func() {
		b := ingest.NewBuilder(memory.NewGoAllocator())
		defer b.Release()
		r := &ingesttest.RepeatReader{Head: []byte(ncuLimitHdr + `"0","1","`), C: 'k', N: name, Tail: []byte(`","(1, 1, 1)","(1, 1, 1)","10"` + "\n")}
		err = parseNCU(b, "big.csv", r, ingest.Options{})
	})
	wantLimitErr(t, err, "big.csv", 3, "64 MiB")
	// The reader holds the line up to the limit, grown by doubling: about
	// 2 x 64 MiB handed out, well under the 256 MiB name.
	if alloc > 200<<20 {
		t.Errorf("refusing the line allocated %d MiB, want under 200 MiB", alloc>>20)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("refusing the line took %v", d)
	}
}

// A field over 1 MiB in a line under 64 MiB is refused at the field
// limit, naming its line and field (3: the kernel name).
func TestNCUFieldLimit(t *testing.T) {
	text := ncuLimitHdr + `"0","1","` + strings.Repeat("k", ingest.MaxFieldBytes+1) + `","(1, 1, 1)","(1, 1, 1)","10"` + "\n"
	_, err := ncuString(t, "f.csv", text, ingest.Options{})
	wantLimitErr(t, err, "f.csv", 3, "1 MiB")
	if !strings.Contains(err.Error(), "field 3") {
		t.Errorf("err = %v, want it to name field 3", err)
	}
	// A name of exactly 1 MiB is read.
	text = ncuLimitHdr + `"0","1","` + strings.Repeat("k", ingest.MaxFieldBytes) + `","(1, 1, 1)","(1, 1, 1)","10"` + "\n"
	tb, err := ncuString(t, "f.csv", text, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ks := tb.Kernels(); len(ks) != 1 || len(ks[0].Name) != 1<<20 {
		t.Errorf("kernels = %d, want 1 of a 1048576-byte name", len(ks))
	}
	// A quoted field spanning lines is bounded as one record.
	text = ncuLimitHdr + `"0","1","` + strings.Repeat("k\n", ingest.MaxFieldBytes/2+1) + `","(1, 1, 1)","(1, 1, 1)","10"` + "\n"
	_, err = ncuString(t, "f.csv", text, ingest.Options{})
	wantLimitErr(t, err, "f.csv", 3, "1 MiB")
}

// A gzipped ncu CSV that expands to a 512 MiB kernel name (512 KiB of
// gzip) is refused at the line limit without expanding the rest.
func TestNCUGzipLineLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bomb.csv.gz")
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := io.Copy(zw, &ingesttest.RepeatReader{Head: []byte(ncuLimitHdr + `"0","1","`), C: 'k', N: 512 << 20, Tail: []byte(`","(1, 1, 1)","(1, 1, 1)","10"` + "\n")}); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	alloc := ingesttest.AllocDuring(func() {
		var tb *ingest.Tables
		tb, err = ingesttest.File(parseExport, p, ingest.Options{}, memory.NewGoAllocator())
		if tb != nil {
			tb.Release()
		}
	})
	wantLimitErr(t, err, p, 3, "64 MiB")
	if alloc > 200<<20 {
		t.Errorf("refusing the gzip allocated %d MiB, want under 200 MiB", alloc>>20)
	}
}
