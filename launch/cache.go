package launch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// CacheDir is the run directory's folder of compile caches: every runner
// process of the run (check, timing, ncu, range, nsys, and a --resume of
// it) compiles into and looks up the same folders, so a kernel Inductor,
// Triton, the CuTe DSL or cutlass_cppgen built in one pass is loaded, not
// rebuilt, in the next. The caches change compile time, not the measured
// code: the manifest records them as options (compile_cache.*), not knobs.
// Ingest and reports read only the files the manifest lists, never this
// folder; the device scripts leave it out of the run's tarball.
const CacheDir = "cache"

// compileCache is one cache variable a runner process is given: a folder
// (or, for cutlass_cppgen, a file) under CacheDir.
type compileCache struct {
	env  string
	path string // under CacheDir, slash-separated
	file bool   // a file, whose folder is made; else the folder itself
}

// compileCaches are the caches of a run. cutlass_cppgen keeps its
// compiled kernels in compiled_cache.db of the working directory; the
// runner's cutlass variant points it at ROOFTOOL_CUTLASS_CACHE_DB
// (kernels/gated_ssm/cutlass_evt.py), which the launcher seeds from the
// working directory's compiled_cache.db where the run has none yet.
var compileCaches = []compileCache{
	{env: "TORCHINDUCTOR_CACHE_DIR", path: "inductor"},
	{env: "TRITON_CACHE_DIR", path: "triton"},
	{env: "CUTE_DSL_CACHE_DIR", path: "cute"},
	{env: "QUACK_CACHE_DIR", path: "quack"}, // quack's own compiled GEMMs and autotune results
	{env: "ROOFTOOL_CUTLASS_CACHE_DB", path: "cutlass/compiled_cache.db", file: true},
}

// compileCacheSwitches keep Inductor's on-disk caches on (FX graphs,
// autotuning results) whatever the launcher's environment says.
var compileCacheSwitches = []string{"TORCHINDUCTOR_FX_GRAPH_CACHE=1", "TORCHINDUCTOR_AUTOTUNE_LOCAL_CACHE=1"}

// OptionCompileCache is the manifest option that says whether the run's
// processes shared CacheDir ("cache/") or compiled on their own ("off").
const OptionCompileCache = "compile_cache"

// isCacheVar reports whether k is a variable the launcher sets for the
// compile caches (not a knob of the measured code).
func isCacheVar(k string) bool {
	for _, c := range compileCaches {
		if c.env == k {
			return true
		}
	}
	for _, kv := range compileCacheSwitches {
		if strings.HasPrefix(kv, k+"=") {
			return true
		}
	}
	return false
}

// setupCompileCache makes the run's cache folders (a resumed run finds
// them made), seeds cutlass_cppgen's database from seedDB where the run has
// none, and returns the variables every runner process gets; it records
// them in opts. off: no caches, opts says so.
func setupCompileCache(dir, seedDB string, off bool, opts map[string]string) ([]string, error) {
	for k := range opts {
		if strings.HasPrefix(k, OptionCompileCache+".") {
			delete(opts, k)
		}
	}
	if off {
		opts[OptionCompileCache] = "off"
		return nil, nil
	}
	opts[OptionCompileCache] = CacheDir + "/"
	var env []string
	for _, c := range compileCaches {
		p := filepath.Join(dir, CacheDir, filepath.FromSlash(c.path))
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
		opts[OptionCompileCache+"."+c.env] = CacheDir + "/" + c.path
	}
	for _, kv := range compileCacheSwitches {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, kv)
		opts[OptionCompileCache+"."+k] = v
	}
	return env, nil
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
