package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// runnerFS is the Python runner: run.py and the shared code of common/.
// rooftool extracts it to run experiment folders kept outside a checkout
// (ExtractRunner), so that they run with the runner this binary was built with.
//
//go:embed run.py common/*.py
var runnerFS embed.FS

// RunnerFS returns the embedded runner: run.py and common/*.py.
func RunnerFS() fs.FS { return runnerFS }

// ExtractRunner writes the embedded runner into dir (run.py and common/) and
// returns the path of run.py. dir holds no experiment of its own: the runner
// finds experiments through $ROOFTOOL_EXPERIMENT_DIRS or --experiments-dir.
func ExtractRunner(dir string) (string, error) {
	err := fs.WalkDir(runnerFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := runnerFS.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("extract the runner into %s: %w", dir, err)
	}
	return filepath.Join(dir, "run.py"), nil
}
