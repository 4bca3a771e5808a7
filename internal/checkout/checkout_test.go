package checkout

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRoot: inside the repository its root (the folder of rooftool's
// go.mod) is found from a package folder; outside it none is, and the
// folders tried are named, innermost first.
func TestRoot(t *testing.T) {
	root, tried := Root()
	want, _ := filepath.Abs(filepath.Join("..", ".."))
	if root != want || tried != nil {
		t.Errorf("Root() = %q %v, want %q", root, tried, want)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, tried = Root()
	if wd, _ := os.Getwd(); root != "" || len(tried) < 2 || tried[0] != wd {
		t.Errorf("outside: Root() = %q %v, want none, tried from %s up", root, tried, dir)
	}
}
