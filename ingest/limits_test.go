package ingest

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"errors"
	"fmt"
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

// nsysRefusal ingests the synthetic export after the SQL in update and
// checks that it is refused as bad input naming the file, table and every
// text of want, and none of notWant.
func nsysRefusal(t *testing.T, update, table string, want []string, notWant ...string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hostile.sqlite")
	synthDB(t, p, true)
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(update); err != nil {
		t.Fatal(err)
	}
	db.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := File(p, Options{}, mem)
	if err == nil {
		defer tb.Release()
		t.Fatalf("no error; kernels %v", tb.Kernels())
	}
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != p || ie.Table != table {
		t.Fatalf("err = %v, want an InputError naming %s and table %q", err, p, table)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %q, want it to contain %q", err, w)
		}
	}
	for _, w := range notWant {
		if strings.Contains(err.Error(), w) {
			t.Errorf("err = %q, want it not to contain %q", err, w)
		}
	}
}

// A kernel start SQLite holds as -2^63 (the reader's stand-in for NULL)
// or as a REAL that is no 64-bit integer (1e30) or not a whole number
// (273296630.9 ns) is refused, naming the value, not called NULL nor
// truncated to 273296630.
func TestNsysStartValues(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        []string
	}{
		{"min int64", "-9223372036854775808", []string{"column start", "-9223372036854775808", "-2^63"}},
		{"real 1e30", "1e30", []string{"column start", "REAL 1e+30", "out of the range of a 64-bit integer"}},
		{"real fraction", "273296630.9", []string{"column start", "REAL 273296630.9", "not a whole number"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			nsysRefusal(t, `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = `+c.value+` WHERE rowid = 3`, tabKernel, c.want, "is NULL")
		})
	}
	// A REAL that is a whole number (nsys never writes one, but SQLite
	// may hold 600.0 for 600) is that integer: kernel 3 starts at 600 as
	// synthDB writes it.
	p := filepath.Join(t.TempDir(), "real.sqlite")
	synthDB(t, p, true)
	db, _ := sql.Open("sqlite3", p)
	if _, err := db.Exec(`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = CAST(600 AS REAL) WHERE rowid = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tb := ingestNCU(t, p, Options{})
	if k := tb.Kernels()[2]; k.StartNs != 600 || k.DurationNs != 10 {
		t.Errorf("kernel 3: start %d duration %d, want 600 and 10", k.StartNs, k.DurationNs)
	}
}

// A StringIds table (here without its primary key) that gives an id twice
// is refused: a kernel named by id 1 would be either name.
func TestNsysStringIdTwice(t *testing.T) {
	nsysRefusal(t, `ALTER TABLE StringIds RENAME TO s0; CREATE TABLE StringIds (id INT, value TEXT);
		INSERT INTO StringIds SELECT * FROM s0; INSERT INTO StringIds VALUES (1, 'another name'); DROP TABLE s0`,
		tabStrings, []string{"id 1 is given 2 times"})
}

// A StringIds value or an NVTX text past 1 MiB (1048578 bytes: hex of a
// 524289-byte blob) is refused naming the limit, without being read.
func TestNsysStringLimit(t *testing.T) {
	const big = `replace(hex(zeroblob(524289)), '0', 'x')`
	nsysRefusal(t, `UPDATE StringIds SET value = `+big+` WHERE id = 1`, tabStrings, []string{"id 1", "1048578 bytes", "limit of 1 MiB"})
	nsysRefusal(t, `UPDATE NVTX_EVENTS SET text = `+big+` WHERE text = 'fused'`, tabNVTX, []string{"1048578 bytes", "limit of 1 MiB"})
}

// NVTX ranges nested 1001 deep are refused at the depth limit (1000); a
// chain 1000 deep is read, its innermost range at depth 999.
func TestNsysNestDepth(t *testing.T) {
	const gA = int64(100)<<24 | 101
	chain := func(n int) string {
		return fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d)
			INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) SELECT 3000+i, 100000-i, 59, 'level', %d, 0 FROM c`, n-1, gA)
	}
	nsysRefusal(t, chain(1001), tabNVTX, []string{"nested 1001 deep", "limit of 1000 levels"})
	p := filepath.Join(t.TempDir(), "deep.sqlite")
	synthDB(t, p, true)
	db, _ := sql.Open("sqlite3", p)
	if _, err := db.Exec(chain(1000)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tb := ingestNCU(t, p, Options{})
	deepest := int32(-1)
	for _, r := range tb.Ranges() {
		deepest = max(deepest, r.Depth)
	}
	if deepest != 999 {
		t.Errorf("deepest range at depth %d, want 999", deepest)
	}
}

