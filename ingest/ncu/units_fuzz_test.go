package ncu

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
)

// FuzzNCUUnits feeds a raw page units and values of any spelling: the
// parse either fails with an *InputError or takes every value in a unit
// convertUnit knows, with a kernel time in [0, 2^62] ns.
func FuzzNCUUnits(f *testing.F) {
	for _, s := range [][4]string{
		{"KB", "us", "5", "1.5"}, {"KiB", "ms", "5", "2"}, {"Mbyte", "nsecond", "1,024", "700"},
		{"furlong", "ns", "1", "1"}, {"byte", "furlong", "1", "1"}, {"byte", "", "1", "1"},
		{"byte", "ns", "n/a", "n/a"}, {"byte", "ns", "1", "99999999999999999999999"},
		{"Gbyte/s", "cycle", "1e3", "-1"}, {"B", "s", "", ""}, {"%", "usecond", "1", "1e300"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, unit, timeUnit, value, time string) {
		q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
		text := `"ID","Kernel Name","dram__bytes.sum","gpu__time_duration.sum"` + "\n" +
			`"","",` + q(unit) + "," + q(timeUnit) + "\n" +
			`"0","k",` + q(value) + "," + q(time) + "\n"
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		b := ingest.NewBuilder(mem)
		defer b.Release()
		err := parseNCU(b, "fuzz.csv", strings.NewReader(text), ingest.Options{})
		if err != nil {
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is %T, not an *InputError", err, err)
			}
			return
		}
		tb := b.Finish()
		defer tb.Release()
		for _, u := range []string{unit, timeUnit} {
			if !convertUnit(u).known && !strings.ContainsAny(u, "\r\n") {
				t.Errorf("unit %q is not known, yet the export was read", u)
			}
		}
		for _, k := range tb.Kernels() {
			if k.Null&ingest.NullDuration != 0 || k.DurationNs < 0 || k.DurationNs > ncuMaxDurationNs {
				t.Errorf("kernel time %d ns (null %v) from %q %q", k.DurationNs, k.Null&ingest.NullDuration != 0, time, timeUnit)
			}
		}
	})
}
