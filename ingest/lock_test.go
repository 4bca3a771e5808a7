package ingest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A lock whose holder is gone (its pid runs no process on this host) is
// reported as stale, with the file to remove; a live holder, or one on
// another host, is not.
func TestLockStale(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1) to take a finished pid from")
	}
	dead := cmd.Process.Pid
	host, _ := os.Hostname()
	for _, c := range []struct {
		holder string
		stale  bool
	}{
		{fmt.Sprintf("pid %d", dead), true},
		{fmt.Sprintf("pid %d on %s", dead, host), true},
		{fmt.Sprintf("pid %d on another-host.invalid", dead), false},
		{fmt.Sprintf("pid %d on %s", os.Getpid(), host), false},
		{"garbage", false},
	} {
		dir := t.TempDir()
		lock := filepath.Join(dir, LockName)
		if err := os.WriteFile(lock, []byte(c.holder+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LockDir(dir)
		var le *LockError
		if !errors.As(err, &le) {
			t.Fatalf("%q: err = %v, want a *LockError", c.holder, err)
		}
		if le.Stale() != c.stale || strings.Contains(err.Error(), "stale lock") != c.stale {
			t.Errorf("%q: stale %v, err %q; want stale %v", c.holder, le.Stale(), err, c.stale)
		}
		if c.stale && !strings.Contains(err.Error(), "remove "+lock) {
			t.Errorf("%q: err %q does not name the file to remove", c.holder, err)
		}
	}
	// The lock rooftool writes names its pid and host.
	dir := t.TempDir()
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LockName))
	if want := fmt.Sprintf("pid %d on %s\n", os.Getpid(), host); string(b) != want {
		t.Errorf("lock holds %q, want %q", b, want)
	}
	unlock()
}
