package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// TestRooflineRunMasksFailedPasses: roofline on a run directory whose
// manifest marks dual-acc's nsys pass (and, apart, its ncu pass) failed
// draws the charts the report draws, byte for byte, and they differ from
// those of the same tables with every pass ok: the failed pass's rows give
// no point, kernel time or speedup.
func TestRooflineRunMasksFailedPasses(t *testing.T) {
	ctx := context.Background()
	draw := func(t *testing.T, failed string) (dir string, files map[string][]byte) {
		t.Helper()
		dir = filepath.Join(t.TempDir(), "2026-11-22-masked")
		writeMaskedRun(t, dir, failed)
		out := filepath.Join(t.TempDir(), "plots")
		var o, e bytes.Buffer
		if code := run(ctx, []string{"roofline", dir, "-o", out}, &IO{Out: &o, Err: &e}); code != 0 {
			t.Fatalf("roofline: exit %d: %s", code, e.String())
		}
		return dir, readDir(t, out)
	}
	_, unmasked := draw(t, "")
	for _, failed := range []string{rundir.PassNsys, rundir.PassNCU} {
		t.Run(failed, func(t *testing.T) {
			dir, got := draw(t, failed)
			rep := filepath.Join(t.TempDir(), "report")
			var o, e bytes.Buffer
			if code := run(ctx, []string{"report", dir, "-o", rep, "--files", "json"}, &IO{Out: &o, Err: &e}); code != 0 {
				t.Fatalf("report: exit %d: %s", code, e.String())
			}
			want := readDir(t, filepath.Join(rep, "plots"))
			if len(got) == 0 || !slices.Equal(sortedKeys(got), sortedKeys(want)) {
				t.Fatalf("roofline drew %v, the report %v", sortedKeys(got), sortedKeys(want))
			}
			differ := 0
			for name, data := range got {
				if !bytes.Equal(data, want[name]) {
					t.Errorf("%s: roofline's chart differs from the report's", name)
				}
				if !bytes.Equal(data, unmasked[name]) {
					differ++
				}
			}
			if differ == 0 {
				t.Errorf("with dual-acc's %s pass failed, every chart is the one drawn with every pass ok", failed)
			}
		})
	}
}

// readDir reads the files of dir by name.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, de := range ents {
		data, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[de.Name()] = data
	}
	return out
}

func sortedKeys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
