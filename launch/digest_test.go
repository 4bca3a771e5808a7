package launch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
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
