package ingest

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Writing one format over a directory that holds the other replaces the
// whole table set: no table of the old format is left for readers.
func TestWriteReplacesOtherFormat(t *testing.T) {
	for _, c := range [][2]string{{FormatParquet, FormatArrow}, {FormatArrow, FormatParquet}} {
		t.Run(c[0]+"-then-"+c[1], func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := filepath.Join(t.TempDir(), "out")
			old := sampleTables(t, mem)
			defer old.Release()
			if err := old.Write(dir, c[0]); err != nil {
				t.Fatal(err)
			}
			// The second set differs: one kernel only.
			b := NewBuilder(mem)
			b.AddKernel(Kernel{Source: SourceNCU, File: "new.csv", Pass: PassKernel, Name: "new", ShortName: "new"})
			nt := b.Finish()
			b.Release()
			defer nt.Release()
			if err := nt.Write(dir, c[1]); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
				if strings.HasSuffix(e.Name(), "."+c[0]) {
					t.Errorf("stale %s left in %s", e.Name(), dir)
				}
			}
			if len(ents) != len(TableNames) {
				t.Errorf("dir holds %v, want the %d tables only", names, len(TableNames))
			}
			if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
				t.Errorf("parent holds %d entries, want only %s (temp dir left behind?)", len(ents), dir)
			}
			got, err := ReadDir(dir, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if n := got.NumRows(TableKernels); n != 1 {
				t.Errorf("read %d kernels, want the 1 of the new set", n)
			}
		})
	}
}

// A directory holding both formats of one table is refused, naming both.
func TestReadDirBothFormats(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := sampleTables(t, mem)
	defer tb.Release()
	dir, other := t.TempDir(), t.TempDir()
	if err := tb.Write(dir, FormatParquet); err != nil {
		t.Fatal(err)
	}
	if err := tb.Write(other, FormatArrow); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(other, "metrics.arrow"), filepath.Join(dir, "metrics.arrow"), -1)
	got, err := ReadDir(dir, mem)
	if err == nil {
		got.Release()
		t.Fatal("ReadDir read a directory with metrics.parquet and metrics.arrow")
	}
	for _, want := range []string{filepath.Join(dir, "metrics.parquet"), filepath.Join(dir, "metrics.arrow")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to name %s", err, want)
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
			if f, err := Detect(p); err != nil || f != FormatNCUCSV {
				t.Fatalf("Detect = %q, %v; want %s", f, err, FormatNCUCSV)
			}
			tb := ingestNCU(t, p, Options{})
			ks := tb.Kernels()
			if len(ks) != 1 || ks[0].DurationNs != 10 || ks[0].Name != "k(int)" {
				t.Errorf("kernels = %+v", ks)
			}
		})
	}
}

// Negative durations and counts, and duplicate header columns, are errors
// naming the file, the line and the column.
func TestNCUImpossibleValues(t *testing.T) {
	hdr := `"ID","Process ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum","dram__bytes.sum","launch__registers_per_thread","sm__throughput.avg.pct_of_peak_sustained_elapsed"` + "\n"
	units := `"","","","","","ns","byte","register/thread","%"` + "\n"
	long := `"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n"
	cases := []struct {
		name, text string
		line       int
		want       []string
	}{
		{"negative duration", hdr + units + `"0","1","k","(1, 1, 1)","(1, 1, 1)","-10","20","32","5"` + "\n", 3,
			[]string{`"gpu__time_duration.sum"`, "negative"}},
		{"negative bytes", hdr + units + `"0","1","k","(1, 1, 1)","(1, 1, 1)","10","20","32","5"` + "\n" + `"1","1","k","(1, 1, 1)","(1, 1, 1)","10","-2","32","5"` + "\n", 4,
			[]string{`"dram__bytes.sum"`, "negative"}},
		{"negative registers", hdr + units + `"0","1","k","(1, 1, 1)","(1, 1, 1)","10","20","-32","5"` + "\n", 3,
			[]string{`"launch__registers_per_thread"`, "negative"}},
		{"long negative duration", long + `"0","k","s","Duration","usecond","-1.5"` + "\n", 2,
			[]string{`"Duration"`, "negative"}},
		{"long negative cycles", long + `"0","k","s","sm__cycles_elapsed.avg","cycle","1"` + "\n" + `"0","k","s","sm__cycles_active.avg","Kcycle","-3"` + "\n", 3,
			[]string{`"sm__cycles_active.avg"`, "negative"}},
		{"duplicate column", `"ID","Kernel Name","dram__bytes.sum","dram__bytes.sum"` + "\n" + `"","","byte","byte"` + "\n", 1,
			[]string{`duplicate column "dram__bytes.sum"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantNCUInputError(t, c.text, c.line, c.want)
		})
	}
	// A negative value of a metric that may be negative (no count unit)
	// stays a number.
	ok := hdr + units + `"0","1","k","(1, 1, 1)","(1, 1, 1)","10","20","32","-5"` + "\n"
	if _, err := ncuString(t, "ok.csv", ok, Options{}); err != nil {
		t.Errorf("negative percentage refused: %v", err)
	}
}

