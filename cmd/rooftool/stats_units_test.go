package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// statsNCU writes a raw-page ncu export with the given units row and
// kernel rows (ID, Kernel Name, then the metric columns of hdr).
func statsNCU(t *testing.T, name, hdr, units string, rows ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	text := hdr + "\n" + units + "\n" + strings.Join(rows, "\n") + "\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// stats reads ncu values in the unit the export states, and refuses what
// it cannot read instead of printing 0 ns or a wrapped sum: exit 2 with
// the file, line and column.
func TestStatsNCUUnits(t *testing.T) {
	hdr := `"ID","Kernel Name","dram__bytes_read.sum","gpu__time_duration.sum"`
	// 1.5 us = 1500 ns and 2 us = 2000 ns: total 3500, two instances.
	ok := statsNCU(t, "us.csv", hdr, `"","","KB","us"`, `"0","k1","5","1.5"`, `"1","k1","5","2"`)
	recs := readCSV(t, runStatsCmd(t, "--format", "csv", ok))
	if len(recs) != 2 || recs[1][1] != "3500" || recs[1][2] != "2" || recs[1][5] != "1500" || recs[1][6] != "2000" {
		t.Errorf("us export: %v, want total 3500 ns over 2, min 1500, max 2000", recs)
	}
	for _, c := range []struct {
		name, units string
		rows        []string
		want        []string
	}{
		{"furlong", `"","","byte","furlong"`, []string{`"0","k1","5","1000"`}, []string{"furlong.csv:2:", `column 4 "gpu__time_duration.sum"`, `unknown unit "furlong"`}},
		{"na", `"","","byte","ns"`, []string{`"0","k1","5","1000"`, `"1","k1","5","n/a"`}, []string{"na.csv:4:", `column 4 "gpu__time_duration.sum"`, `"n/a" is not a number`}},
		{"empty", `"","","byte","ns"`, []string{`"0","k1","5",""`}, []string{"empty.csv:3:", `column 4 "gpu__time_duration.sum"`}},
		{"overflow", `"","","byte","ns"`, []string{`"0","k1","5","99999999999999999999999"`, `"1","k1","5","1000"`}, []string{"overflow.csv:3:", "out of range"}},
		// Three kernels of 4e18 ns, each under the 2^62 ns limit, sum to
		// 1.2e19 ns, past int64's 9,223,372,036,854,775,807.
		{"sum", `"","","byte","ns"`, []string{`"0","k1","5","4000000000000000000"`, `"1","k1","5","4000000000000000000"`, `"2","k1","5","4000000000000000000"`}, []string{"sum.csv", "sum past"}},
	} {
		f := statsNCU(t, c.name+".csv", hdr, c.units, c.rows...)
		var o, e bytes.Buffer
		code := run(context.Background(), []string{"stats", "--format", "csv", f}, &IO{Out: &o, Err: &e})
		if code != 2 || o.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q; want 2 and nothing", c.name, code, o.String())
		}
		for _, w := range c.want {
			if !strings.Contains(e.String(), w) {
				t.Errorf("%s: stderr %q, want %q", c.name, e.String(), w)
			}
		}
	}
}

// Without gpu__time_duration.sum stats takes the time from
// sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second and says so:
// 1500 cycle / 1.5 cycle/nsecond = 1000 ns, 3000 / 1.5 = 2000 ns; with
// neither it says the kernels have no time (exit 2) instead of 0 ns.
func TestStatsNCUTimeFallback(t *testing.T) {
	f := statsNCU(t, "cycles.csv", `"ID","Kernel Name","sm__cycles_elapsed.avg","sm__cycles_elapsed.avg.per_second"`,
		`"","","cycle","cycle/nsecond"`, `"0","k1","1500","1.5"`, `"1","k1","3000","1.5"`)
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"stats", "--format", "csv", f}, &IO{Out: &o, Err: &e}); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	recs := readCSV(t, o.String())
	if len(recs) != 2 || recs[1][1] != "3000" || recs[1][5] != "1000" || recs[1][6] != "2000" {
		t.Errorf("rows %v, want total 3000 ns, min 1000, max 2000", recs)
	}
	if !strings.Contains(e.String(), "warning: cycles.csv: kernel times from sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second") {
		t.Errorf("stderr %q: want a warning naming where the time came from", e.String())
	}
	f = statsNCU(t, "notime.csv", `"ID","Kernel Name","dram__bytes_read.sum"`, `"","","byte"`, `"0","k1","5"`)
	o.Reset()
	e.Reset()
	code := run(context.Background(), []string{"stats", "--format", "csv", f}, &IO{Out: &o, Err: &e})
	if code != 2 || o.Len() != 0 || !strings.Contains(e.String(), "have no time") || !strings.Contains(e.String(), "notime.csv") {
		t.Errorf("no time: exit %d, stdout %q, stderr %q; want 2, nothing, and have no time", code, o.String(), e.String())
	}
}

// Inputs without kernels, or options that leave none, are bad input
// (exit 2, saying why), as an nsys export without a kernel table is, not
// a header-only table with exit 0.
func TestStatsNothingToSummarise(t *testing.T) {
	dir := t.TempDir()
	empty := copyExport(t, statsRealdata+"gpu4/report.sqlite", "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL")
	kineto := filepath.Join(dir, "nokernels.json")
	if err := os.WriteFile(kineto, []byte(`{"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"c","ts":1,"dur":1,"args":{"correlation":1}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{empty}, "no kernels: the inputs hold no kernel launches"},
		{[]string{kineto}, "nokernels.json: table traceEvents: holds no kernel events"},
		{[]string{"--range", "nomatch", statsRealdata + "gpu4/report.sqlite"}, `no kernels with --range "nomatch"`},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), append([]string{"stats", "--format", "csv"}, c.args...), &IO{Out: &o, Err: &e})
		if code != 2 || o.Len() != 0 || !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, and %q", c.args, code, o.String(), e.String(), c.want)
		}
	}
}

// roofline reads ncu exports through the same conversion as stats and
// ingest: a unit it does not know is the same error, not bytes or ns.
func TestRooflineNCUUnknownUnit(t *testing.T) {
	f := statsNCU(t, "furlong.csv", `"ID","Kernel Name","dram__bytes_read.sum","gpu__time_duration.sum"`, `"","","Kfurlong","ns"`, `"0","k1","5","1000"`)
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"roofline", f, "--gpu", "h100", "-o", filepath.Join(t.TempDir(), "out")}, &IO{Out: &o, Err: &e})
	want := "rooftool: roofline: " + f + `:2: units row, column 3 "dram__bytes_read.sum": unknown unit "Kfurlong"`
	if code != 2 || !strings.HasPrefix(e.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, e.String(), want)
	}
}
