package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "raw", "timing", "swiglu", "eager", "M=512.json")
	if err := WriteFileAtomic(p, []byte(`{"a": 1}`)); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte(`{"a": 2}`)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil || string(data) != `{"a": 2}` {
		t.Fatalf("read back %q, %v", data, err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode().Perm(), err)
	}
	// Nothing but the file itself is left in its folder.
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 || ents[0].Name() != "M=512.json" {
		t.Errorf("folder holds %v, want only M=512.json", ents)
	}
}

func TestWriteFileAtomicErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The parent is a file: no folder can be made.
	if err := WriteFileAtomic(filepath.Join(file, "x.json"), []byte("x")); err == nil {
		t.Error("write under a file: no error")
	}
	// The target is a non-empty folder: the rename fails, no temp file stays.
	target := filepath.Join(dir, "target")
	if err := os.MkdirAll(filepath.Join(target, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("x")); err == nil {
		t.Error("write over a non-empty folder: no error")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("%s holds %v after the failed write, want file and target only", dir, ents)
	}
}
