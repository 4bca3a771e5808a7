package pipeline

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultCostsRun: without --costs-from the newest committed run on the
// GPU kind predicts. testdata/runs holds H100 runs up to
// 2026-11-27-h100-222424 and H200 runs up to 2026-11-28-h200x4-084633 (the
// folder names give the dates); a kind with no run takes the
// newest of any kind, 084633, and says so (a B200).
func TestDefaultCostsRun(t *testing.T) {
	for _, c := range []struct{ gpu, want, note string }{
		{"h100", "2026-11-27-h100-222424", "the newest committed run on"},
		{"h200", "2026-11-28-h200x4-084633", "the newest committed run on"},
		{"b200", "2026-11-28-h200x4-084633", "the newest of another kind"},
		{"", "2026-11-28-h200x4-084633", "no --gpu given"},
	} {
		d, note := DefaultCostsRun(c.gpu)
		if filepath.Base(d) != c.want || !strings.Contains(note, c.note) {
			t.Errorf("--gpu %q: %s (%s), want %s (%s...)", c.gpu, d, note, c.want, c.note)
		}
	}
	// Outside a clone: none, saying why and how to name one.
	t.Chdir(t.TempDir())
	if d, note := DefaultCostsRun("h100"); d != "" || !strings.Contains(note, "outside a rooftool clone") || !strings.Contains(note, "--costs-from RUN") {
		t.Errorf("outside a clone: %q (%s)", d, note)
	}
}
