package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	if e.Stale() {
		return fmt.Sprintf("%s is held by %s, which is not running on this host: a stale lock, left by an ingest that ended without removing it; remove %s and run again",
			e.Path, h, e.Path)
	}
	return fmt.Sprintf("%s is held by %s: another rooftool ingest is writing to %s (if none is running, remove the lock file)",
		e.Path, h, filepath.Dir(e.Path))
}

// Stale reports whether the lock's holder is known to be gone: the lock
// names a pid on this host (or no host, as locks without one were written
// here) and no process has that pid.
func (e *LockError) Stale() bool {
	var pid int
	var host string
	n, _ := fmt.Sscanf(e.Holder, "pid %d on %s", &pid, &host)
	if n < 1 || pid <= 0 {
		return false
	}
	if n == 2 {
		if me, err := os.Hostname(); err != nil || me != host {
			return false
		}
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// LockDir takes the advisory write lock of dir: it creates dir/LockName with
// O_EXCL and writes this process's pid and host into it ("pid N on HOST"). unlock removes the lock
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
	host, _ := os.Hostname()
	_, werr := fmt.Fprintf(f, "pid %d on %s\n", os.Getpid(), host)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(p)
		return nil, fmt.Errorf("lock %s: %w", dir, werr)
	}
	return func() error { return os.Remove(p) }, nil
}
