package main

import (
	"encoding/json"
	"io/fs"
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
