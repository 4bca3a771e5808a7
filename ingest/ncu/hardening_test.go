package ncu

import (
	"errors"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
)

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
	if _, err := ncuString(t, "ok.csv", ok, ingest.Options{}); err != nil {
		t.Errorf("negative percentage refused: %v", err)
	}
}

// wantNCUInputError parses text as the ncu export bad.csv and wants an
// *InputError naming that file and line, whose message holds every want.
func wantNCUInputError(t *testing.T, text string, line int, want []string) {
	t.Helper()
	_, err := ncuString(t, "bad.csv", text, ingest.Options{})
	var ie *ingest.InputError
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
