package launch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/runtables"
)

// TestIngestRecordsTableDigests: a run's ingest records in manifest.json the
// SHA-256 of every file it wrote under tables/, as sha256 of the files on
// disk gives them.
func TestIngestRecordsTableDigests(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants, cfg.Shapes = []string{"good"}, []string{"n=1"}
	cfg.Passes = []string{rundir.PassTiming}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	m, err := rundir.ReadManifest(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(cfg.RunDir, rundir.TablesDir))
	if err != nil || len(ents) == 0 {
		t.Fatalf("tables: %v, %d files", err, len(ents))
	}
	if len(m.TableDigests) != len(ents) {
		t.Fatalf("manifest table_digests has %d files, tables/ %d", len(m.TableDigests), len(ents))
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(cfg.RunDir, rundir.TablesDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got, want := m.TableDigests[e.Name()], hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: manifest %s, file %s", e.Name(), got, want)
		}
	}
}

// TestReingestCellOrder: the tables ingest writes do not depend on the
// order a manifest lists its cells in (an older binary wrote them
// unsorted; Manifest.Write sorts them): ingesting again after the manifest
// was rewritten gives the same bytes. The run's four cells (two variants at
// two shapes, timing pass) are listed reversed.
func TestReingestCellOrder(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants, cfg.Shapes = []string{"good", "after"}, []string{"n=1", "n=2"}
	cfg.Passes = []string{rundir.PassTiming}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	m, err := rundir.ReadManifest(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(m.Cells))
	}
	slices.Reverse(m.Cells)
	a, err := runtables.Ingest(cfg.RunDir, m)
	if err != nil || len(a) > 0 {
		t.Fatalf("ingest: %v %q", err, a)
	}
	reversed := maps.Clone(m.TableDigests)
	if _, _, err := runtables.Reingest(cfg.RunDir); err != nil { // reads the manifest Run wrote, cells sorted
		t.Fatal(err)
	}
	sorted, err := rundir.ReadManifest(cfg.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if d := rundir.DigestsDiffer(reversed, sorted.TableDigests); len(d) > 0 {
		t.Errorf("cells listed reversed and sorted ingest to other tables: %s", strings.Join(d, ", "))
	}
}
