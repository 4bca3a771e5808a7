package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
)

// Run is an opened run directory: on disk (Open) or in an fs.FS such as the
// embedded committed runs (OpenFS). Everything a later stage reads of a run
// goes through it.
type Run struct {
	Name     string    // the run's name: base name of its folder
	FS       fs.FS     // the run's files, rooted at the run folder
	Dir      string    // the folder on disk; "" for a run held in an fs.FS
	Manifest *Manifest // nil: the run has no manifest.json
}

// Open opens the run directory dir.
func Open(dir string) (*Run, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("run directory %s: not a directory", dir)
	}
	r := &Run{Name: NameOf(dir), FS: os.DirFS(dir), Dir: dir}
	return r, r.readManifest()
}

// NameOf is a run's name: the base name of its folder (of the absolute
// path, so "." names the folder it is).
func NameOf(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return filepath.Base(abs)
	}
	return filepath.Base(filepath.Clean(dir))
}

// OpenFS opens a run held in fsys (rooted at the run folder) under name.
func OpenFS(name string, fsys fs.FS) (*Run, error) {
	r := &Run{Name: name, FS: fsys}
	return r, r.readManifest()
}

func (r *Run) readManifest() error {
	m, err := readManifestFS(r.FS, r.Path(ManifestFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	r.Manifest = m
	return nil
}

// Path is how messages name a file of the run: its path on disk, or
// "<run name>/<rel>" for a run in an fs.FS.
func (r *Run) Path(rel string) string {
	if r.Dir != "" {
		return filepath.Join(r.Dir, filepath.FromSlash(rel))
	}
	return r.Name + "/" + rel
}

// ReadFile reads a file of the run (slash-separated path).
func (r *Run) ReadFile(rel string) ([]byte, error) {
	data, err := fs.ReadFile(r.FS, rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", r.Path(rel), err)
	}
	return data, err
}

// Tables reads the run's tables: tables/, or the folder itself for a
// directory written by `rooftool ingest -o DIR`.
func (r *Run) Tables(mem memory.Allocator) (*ingest.Tables, error) {
	dir := TablesDir
	if fi, err := fs.Stat(r.FS, dir); err != nil || !fi.IsDir() {
		dir = "."
	}
	t, err := ingest.ReadFS(r.FS, dir, r.Path(dir), mem)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.Name, err)
	}
	return t, nil
}

// WalkJSON calls fn for every file under root (slash-separated) whose name
// ends in suffix, with its path relative to root and its bytes, in lexical
// order. A run without root has none.
func (r *Run) WalkJSON(root, suffix string, fn func(rel string, data []byte) error) error {
	err := fs.WalkDir(r.FS, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, suffix) {
			return nil
		}
		data, err := fs.ReadFile(r.FS, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
		if err := fn(rel, data); err != nil {
			return fmt.Errorf("%s: %w", r.Path(p), err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("run %s: %w", r.Name, err)
	}
	return nil
}

// Specs returns the snapshot of the experiment specs and claims the run
// was made with (specs/<exp>/spec.yaml, claims.yaml), and whether the run
// has one.
func (r *Run) Specs() (fs.FS, bool) {
	fi, err := fs.Stat(r.FS, SpecsDir)
	if err != nil || !fi.IsDir() {
		return nil, false
	}
	sub, err := fs.Sub(r.FS, SpecsDir)
	return sub, err == nil
}
