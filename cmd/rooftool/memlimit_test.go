package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// -o naming a regular file, a character device (/dev/full) or a path
// below a file is bad usage (exit 2) naming the output, not a failure
// about a lock file.
func TestIngestOutputNotDir(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "plain")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := statsRealdata + "gpu4/report.sqlite"
	for _, c := range []struct{ out, want string }{
		{file, "is a regular file, not a directory"},
		{"/dev/full", "is a character device, not a directory"},
		{filepath.Join(file, "sub"), "a part of the path is a file"},
	} {
		if c.out == "/dev/full" {
			if _, err := os.Stat(c.out); err != nil {
				continue
			}
		}
		code, stderr := runIngestCmd("-o", c.out, good)
		if code != 2 || !strings.Contains(stderr, "-o "+c.out) || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "lock") {
			t.Errorf("-o %s: exit %d, stderr %q; want 2 naming the output and %q", c.out, code, stderr, c.want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the file given as -o was changed: %q", b)
	}
}

// An ingest whose tables do not fit under the memory limit (GOMEMLIMIT=48MiB;
// 300000 kernels of 20 metrics held in memory by --table-format arrow, over
// 6 million metric rows) ends with exit 1 and a message naming the limit,
// not exit 0 after the runtime outgrows the limit nor the runtime's own
// out-of-memory death (exit 2).
func TestIngestMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 90 MB export")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "big.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	var hdr, units strings.Builder
	hdr.WriteString(`"ID","Process ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum"`)
	units.WriteString(`"","","","","","ns"`)
	for m := 0; m < 20; m++ {
		fmt.Fprintf(&hdr, `,"dram__bytes_read.sum.m%d"`, m)
		units.WriteString(`,"byte"`)
	}
	fmt.Fprintf(f, "%s\n%s\n", hdr.String(), units.String())
	row := strings.Repeat(`,"123456"`, 20)
	for i := 0; i < 300000; i++ {
		fmt.Fprintf(f, `"%d","1","kernel_%d(float*, int)","(128, 1, 1)","(64, 1, 1)","1000"%s`+"\n", i, i, row)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "ingest", "--table-format", "arrow", "-o", filepath.Join(dir, "out"), p)
	cmd.Env = append(os.Environ(), asMainEnv+"=1", "GOMEMLIMIT=48MiB")
	out, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if code != 1 || !strings.Contains(string(out), "memory limit of 48 MiB (GOMEMLIMIT") {
		t.Fatalf("exit %d (%v), output %q; want exit 1 naming the 48 MiB limit", code, err, out)
	}
}

// A Kineto trace without kernel events is refused by ingest and stats
// alike: exit 2, saying it holds no kernel events.
func TestKinetoNoKernelsAgree(t *testing.T) {
	p := filepath.Join(t.TempDir(), "annotations.json")
	if err := os.WriteFile(p, []byte(`{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runIngestCmd("-o", filepath.Join(t.TempDir(), "out"), p)
	if code != 2 || !strings.Contains(stderr, "holds no kernel events") {
		t.Errorf("ingest: exit %d, stderr %q; want 2 saying the trace holds no kernel events", code, stderr)
	}
	var o, e strings.Builder
	code = run(context.Background(), []string{"stats", p}, &IO{Out: &o, Err: &e})
	if code != 2 || !strings.Contains(e.String(), "no kernel") {
		t.Errorf("stats: exit %d, stderr %q; want 2 saying there are no kernels", code, e.String())
	}
}
