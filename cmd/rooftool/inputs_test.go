package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The same export given twice, by path or as a copy, is refused by ingest
// and stats (exit 2, naming both paths) instead of counting every kernel
// twice; nothing is written.
func TestSameInputTwice(t *testing.T) {
	src := statsRealdata + "gpu4/report.sqlite"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cp := filepath.Join(dir, "copy.sqlite")
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tables")
	for _, c := range []struct {
		args   []string
		second string
	}{
		{[]string{"ingest", src, cp, "-o", out}, cp},
		{[]string{"ingest", src, src, "-o", out}, src},
		{[]string{"stats", "--format", "csv", src, cp}, cp},
		{[]string{"roofline", src, cp, "-o", out}, cp},
		{[]string{"suggest", src, cp}, cp},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), c.args, &IO{Out: &o, Err: &e})
		if code != 2 || o.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", c.args, code, o.String())
		}
		want := c.second + ": has the same content as " + src
		if !strings.Contains(e.String(), want) {
			t.Errorf("%v: stderr %q, want %q", c.args, e.String(), want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was created", c.args, out)
		}
	}
}

// ingest -o into a run directory (RUN/tables, or RUN itself) is refused
// (exit 2) and leaves the run's files as they were; --force writes.
func TestIngestIntoRunRefused(t *testing.T) {
	src := statsRealdata + "gpu4/report.sqlite"
	run0 := t.TempDir()
	if err := os.WriteFile(filepath.Join(run0, "manifest.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tables := filepath.Join(run0, "tables")
	if err := os.Mkdir(tables, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(tables, "kernels.parquet")
	if err := os.WriteFile(stale, []byte("the run's"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{tables, run0, filepath.Join(tables, "sub")} {
		var o, e bytes.Buffer
		code := run(context.Background(), []string{"ingest", src, "-o", out}, &IO{Out: &o, Err: &e})
		if code != 2 || !strings.Contains(e.String(), "inside run directory "+run0) || !strings.Contains(e.String(), "--force") {
			t.Errorf("-o %s: exit %d, stderr %q; want 2 naming the run and --force", out, code, e.String())
		}
	}
	if b, _ := os.ReadFile(stale); string(b) != "the run's" {
		t.Errorf("the run's kernels table was replaced")
	}
	if _, err := os.Stat(filepath.Join(tables, "sub")); err == nil {
		t.Errorf("a refused -o was created")
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"ingest", "--force", src, "-o", tables}, &IO{Out: &o, Err: &e}); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, e.String())
	}
	if b, _ := os.ReadFile(stale); string(b) == "the run's" {
		t.Errorf("--force did not write the tables")
	}
}
