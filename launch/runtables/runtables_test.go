package runtables

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// Inputs lists a run's paired records beside the manifest's files.
func TestInputsPaired(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "raw", "timing", "gated_ssm", PairedDir, "eager~quack-epilogue~d=1.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"rooftool_paired": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ins := Inputs(dir, &rundir.Manifest{})
	if len(ins) != 1 || ins[0].Path != p {
		t.Errorf("inputs %+v, want %s", ins, p)
	}
}
