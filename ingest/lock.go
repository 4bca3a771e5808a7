package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LockName is the advisory lock file LockDir creates in an output directory.
const LockName = ".rooftool-ingest.lock"

// LockError reports an output directory that another writer holds.
type LockError struct {
	Path   string // the lock file
	Holder string // what the lock file says of its holder ("pid N"), or "" if unreadable
}

func (e *LockError) Error() string {
	h := e.Holder
	if h == "" {
		h = "an unknown holder"
	}
	return fmt.Sprintf("%s is held by %s: another rooftool ingest is writing to %s (if none is running, remove the lock file)",
		e.Path, h, filepath.Dir(e.Path))
}

// LockDir takes the advisory write lock of dir: it creates dir/LockName with
// O_EXCL and writes this process's pid into it. unlock removes the lock
// file. When another process holds the lock, the error is a *LockError
// naming the file and its holder.
func LockDir(dir string) (unlock func() error, err error) {
	p := filepath.Join(dir, LockName)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		b, _ := os.ReadFile(p)
		return nil, &LockError{Path: p, Holder: strings.TrimSpace(string(b))}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	_, werr := fmt.Fprintf(f, "pid %d\n", os.Getpid())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(p)
		return nil, fmt.Errorf("lock %s: %w", dir, werr)
	}
	return func() error { return os.Remove(p) }, nil
}
