package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/nsys"
)

// An error names the command that ran, and advises --nsys / --ncu only
// where that command has the flag: stats, roofline and suggest read
// .nsys-rep / .ncu-rep through the same converters as ingest but have no
// such flag.
func TestErrorsNameTheCommand(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := nsys.Find(""); err == nil {
		t.Skip("nsys is installed here: a .nsys-rep would be converted")
	}
	dir := t.TempDir()
	rep := filepath.Join(dir, "x.nsys-rep")
	ncuRep := filepath.Join(dir, "y.ncu-rep")
	for _, p := range []string{rep, ncuRep} {
		if err := os.WriteFile(p, []byte("not a report"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte(`"ID","Kernel Name","gpu__time_duration.sum"`+"\n"+`"","","ns"`+"\n"+`"0","k","n/a"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       []string
		prefix     string
		flag       string // advised flag, "" for none
		notAdvised string
	}{
		{[]string{"stats", rep}, "rooftool: stats: " + rep + ": nsys not found", "", "--nsys"},
		{[]string{"suggest", rep}, "rooftool: suggest: " + rep + ": nsys not found", "", "--nsys"},
		{[]string{"roofline", ncuRep, "-o", filepath.Join(dir, "o")}, "rooftool: roofline: " + ncuRep + ": ncu not found", "", "--ncu"},
		{[]string{"ingest", rep, "-o", filepath.Join(dir, "t")}, "rooftool: ingest: " + rep + ": nsys not found", "--nsys", ""},
		{[]string{"ingest", ncuRep, "-o", filepath.Join(dir, "t")}, "rooftool: ingest: " + ncuRep + ": ncu not found", "--ncu", ""},
		{[]string{"stats", bad}, "rooftool: stats: " + bad + ":3: ", "", "ingest"},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), c.args, &IO{Out: &o, Err: &e})
		msg := e.String()
		if code == 0 || !strings.HasPrefix(msg, c.prefix) {
			t.Errorf("%v: exit %d, stderr %q; want it to start %q", c.args, code, msg, c.prefix)
		}
		if c.flag != "" && !strings.Contains(msg, "give its path with "+c.flag) {
			t.Errorf("%v: stderr %q does not advise %s", c.args, msg, c.flag)
		}
		if c.notAdvised != "" && strings.Contains(msg, c.notAdvised) {
			t.Errorf("%v: stderr %q mentions %s, which %s does not have", c.args, msg, c.notAdvised, c.args[0])
		}
	}
}
