package launch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/shard"
)

// mergedFake runs the fake sweep (two variants at two shapes, timing and
// ncu passes) in two shards and merges them; it returns the merged run.
func mergedFake(t *testing.T) string {
	t.Helper()
	cfg, _ := fakeEnv(t)
	cfg.Variants, cfg.Shapes = []string{"good", "after"}, []string{"n=1", "n=2"}
	cfg.Passes = []string{rundir.PassTiming, rundir.PassNCU}
	var dirs []string
	for i := 1; i <= 2; i++ {
		c := cfg
		c.Shard = shard.Part{Index: i, Count: 2}
		c.RunDir = fmt.Sprintf("%s.shard%d", cfg.RunDir, i)
		if _, err := Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, c.RunDir)
	}
	out := cfg.RunDir + ".merged"
	if _, _, err := shard.Merge(out, dirs, shard.MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckMerged: a merge records the content hash of every export each
// shard gave it, and shard.CheckMerged then holds the merged run to it with the
// shards gone: it passes as merged and after gzip -9 -n in place (how runs
// are committed), and names the file and the part where an export was
// overwritten with another's bytes, and the cell where a cell names
// another shard's export.
func TestCheckMerged(t *testing.T) {
	out := mergedFake(t)
	m, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.MergedFrom) != 2 {
		t.Fatalf("%d parts, want 2", len(m.MergedFrom))
	}
	// Each shard's ncu pass wrote raw/ncu/fake/part-1.csv: the second's is
	// named shard2-part-1.csv, and each part records its own.
	for i, want := range []string{"raw/ncu/fake/part-1.csv", "raw/ncu/fake/shard2-part-1.csv"} {
		if _, ok := m.MergedFrom[i].Files[want]; !ok {
			t.Fatalf("part %d records %v, want %s among them", i+1, m.MergedFrom[i].Files, want)
		}
	}
	if err := shard.CheckMerged(out); err != nil {
		t.Fatalf("as merged: %v", err)
	}

	// gzip -9 -n in place keeps the content: still passes.
	a := filepath.Join(out, "raw", "ncu", "fake", "part-1.csv")
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(a+".gz", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := shard.CheckMerged(out); err != nil {
		t.Fatalf("gzipped in place: %v", err)
	}

	// The first shard's export overwritten with the second's bytes.
	b := filepath.Join(out, "raw", "ncu", "fake", "shard2-part-1.csv")
	other, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(other, data) {
		t.Fatal("the two shards' ncu exports are the same bytes: the test tells nothing")
	}
	if err := os.WriteFile(a+".gz", other, 0o644); err != nil {
		t.Fatal(err)
	}
	err = shard.CheckMerged(out)
	if err == nil || !strings.Contains(err.Error(), "raw/ncu/fake/part-1.csv: its content is not what part "+filepath.Base(m.MergedFrom[0].Run)) {
		t.Errorf("overwritten export: %v", err)
	}
	if err := os.WriteFile(a+".gz", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// A cell of the second shard that names the first shard's export.
	var c *rundir.Cell
	for i := range m.Cells {
		if slices.Contains(m.Cells[i].Passes[rundir.PassNCU].Files, "raw/ncu/fake/shard2-part-1.csv") {
			c = &m.Cells[i]
			break
		}
	}
	if c == nil {
		t.Fatal("no cell names the second shard's ncu export")
	}
	st := c.Passes[rundir.PassNCU]
	st.Files = slices.Clone(st.Files)
	st.Files[slices.Index(st.Files, "raw/ncu/fake/shard2-part-1.csv")] = "raw/ncu/fake/part-1.csv"
	c.Passes[rundir.PassNCU] = st
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	err = shard.CheckMerged(out)
	want := fmt.Sprintf("cell fake/%s/%s: ncu pass names", c.Variant, c.Shape)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "raw/ncu/fake/part-1.csv of part") {
		t.Errorf("a cell naming the other shard's export: %v, want %q", err, want)
	}
}

// TestCheckMergedUnrecorded: a merge that recorded no part's files (made
// before merges did) cannot be checked, and says so.
func TestCheckMergedUnrecorded(t *testing.T) {
	out := mergedFake(t)
	m, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.MergedFrom {
		m.MergedFrom[i].Files = nil
	}
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	if err := shard.CheckMerged(out); !errors.Is(err, shard.ErrMergeUnrecorded) {
		t.Errorf("CheckMerged = %v, want ErrMergeUnrecorded", err)
	}
}
