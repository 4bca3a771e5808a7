package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/testdata"
)

// TestDefaultRunCommitted: testdata/runs/DEFAULT names a committed run, a
// run on an H100 80GB (CC 9.0, 132 SMs, 80 GB) of all five experiments.
func TestDefaultRunCommitted(t *testing.T) {
	name, fsys, err := testdata.Run("")
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.ReadFile(fsys, rundir.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	var m rundir.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	exps := map[string]bool{}
	for _, c := range m.Cells {
		exps[c.Experiment] = true
	}
	if len(exps) != 5 {
		t.Errorf("%s: %d experiments, want all 5", name, len(exps))
	}
	if m.GPU.CC != "9.0" || m.GPU.SMCount != 132 || m.GPU.MemoryBytes > 100<<30 {
		t.Errorf("%s: GPU %+v, want an H100 80GB", name, m.GPU)
	}
}

// TestDefaultRunEmbedded: the run runs/DEFAULT names is the one the binary
// embeds (testdata/embed.go names it in its go:embed lines), and the other
// committed runs are found by name from inside the repository.
func TestDefaultRunEmbedded(t *testing.T) {
	data, err := os.ReadFile("../../testdata/runs/DEFAULT")
	if err != nil {
		t.Fatal(err)
	}
	name, _, _ := strings.Cut(string(data), "\n")
	if name = strings.TrimSpace(name); name != testdata.Embedded() || testdata.Default() != name {
		t.Errorf("runs/DEFAULT names %q; embedded %q, Default() %q", name, testdata.Embedded(), testdata.Default())
	}
	const other = "2026-11-22-h100-003504"
	if _, fsys, err := testdata.Run(other); err != nil {
		t.Errorf("%s from the repository: %v", other, err)
	} else if _, err := fs.Stat(fsys, rundir.ManifestFile); err != nil {
		t.Error(err)
	}
}

// TestReportOtherRunOutsideRepo: outside the repository a committed run
// that is not embedded is refused with exit 2, naming where it was looked
// for, that the embedded run is the only one there, and to name a run
// directory; the embedded one still renders, and its note names no
// testdata/runs path (there is none outside a clone).
func TestReportOtherRunOutsideRepo(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"report", "2026-11-22-h100-003504", "-o", filepath.Join(dir, "r")}, &IO{Out: &o, Err: &e})
	if code != 2 || !strings.Contains(e.String(), "not a committed run") || !strings.Contains(e.String(), dir) ||
		!strings.Contains(e.String(), "outside a rooftool clone the only committed run is the one embedded") || !strings.Contains(e.String(), "name a run directory") {
		t.Errorf("exit %d, stderr %q; want 2 naming %s, the embedded run and a run directory instead", code, e.String(), dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "r")); err == nil {
		t.Error("a refused report wrote its output folder")
	}
	e.Reset()
	if code := run(context.Background(), []string{"report", "-o", filepath.Join(dir, "d"), "--files", "md"}, &IO{Out: &o, Err: &e}); code != 0 {
		t.Errorf("embedded run outside the repository: exit %d: %s", code, e.String())
	}
	if s := e.String(); strings.Contains(s, "testdata/runs/") || !strings.Contains(s, "embedded in rooftool: outside a rooftool clone it is the only committed run") || !strings.Contains(s, "rooftool report RUNDIR") {
		t.Errorf("report outside the repository: stderr %q; want the embedded run named as such, no testdata path, and how to name a run directory", s)
	}
}
