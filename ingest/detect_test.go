package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An nsys SQLite export renamed .nsys-rep is read as SQLite, not handed to
// nsys export: gpu4/report.sqlite's 4 vecAdd kernels, 22560 + 29055 +
// 33984 + 31071 = 116670 ns (sqlite3: SELECT sum(end - start) FROM
// CUPTI_ACTIVITY_KIND_KERNEL).
func TestSQLiteNamedNsysRep(t *testing.T) {
	data, err := os.ReadFile(nsysRealdata + "gpu4/report.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "report.nsys-rep")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Detect(p); err != nil || f != FormatNsysDB {
		t.Fatalf("Detect = %q, %v; want %q", f, err, FormatNsysDB)
	}
	tb, err := File(p, Options{NCU: "", Nsys: "/nonexistent/nsys"}, nil)
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
	if err := os.WriteFile(p, []byte("\xef\xbb\xbf"+kinetoArrayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := File(p, Options{}, nil)
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
		_, err := Detect(path)
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != path || !strings.Contains(err.Error(), want) {
			t.Errorf("Detect(%q) = %v; want an InputError saying %q", path, err, want)
		}
	}
}
