package memlimit

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limit is the limit rooftool keeps to, in bytes, and what set it:
// GOMEMLIMIT where it is set; else 3/4 of the least of the machine's
// memory, the cgroup's memory limit and the address-space limit (ulimit
// -v); 0 where none can be read.
func Limit() (int64, string) {
	if v := os.Getenv("GOMEMLIMIT"); v != "" && v != "off" {
		if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
			return l, "GOMEMLIMIT"
		}
	}
	least, what := int64(0), ""
	take := func(n int64, w string) {
		if n > 0 && (least == 0 || n < least) {
			least, what = n, w
		}
	}
	take(memTotal("/proc/meminfo"), "the machine's memory")
	take(cgroupLimit("/sys/fs/cgroup/memory.max"), "the cgroup's memory limit")
	take(cgroupLimit("/sys/fs/cgroup/memory/memory.limit_in_bytes"), "the cgroup's memory limit")
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != ^uint64(0) && rl.Cur < math.MaxInt64 {
		take(int64(rl.Cur), "the address-space limit (ulimit -v)")
	}
	if least == 0 {
		return 0, ""
	}
	return least / 4 * 3, "3/4 of " + what
}

// memTotal is MemTotal of a /proc/meminfo, in bytes; 0 where unread.
func memTotal(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	return parseMemTotal(f)
}

func parseMemTotal(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupLimit is a cgroup memory limit file's bytes; 0 for "max", a
// figure past 2^62 (cgroup v1's "no limit") or no file.
func cgroupLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n > 1<<62 {
		return 0
	}
	return n
}

// memWatch is the state of the heap watch.
type memWatch struct {
	limit   int64
	source  string
	samples []metrics.Sample
}

// overLimit returns a message when the heap is past the limit: the live
// heap (as of the last collection) at the limit, where the collector can
// no longer bring the heap under it, or the memory the runtime holds from
// the system past 5/4 of it.
func (w *memWatch) overLimit() string {
	metrics.Read(w.samples)
	live := int64(w.samples[0].Value.Uint64())
	held := int64(w.samples[1].Value.Uint64()) - int64(w.samples[2].Value.Uint64())
	if live < w.limit && held < w.limit/4*5 {
		return ""
	}
	return fmt.Sprintf("out of memory: the input needs more than rooftool's memory limit of %d MiB (%s; the heap holds %d MiB live, %d MiB from the system); "+
		"stopped before the Go runtime fails. Give fewer or smaller exports at once, or raise the limit with GOMEMLIMIT on a machine with more memory",
		w.limit>>20, w.source, live>>20, held>>20)
}

// Guard sets the runtime's memory limit (Limit) and starts the watch,
// which calls over with a message saying so when the heap goes past it
// (the live heap at the limit, or the memory held from the system past
// 5/4 of it); over is to end the process. Without a limit it does nothing.
func Guard(over func(msg string)) {
	limit, source := Limit()
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit)
	w := &memWatch{limit: limit, source: source, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}}
	go func() {
		for range time.Tick(20 * time.Millisecond) {
			if msg := w.overLimit(); msg != "" {
				over(msg)
			}
		}
	}()
}
