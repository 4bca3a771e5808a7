package ncu

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
)

// FuzzNCUCSV feeds arbitrary bytes to the ncu CSV parser. It must never
// panic, must fail only with an *InputError, and must leave tables whose
// columns agree in length. The seed corpus is every real ncu CSV under
// testdata/realdata and testdata/runs plus small hand-made cases; it runs in
// plain go test.
func FuzzNCUCSV(f *testing.F) {
	seeds, _ := filepath.Glob(realdata + "*/*.csv")
	if len(seeds) < 5 {
		f.Fatalf("found %d real ncu CSVs, want 5", len(seeds))
	}
	seeds = append(seeds, ncuRunCaptures()...) // rooftool's own captures, when committed
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"==PROF== x\n",
		`"ID","Kernel Name","x"` + "\n" + `"","","byte"` + "\n" + `"0","k","1,000"` + "\n",
		`"ID","Kernel Name","Metric Name","Metric Value","Rule Name","Estimated Speedup"` + "\n" + `"0","k","","","R","1"` + "\n",
		`"ID","Kernel Name","` + nvtxCol + `"` + "\n" + `"","",""` + "\n" + `"0","k","1 ""<d>:a:b"" ""x"`,
		"ID,Kernel Name\n0,k\n\"1\",\"k\nmulti\"\n==PROF== in the middle\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		b := ingest.NewBuilder(mem)
		err := parseNCU(b, "fuzz.csv", bytes.NewReader(data), ingest.Options{})
		if err != nil {
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error is %T, not *InputError: %v", err, err)
			}
		}
		tb := b.Finish()
		b.Release()
		for _, name := range ingest.TableNames {
			rec := tb.Record(name)
			for i := 0; i < int(rec.NumCols()); i++ {
				if rec.Column(i).Len() != int(rec.NumRows()) {
					t.Fatalf("table %s column %d has %d rows, record %d", name, i, rec.Column(i).Len(), rec.NumRows())
				}
			}
		}
		if err == nil {
			// Every metric row points at a kernel row of this parse.
			nk := tb.NumRows(ingest.TableKernels)
			for _, m := range tb.Metrics() {
				if m.KernelID < 0 || m.KernelID >= nk {
					t.Fatalf("metric %q points at kernel %d of %d", m.Name, m.KernelID, nk)
				}
			}
		}
		tb.Release()
		mem.AssertSize(t, 0)
	})
}

// FuzzNCURecords checks ncuRecords against encoding/csv (FieldsPerRecord
// = -1) on input that has no ncu message lines: the same records, and an
// error where encoding/csv has one.
func FuzzNCURecords(f *testing.F) {
	seeds, _ := filepath.Glob(realdata + "*/*.csv")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if i := bytes.Index(b, []byte(`"ID"`)); i >= 0 {
			f.Add(b[i:])
		}
	}
	for _, s := range []string{
		`"a","b"` + "\n" + `"1",""` + "\n",
		`"a","b",` + "\n",
		`"a""x","b"` + "\r\n" + `"1","2"`,
		`"a","b` + "\n" + `c"` + "\n" + `"d"` + "\n",
		`"a" ,"b"` + "\n",
		`"a",b` + "\n" + `c,"d"` + "\n",
		`"a","b` + "\r\n" + `c"` + "\n",
		`"a"` + "\n\n\r\n" + `"b"`,
		`"a","` + "\r" + `"` + "\n",
		`"x"y"` + "\n",
		`""` + "\n" + `"",""` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' || bytes.Contains(data, []byte("\n=")) || bytes.Contains(data, []byte("\n ")) || bytes.Contains(data, []byte("\n\t")) {
			t.Skip("ncu message lines and leading blanks are handled apart from CSV")
		}
		want := csv.NewReader(bytes.NewReader(data))
		want.FieldsPerRecord = -1
		got := newNCURecords(bytes.NewReader(data))
		for n := 0; ; n++ {
			w, werr := want.Read()
			g, gerr := got.Read()
			if werr != nil || gerr != nil {
				if (werr == io.EOF) != (gerr == io.EOF) || (werr == nil) != (gerr == nil) {
					t.Fatalf("record %d: csv error %v, ncuRecords error %v (csv %q, ncu %q)", n, werr, gerr, w, g)
				}
				return
			}
			if !slices.Equal(w, g) {
				t.Fatalf("record %d: csv %q, ncuRecords %q", n, w, g)
			}
			if wl, _ := want.FieldPos(0); wl != got.recLine {
				t.Fatalf("record %d: csv line %d, ncuRecords line %d", n, wl, got.recLine)
			}
		}
	})
}
