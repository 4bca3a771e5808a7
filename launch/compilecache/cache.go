package compilecache

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/mattn/go-sqlite3" // registers "sqlite3": cutlass_cppgen's cache is a SQLite database

	"github.com/rooftool/rooftool/launch/plan"
)

// Dir is the run directory's folder of compile caches: every runner
// process of the run (check, timing, ncu, range, nsys, and a --resume of
// it) compiles into and looks up the same folders, so a kernel Inductor,
// Triton, the CuTe DSL or cutlass_cppgen built in one pass is loaded, not
// rebuilt, in the next. The caches change compile time, not the measured
// code: the manifest records them as options (compile_cache.*), not knobs.
// Ingest and reports read only the files the manifest lists, never this
// folder; the device scripts leave it out of the run's tarball.
const Dir = "cache"

// cache is one cache variable a runner process is given: a folder
// (or, for cutlass_cppgen, a file) under Dir.
type cache struct {
	env  string
	path string // under Dir, slash-separated
	file bool   // a file, whose folder is made; else the folder itself
}

// name is the cache's name in the manifest's counts: its folder under
// Dir (inductor, triton, cute, quack, cutlass).
func (c cache) name() string {
	n, _, _ := strings.Cut(c.path, "/")
	return n
}

// caches are the caches of a run. cutlass_cppgen keeps its
// compiled kernels in compiled_cache.db of the working directory; the
// runner's cutlass variant points it at ROOFTOOL_CUTLASS_CACHE_DB
// (kernels/gated_ssm/cutlass_evt.py), which the launcher seeds from the
// working directory's compiled_cache.db where the run has none yet.
var caches = []cache{
	{env: "TORCHINDUCTOR_CACHE_DIR", path: "inductor"},
	{env: "TRITON_CACHE_DIR", path: "triton"},
	{env: "CUTE_DSL_CACHE_DIR", path: "cute"},
	{env: "QUACK_CACHE_DIR", path: "quack"}, // quack's own compiled GEMMs and autotune results
	{env: "ROOFTOOL_CUTLASS_CACHE_DB", path: "cutlass/compiled_cache.db", file: true},
}

// switches keep Inductor's on-disk caches on (FX graphs,
// autotuning results) whatever the launcher's environment says.
var switches = []string{"TORCHINDUCTOR_FX_GRAPH_CACHE=1", "TORCHINDUCTOR_AUTOTUNE_LOCAL_CACHE=1"}

// Option is the manifest option that says whether the run's
// processes shared Dir ("cache/") or compiled on their own ("off").
const Option = "compile_cache"

// IsVar reports whether k is a variable the launcher sets for the
// compile caches (not a knob of the measured code).
func IsVar(k string) bool {
	for _, c := range caches {
		if c.env == k {
			return true
		}
	}
	for _, kv := range switches {
		if strings.HasPrefix(kv, k+"=") {
			return true
		}
	}
	return false
}

// Setup makes the run's cache folders under root (a resumed
// run finds them made), seeds them from seed (an earlier run's cache
// folder, --compile-cache) and cutlass_cppgen's database from seedDB where
// the run has none, and returns the variables every runner process gets;
// it records them in opts, with root as shown (its recorded path). off: no
// caches, opts says so.
func Setup(root, shown, seed, seedDB string, off bool, opts map[string]string) ([]string, error) {
	for k := range opts {
		if strings.HasPrefix(k, Option+".") {
			delete(opts, k)
		}
	}
	if off {
		opts[Option] = "off"
		return nil, nil
	}
	shown = strings.TrimSuffix(filepath.ToSlash(shown), "/")
	opts[Option] = shown + "/"
	// Each launch records the entries it added to each cache (Launch.CacheAdded).
	opts[Option+".counts"] = "per launch"
	if seed != "" {
		if err := Seed(seed, root); err != nil {
			return nil, plan.ConfigErrorf("--compile-cache %s: %v", seed, err)
		}
		opts[Option+".seeded_from"] = seed
	}
	var env []string
	for _, c := range caches {
		p := filepath.Join(root, filepath.FromSlash(c.path))
		folder := p
		if c.file {
			folder = filepath.Dir(p)
		}
		if err := os.MkdirAll(folder, 0o755); err != nil {
			return nil, fmt.Errorf("compile cache: %w", err)
		}
		if c.file && seedDB != "" {
			if err := seedFile(seedDB, p); err != nil {
				return nil, fmt.Errorf("compile cache: seed %s from %s: %w", p, seedDB, err)
			}
		}
		env = append(env, c.env+"="+p)
		opts[Option+"."+c.env] = shown + "/" + c.path
	}
	for _, kv := range switches {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, kv)
		opts[Option+"."+k] = v
	}
	return env, nil
}

