package ingest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// repeatReader yields head, then n bytes of c, then tail, without holding
// the n bytes: an export of any size at no cost to the test.
type repeatReader struct {
	head, tail []byte
	c          byte
	n          int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		switch {
		case len(r.head) > 0:
			m := copy(p[k:], r.head)
			r.head = r.head[m:]
			k += m
		case r.n > 0:
			m := int64(len(p) - k)
			if m > r.n {
				m = r.n
			}
			b := p[k : k+int(m)]
			for i := range b {
				b[i] = r.c
			}
			r.n -= m
			k += int(m)
		case len(r.tail) > 0:
			m := copy(p[k:], r.tail)
			r.tail = r.tail[m:]
			k += m
		default:
			if k == 0 {
				return 0, io.EOF
			}
			return k, nil
		}
	}
	return k, nil
}

// allocDuring is the bytes the Go heap handed out while f ran.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

const ncuLimitHdr = `"ID","Process ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum"` + "\n" +
	`"","","","","","ns"` + "\n"

// wantLimitErr checks that err is bad input naming file, line and the
// limit (its size printed in MiB).
func wantLimitErr(t *testing.T, err error, file string, line int, limit string) {
	t.Helper()
	var ie *InputError
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
	alloc := allocDuring(func() {
		b := NewBuilder(memory.NewGoAllocator())
		defer b.Release()
		r := &repeatReader{head: []byte(ncuLimitHdr + `"0","1","`), c: 'k', n: name, tail: []byte(`","(1, 1, 1)","(1, 1, 1)","10"` + "\n")}
		err = parseNCU(b, "big.csv", r, Options{})
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
	text := ncuLimitHdr + `"0","1","` + strings.Repeat("k", MaxFieldBytes+1) + `","(1, 1, 1)","(1, 1, 1)","10"` + "\n"
	_, err := ncuString(t, "f.csv", text, Options{})
	wantLimitErr(t, err, "f.csv", 3, "1 MiB")
	if !strings.Contains(err.Error(), "field 3") {
		t.Errorf("err = %v, want it to name field 3", err)
	}
	// A name of exactly 1 MiB is read.
	text = ncuLimitHdr + `"0","1","` + strings.Repeat("k", MaxFieldBytes) + `","(1, 1, 1)","(1, 1, 1)","10"` + "\n"
	tb, err := ncuString(t, "f.csv", text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ks := tb.Kernels(); len(ks) != 1 || len(ks[0].Name) != 1<<20 {
		t.Errorf("kernels = %d, want 1 of a 1048576-byte name", len(ks))
	}
	// A quoted field spanning lines is bounded as one record.
	text = ncuLimitHdr + `"0","1","` + strings.Repeat("k\n", MaxFieldBytes/2+1) + `","(1, 1, 1)","(1, 1, 1)","10"` + "\n"
	_, err = ncuString(t, "f.csv", text, Options{})
	wantLimitErr(t, err, "f.csv", 3, "1 MiB")
}

// A gzipped ncu CSV that expands to a 512 MiB kernel name (512 KiB of
// gzip) is refused at the line limit without expanding the rest.
func TestNCUGzipLineLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bomb.csv.gz")
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := io.Copy(zw, &repeatReader{head: []byte(ncuLimitHdr + `"0","1","`), c: 'k', n: 512 << 20, tail: []byte(`","(1, 1, 1)","(1, 1, 1)","10"` + "\n")}); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	alloc := allocDuring(func() {
		var tb *Tables
		tb, err = File(p, Options{}, memory.NewGoAllocator())
		if tb != nil {
			tb.Release()
		}
	})
	wantLimitErr(t, err, p, 3, "64 MiB")
	if alloc > 200<<20 {
		t.Errorf("refusing the gzip allocated %d MiB, want under 200 MiB", alloc>>20)
	}
}