// Negative kernel durations and counts in an nsys export are errors naming
// the table, the row id and the column.
func TestNsysImpossibleValues(t *testing.T) {
	for _, c := range []struct {
		name, update, col, table string
	}{
		{"end before start", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 5 WHERE rowid = 3`, `"end"`, tabKernel},
		{"negative grid", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = -1 WHERE rowid = 3`, `"gridX"`, tabKernel},
		{"negative block", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET blockY = -2 WHERE rowid = 3`, `"blockY"`, tabKernel},
		{"negative shared", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET dynamicSharedMemory = -1024 WHERE rowid = 3`, `"dynamicSharedMemory"`, tabKernel},
		{"negative registers", `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET registersPerThread = -32 WHERE rowid = 3`, `"registersPerThread"`, tabKernel},
		{"nvtx end before start", `UPDATE NVTX_EVENTS SET end = start - 1 WHERE rowid = 3`, `"end"`, tabNVTX},
		{"graph end before start", `CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INT, end INT, correlationId INT, globalPid INT, graphId INT);
			INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (10, 20, 1, 0, 1), (30, 25, 2, 0, 1), (40, 50, 3, 0, 1)`, `"end"`, tabGraph},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "neg.sqlite")
			synthDB(t, p, true)
			db, err := sql.Open("sqlite3", p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(c.update); err != nil {
				t.Fatal(err)
			}
			db.Close()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tb, err := File(p, Options{}, mem)
			if err == nil {
				tb.Release()
				t.Fatal("no error")
			}
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != p || ie.Table != c.table {
				t.Fatalf("err = %v, want an InputError naming %s and table %s", err, p, c.table)
			}
			row := "row id 3"
			if c.table == tabGraph {
				row = "row id 2"
			}
			for _, w := range []string{row, c.col, "negative"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// A kernel whose name id has no StringIds row gets a name marked unknown
// (one per missing id) and a warning meta row, not an empty name.
func TestNsysMissingStringID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nostring.sqlite")
	synthDB(t, p, true)
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM StringIds WHERE id IN (4, 5)`); err != nil { // k2's demangled and short names
		t.Fatal(err)
	}
	db.Close()
	tb := ingestNCU(t, p, Options{})
	var unknown int
	for _, k := range tb.Kernels() {
		if k.Name == "" || k.ShortName == "" {
			t.Errorf("kernel %d has an empty name: %+v", k.ID, k)
		}
		if strings.Contains(k.Name, "unknown") {
			unknown++
			if !strings.Contains(k.Name, "4") || !strings.Contains(k.ShortName, "5") {
				t.Errorf("kernel %d: name %q short %q, want them to carry the missing ids 4 and 5", k.ID, k.Name, k.ShortName)
			}
		}
	}
	if unknown != 5 {
		t.Errorf("%d kernels marked unknown, want 5", unknown)
	}
	var warned bool
	for _, m := range tb.Metas() {
		if m.Key == "warning" && strings.Contains(m.Value, tabStrings) && strings.Contains(m.Value, "4") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning meta row names the missing StringIds id; metas: %+v", tb.Metas())
	}
}

// A timing JSON that starts with a byte-order mark is read too.
func TestTimingByteOrderMark(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.json")
	body := `{"rooftool_timing": 1, "experiment": "e", "variant": "v", "shape": "M=1", "method": "wall", "samples_ms": [0.5, 0.25]}`
	if err := os.WriteFile(p, []byte("\xef\xbb\xbf"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := ingestNCU(t, p, Options{})
	if n := tb.NumRows(TableTimings); n != 2 {
		t.Errorf("%d timing rows, want 2", n)
	}
}

// wantNCUInputError parses text as the ncu export bad.csv and wants an
// *InputError naming that file and line, whose message holds every want.
func wantNCUInputError(t *testing.T, text string, line int, want []string) {
	t.Helper()
	_, err := ncuString(t, "bad.csv", text, Options{})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want *InputError", err)
	}
	if ie.File != "bad.csv" || ie.Line != line {
		t.Errorf("err = %q (line %d), want line %d", err, ie.Line, line)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %q, want it to contain %q", err, w)
		}
	}
}