// DLProf's own database (read_only_* tables, no nsys kernel table) is
// named as such, not called "not an Nsight Systems export".
func TestDLProfDatabase(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dlprof_dldb.sqlite")
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE read_only_kernels (id INT, name TEXT)`, `CREATE TABLE read_only_ops (id INT)`, `CREATE TABLE domains (id INT)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	_, err = File(p, Options{}, memory.NewGoAllocator())
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != p || !strings.Contains(err.Error(), "a DLProf database (tables read_only_kernels, read_only_ops)") ||
		!strings.Contains(err.Error(), "ingest the nsys export") {
		t.Fatalf("err = %v, want an InputError naming a DLProf database", err)
	}
}

// Kineto traces: a key given twice in an event, its args or the top level
// is refused (encoding/json would keep the last, and two traceEvents would
// be merged); a trace without kernel events is refused as ErrNoKernels;
// a name past 1 MiB and annotations nested past 1000 are refused.
func TestKinetoHostile(t *testing.T) {
	ann := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"traceEvents":[`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `{"ph":"X","cat":"user_annotation","name":"a","pid":1,"tid":1,"ts":%d,"dur":%d},`, 10+i, 100000-2*i)
		}
		b.WriteString(`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5000,"dur":2}]}`)
		return b.String()
	}
	for _, c := range []struct {
		name, data, key, want string
	}{
		{"dur twice", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"dur":3}]}`, "traceEvents", `gives "dur" twice`},
		{"dur twice escaped", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"d\u0075r":3}]}`, "traceEvents", `gives "dur" twice`},
		{"args stream twice", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"args":{"stream":7,"stream":8}}]}`, "traceEvents", `args gives "stream" twice`},
		{"traceEvents twice", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}],"traceEvents":[{"ph":"X","cat":"kernel","name":"j","ts":1,"dur":2}]}`, "traceEvents", "holds this key twice"},
		{"no kernels", `{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"a","ts":1,"dur":2}]}`, "traceEvents", "holds no kernel events"},
		{"long name", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"` + strings.Repeat("k", MaxFieldBytes+1) + `","ts":1,"dur":2}]}`, "traceEvents", "name of 1048577 bytes, longer than the limit of 1 MiB"},
		{"deep", ann(1001), "traceEvents", "nested 1001 deep, past the limit of 1000 levels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder(memory.NewGoAllocator())
			defer b.Release()
			err := parseKineto(b, Input{Path: "bad.json"}, strings.NewReader(c.data))
			var ie *InputError
			if !errors.As(err, &ie) || ie.Table != c.key || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want an InputError for key %q saying %q", err, c.key, c.want)
			}
			if c.name == "no kernels" && !errors.Is(err, ErrNoKernels) {
				t.Errorf("err = %v, want ErrNoKernels", err)
			}
		})
	}
	// 1000 levels are read; a key repeated only in args rooftool does not
	// read, or in two events, is not a repeat.
	for _, ok := range []string{ann(1000),
		`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"args":{"x":1,"x":2}},{"ph":"X","cat":"kernel","name":"k","ts":5,"dur":2,"args":{"nested":{"dur":1,"dur":2}}}]}`} {
		b := NewBuilder(memory.NewGoAllocator())
		err := parseKineto(b, Input{Path: "ok.json"}, strings.NewReader(ok))
		b.Release()
		if err != nil {
			t.Errorf("err = %v, want none", err)
		}
	}
}

// One Kineto event of 256 MiB (its name) is refused at the value limit,
// 64 MiB, in bounded memory.
func TestKinetoValueLimit(t *testing.T) {
	var err error
	alloc := allocDuring(func() {
		b := NewBuilder(memory.NewGoAllocator())
		defer b.Release()
		r := &repeatReader{head: []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"dur":2,"name":"`), c: 'k', n: 256 << 20, tail: []byte(`"}]}`)}
		err = parseKineto(b, Input{Path: "big.json"}, r)
	})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "big.json" || !strings.Contains(err.Error(), "longer than the limit of 64 MiB") {
		t.Fatalf("err = %v, want an InputError naming the 64 MiB limit", err)
	}
	if alloc > 400<<20 {
		t.Errorf("refusing the event allocated %d MiB, want under 400 MiB", alloc>>20)
	}
}

// A meta value past 1 MiB is refused naming the table, without being read.
func TestNsysMetaLimit(t *testing.T) {
	nsysRefusal(t, `UPDATE META_DATA_EXPORT SET value = replace(hex(zeroblob(524289)), '0', 'x')`, "META_DATA_EXPORT", []string{"row id 1", "1048578 bytes", "limit of 1 MiB"})
}
