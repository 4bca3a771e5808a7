package ncu

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
)

// ncuUnitsHdr is a raw page with one byte metric and the kernel time.
const ncuUnitsHdr = `"ID","Process ID","Kernel Name","Block Size","Grid Size","dram__bytes_read.sum","gpu__time_duration.sum"` + "\n"

// ncuUnitsRow is kernel id's row of ncuUnitsHdr.
func ncuUnitsRow(id, bytes, time string) string {
	return `"` + id + `","1","k","(1, 1, 1)","(1, 1, 1)","` + bytes + `","` + time + `"` + "\n"
}

// Values are converted by the unit the units row states: 5 KB = 5 * 1000
// byte and 5 KiB = 5 * 1024 byte (ncu's byte prefixes are decimal, units.go;
// the "i" spellings binary), 1.5 us = 1500 ns, 2 ms = 2,000,000 ns, 0.25
// cycle/nsecond = 250,000,000 Hz.
func TestNCUUnitsConverted(t *testing.T) {
	for _, c := range []struct {
		bytesUnit, timeUnit, bytes, time string
		wantBytes                        float64
		wantNs                           int64
	}{
		{"KB", "us", "5", "1.5", 5000, 1500},
		{"KiB", "ms", "5", "2", 5120, 2000000},
		{"MB", "ns", "2.5", "700", 2500000, 700},
		{"MiB", "s", "1", "0.000003", 1048576, 3000},
		{"B", "nsecond", "64", "10", 64, 10},
		{"Kbyte", "usecond", "3", "4", 3000, 4000},
	} {
		text := ncuUnitsHdr + `"","","","","","` + c.bytesUnit + `","` + c.timeUnit + `"` + "\n" + ncuUnitsRow("0", c.bytes, c.time)
		tb, err := ncuString(t, "u.csv", text, ingest.Options{})
		if err != nil {
			t.Errorf("%s/%s: %v", c.bytesUnit, c.timeUnit, err)
			continue
		}
		k := tb.Kernels()[0]
		if k.DurationNs != c.wantNs {
			t.Errorf("%s %s: duration %d ns, want %d", c.time, c.timeUnit, k.DurationNs, c.wantNs)
		}
		m := metricOf(t, tb.Metrics(), 0, "*", "dram__bytes_read.sum")
		if m.Unit != "byte" || m.Value != c.wantBytes {
			t.Errorf("%s %s: dram__bytes_read.sum = %v %s, want %v byte", c.bytes, c.bytesUnit, m.Value, m.Unit, c.wantBytes)
		}
	}
}

// An unknown unit, a missing units row, a time that is not a number and a
// time past 2^62 ns are errors naming the file, line and column; none is
// taken as ns or bytes, or counted as 0 ns.
func TestNCUUnitsRefused(t *testing.T) {
	units := `"","","","","","byte","nsecond"` + "\n"
	long := `"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n"
	cases := []struct {
		name, text string
		line       int
		want       []string
	}{
		{"unknown time unit", ncuUnitsHdr + `"","","","","","byte","furlong"` + "\n" + ncuUnitsRow("0", "5", "1000"), 2,
			[]string{`column 7 "gpu__time_duration.sum"`, `unknown unit "furlong"`}},
		{"unknown byte unit", ncuUnitsHdr + `"","","","","","Kfurlong","ns"` + "\n" + ncuUnitsRow("0", "5", "1000"), 2,
			[]string{`column 6 "dram__bytes_read.sum"`, `unknown unit "Kfurlong"`}},
		{"no units row", ncuUnitsHdr + ncuUnitsRow("0", "5", "1000"), 2,
			[]string{"no units row"}},
		{"time without unit", ncuUnitsHdr + `"","","","","","byte",""` + "\n" + ncuUnitsRow("0", "5", "1000"), 3,
			[]string{`column 7 "gpu__time_duration.sum"`, `not a time`}},
		{"time n/a", ncuUnitsHdr + units + ncuUnitsRow("0", "5", "1000") + ncuUnitsRow("1", "5", "n/a"), 4,
			[]string{`kernel 1, column 7 "gpu__time_duration.sum"`, `"n/a" is not a number`}},
		{"time empty", ncuUnitsHdr + units + ncuUnitsRow("0", "5", ""), 3,
			[]string{`column 7 "gpu__time_duration.sum"`, `"" is not a number`}},
		{"time overflow", ncuUnitsHdr + units + ncuUnitsRow("0", "5", "99999999999999999999999"), 3,
			[]string{`column 7 "gpu__time_duration.sum"`, "out of range"}},
		{"long unknown unit", long + `"0","k","s","dram__bytes.sum","furlong","1"` + "\n", 2,
			[]string{`column 5 "Metric Unit"`, `unknown unit "furlong"`}},
		{"long time n/a", long + `"0","k","s","gpu__time_duration.sum","nsecond","n/a"` + "\n", 2,
			[]string{`column 6 "Metric Value"`, `"n/a" is not a number`}},
		{"cycles over rate overflow", long + `"0","k","s","sm__cycles_elapsed.avg","cycle","1e30"` + "\n" +
			`"0","k","s","sm__cycles_elapsed.avg.per_second","cycle/second","1"` + "\n", 2,
			[]string{"out of range"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantNCUInputError(t, c.text, c.line, c.want)
		})
	}
}

// Without gpu__time_duration.sum the time is sm__cycles_elapsed.avg /
// sm__cycles_elapsed.avg.per_second: 1500 cycle / 1.5 cycle/nsecond =
// 1000 ns, and a warning meta row says where it came from. With neither
// the duration is null, not 0.
func TestNCUTimeFromCycles(t *testing.T) {
	hdr := `"ID","Kernel Name","sm__cycles_elapsed.avg","sm__cycles_elapsed.avg.per_second"` + "\n"
	tb, err := ncuString(t, "c.csv", hdr+`"","","cycle","cycle/nsecond"`+"\n"+`"0","k","1500","1.5"`+"\n", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k := tb.Kernels()[0]; k.DurationNs != 1000 || k.Null&ingest.NullDuration != 0 {
		t.Errorf("duration %d ns (null %v), want 1000", k.DurationNs, k.Null&ingest.NullDuration != 0)
	}
	var warned bool
	for _, m := range tb.Metas() {
		warned = warned || m.Key == "warning" && strings.Contains(m.Value, "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second")
	}
	if !warned {
		t.Errorf("no warning meta row: %+v", tb.Metas())
	}
	hdr = `"ID","Kernel Name","dram__bytes.sum"` + "\n"
	tb, err = ncuString(t, "n.csv", hdr+`"","","byte"`+"\n"+`"0","k","64"`+"\n", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k := tb.Kernels()[0]; k.Null&ingest.NullDuration == 0 {
		t.Errorf("kernel without a time has duration %d ns, want null", k.DurationNs)
	}
}
