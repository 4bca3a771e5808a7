package compilecache

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cutlassDB makes a cutlass_cppgen database at p with the given op keys.
func cutlassDB(t *testing.T, p string, keys ...string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE compiled_operations(op_key TEXT NOT NULL UNIQUE, cubin BLOB NOT NULL, hostbin BLOB NOT NULL, op_name TEXT NOT NULL, op_attrs TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, err := db.Exec("INSERT INTO compiled_operations VALUES (?, x'00', x'00', ?, '')", k, k); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSeedAndCountCaches: an earlier run's caches (its run directory) seed
// a new cache folder: files it lacks are copied, a file it has is kept, and
// its cutlass database gains the rows it lacks. By hand: triton ab/k.cubin
// and shared.json of the seed, shared.json of its own: 2 files (1 added);
// cutlass rows k1, k2 of the seed and k1, k3 of its own: 3 (1 added); the
// other caches 0.
func TestSeedAndCountCaches(t *testing.T) {
	old := t.TempDir()
	seed := filepath.Join(old, Dir)
	os.MkdirAll(filepath.Join(seed, "triton", "ab"), 0o755)
	os.WriteFile(filepath.Join(seed, "triton", "ab", "k.cubin"), []byte("seed"), 0o644)
	os.WriteFile(filepath.Join(seed, "triton", "shared.json"), []byte("seed"), 0o644)
	cutlassDB(t, filepath.Join(seed, "cutlass", "compiled_cache.db"), "k1", "k2")
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "triton"), 0o755)
	os.WriteFile(filepath.Join(root, "triton", "shared.json"), []byte("mine"), 0o644)
	cutlassDB(t, filepath.Join(root, "cutlass", "compiled_cache.db"), "k1", "k3")
	before := Counts(root)
	if err := Seed(old, root); err != nil {
		t.Fatal(err)
	}
	after := Counts(root)
	if after["triton"] != 2 || after["cutlass"] != 3 || after["inductor"] != 0 {
		t.Errorf("counts after seeding = %v, want triton 2, cutlass 3, inductor 0", after)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "triton", "shared.json")); string(b) != "mine" {
		t.Errorf("a cache file the run had was replaced: %q", b)
	}
	if d := Added(before, after); len(d) != 2 || d["triton"] != 1 || d["cutlass"] != 1 {
		t.Errorf("added = %v, want triton 1, cutlass 1", d)
	}
	if d := Added(after, after); d != nil {
		t.Errorf("nothing added gave %v, want nil", d)
	}
	// A folder with no cache in it is an error naming what it looked for.
	if err := Seed(t.TempDir(), root); err == nil || !strings.Contains(err.Error(), "triton") {
		t.Errorf("seed from an empty folder: %v", err)
	}
}