// Seed copies an earlier run's compile caches into root: from
// is that run's directory (its Dir is used) or a cache folder itself
// (RUNDIR/cache, or a --gpus run's RUNDIR.cache). A file root has already is
// kept; cutlass_cppgen's database, where both have one, gets the rows it
// lacks. From must hold at least one of the caches' folders.
func Seed(from, root string) error {
	if st, err := os.Stat(filepath.Join(from, Dir)); err == nil && st.IsDir() {
		from = filepath.Join(from, Dir)
	}
	found := false
	for _, c := range caches {
		src := filepath.Join(from, filepath.FromSlash(c.path))
		dst := filepath.Join(root, filepath.FromSlash(c.path))
		if _, err := os.Stat(src); err != nil {
			continue
		}
		found = true
		if c.file {
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if _, err := os.Stat(dst); err == nil {
				if err := mergeCutlassDB(dst, src); err != nil {
					return fmt.Errorf("%s into %s: %w", src, dst, err)
				}
				continue
			}
			if err := seedFile(src, dst); err != nil {
				return err
			}
			continue
		}
		if err := copyMissing(src, dst); err != nil {
			return err
		}
	}
	if !found {
		var names []string
		for _, c := range caches {
			names = append(names, c.path)
		}
		return fmt.Errorf("holds none of the compile caches (%s), neither under %s/", strings.Join(names, ", "), Dir)
	}
	return nil
}

// copyMissing copies the files of the tree src into dst where dst lacks
// them (a cache entry is never rewritten: same key, same content).
func copyMissing(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return seedFile(p, out)
	})
}

// cutlassTable is cutlass_cppgen's table of compiled kernels.
const cutlassTable = "compiled_operations"

// mergeCutlassDB inserts into the database dst the rows of src it lacks.
func mergeCutlassDB(dst, src string) error {
	db, err := sql.Open("sqlite3", dst)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmts := []string{
		"CREATE TABLE IF NOT EXISTS " + cutlassTable + "(op_key TEXT NOT NULL UNIQUE, cubin BLOB NOT NULL, hostbin BLOB NOT NULL, op_name TEXT NOT NULL, op_attrs TEXT NOT NULL)",
		"ATTACH DATABASE '" + strings.ReplaceAll(src, "'", "''") + "' AS seed",
		"INSERT OR IGNORE INTO main." + cutlassTable + " SELECT * FROM seed." + cutlassTable,
		"DETACH DATABASE seed",
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	return nil
}

// Counts are the entries of each compile cache under root, by cache
// name: files in a cache folder, compiled kernels in cutlass_cppgen's
// database. A cache that is missing counts 0; one that cannot be read is
// left out.
func Counts(root string) map[string]int {
	out := map[string]int{}
	for _, c := range caches {
		p := filepath.Join(root, filepath.FromSlash(c.path))
		if c.file {
			n, err := cutlassRows(p)
			if err == nil {
				out[c.name()] = n
			}
			continue
		}
		n := 0
		err := filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				n++
			}
			return nil
		})
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			out[c.name()] = n
		}
	}
	return out
}

// cutlassRows counts the kernels in cutlass_cppgen's database p (0 where
// the file or its table is missing).
func cutlassRows(p string) (int, error) {
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	db, err := sql.Open("sqlite3", "file:"+p+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRow("SELECT count(*) FROM " + cutlassTable).Scan(&n)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return 0, nil
	}
	return n, err
}

// Added is after minus before per cache, the caches that gained
// none left out; nil where none gained.
func Added(before, after map[string]int) map[string]int {
	var out map[string]int
	for k, a := range after {
		if d := a - before[k]; d != 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[k] = d
		}
	}
	return out
}

// seedFile copies src to dst where dst does not exist and src does.
func seedFile(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil // another process sharing the cache seeded it first
	}
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}

// SetupShared makes the compile-cache folder root that the shards of a
// --gpus run share, before they start: its caches' folders, seeded from
// seed (--compile-cache, "" for none) and cutlass_cppgen's database from
// seedDB where root has none, so that no two shards seed it at once.
func SetupShared(root, seed, seedDB string) error {
	_, err := Setup(root, root, seed, seedDB, false, map[string]string{})
	return err
}
