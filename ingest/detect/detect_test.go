package detect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// An nsys SQLite export renamed .nsys-rep is read as SQLite, not handed to
// nsys export: gpu4/report.sqlite's 4 vecAdd kernels, 22560 + 29055 +
// 33984 + 31071 = 116670 ns (sqlite3: SELECT sum(end - start) FROM
// CUPTI_ACTIVITY_KIND_KERNEL).
func TestSQLiteNamedNsysRep(t *testing.T) {
	data, err := os.ReadFile(ingesttest.Realdata + "gpu4/report.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "report.nsys-rep")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Format(p); err != nil || f != FormatNsysDB {
		t.Fatalf("Format = %q, %v; want %q", f, err, FormatNsysDB)
	}
	tb, err := File(p, ingest.Options{NCU: "", Nsys: "/nonexistent/nsys"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	var total int64
	for _, k := range tb.Kernels() {
		total += k.DurationNs
	}
	if n := len(tb.Kernels()); n != 4 || total != 116670 {
		t.Errorf("%d kernels, %d ns; want 4, 116670", n, total)
	}
}

// A Kineto trace starting with a UTF-8 byte-order mark is read as the
// same trace without it.
func TestKinetoByteOrderMark(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bom.json")
	if err := os.WriteFile(p, []byte("\xef\xbb\xbf"+ingesttest.KinetoArrayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := File(p, ingest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if ks := tb.Kernels(); len(ks) != 1 || ks[0].DurationNs != 2500 {
		t.Errorf("kernels %+v, want one of 2500 ns", ks)
	}
}

// "-" and a pipe are refused as what they are, not as an empty file.
func TestDetectPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo here:", err)
	}
	for path, want := range map[string]string{"-": "standard input is not read", fifo: "is not a regular file"} {
		_, err := Format(path)
		var ie *ingest.InputError
		if !errors.As(err, &ie) || ie.File != path || !strings.Contains(err.Error(), want) {
			t.Errorf("Format(%q) = %v; want an InputError saying %q", path, err, want)
		}
	}
}

// An ncu CSV that starts with a UTF-8 byte-order mark is detected and read.
func TestNCUByteOrderMark(t *testing.T) {
	text := `"ID","Process ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum"` + "\n" +
		`"","","","","","ns"` + "\n" + `"0","1","k(int)","(1, 1, 1)","(1, 1, 1)","10"` + "\n"
	for name, body := range map[string]string{"header": text, "prof": "==PROF== Connected\n" + text} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bom.csv")
			if err := os.WriteFile(p, []byte("\xef\xbb\xbf"+body), 0o644); err != nil {
				t.Fatal(err)
			}
			if f, err := Format(p); err != nil || f != FormatNCUCSV {
				t.Fatalf("Format = %q, %v; want %s", f, err, FormatNCUCSV)
			}
			tb := ingest1(t, p, ingest.Options{})
			ks := tb.Kernels()
			if len(ks) != 1 || ks[0].DurationNs != 10 || ks[0].Name != "k(int)" {
				t.Errorf("kernels = %+v", ks)
			}
		})
	}
}

// ingest1 parses one export with a checked allocator, failing the test on
// an error; the tables are released, and the allocator checked, when the
// test ends.
func ingest1(t *testing.T, path string, opts ingest.Options) *ingest.Tables {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	tb, err := File(path, opts, mem)
	if err != nil {
		t.Fatalf("ingest %s: %v", path, err)
	}
	t.Cleanup(tb.Release)
	return tb
}
