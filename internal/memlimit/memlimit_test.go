package memlimit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MemTotal is read in kB (1 kB = 1024 bytes in /proc/meminfo), and a cgroup
// limit of "max" or cgroup v1's 2^63-4096 "no limit" is none.
func TestMemoryLimitSources(t *testing.T) {
	if got := parseMemTotal(strings.NewReader("MemFree: 5 kB\nMemTotal:       131072 kB\n")); got != 131072*1024 {
		t.Errorf("parseMemTotal = %d, want %d", got, 131072*1024)
	}
	dir := t.TempDir()
	for text, want := range map[string]int64{"max\n": 0, "9223372036854771712\n": 0, "536870912\n": 512 << 20, "": 0} {
		p := filepath.Join(dir, "memory.max")
		os.WriteFile(p, []byte(text), 0o644)
		if got := cgroupLimit(p); got != want {
			t.Errorf("cgroupLimit(%q) = %d, want %d", text, got, want)
		}
	}
}
