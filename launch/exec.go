package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Cmd is one child process. It is always started from an argument vector
// (exec.CommandContext), never through a shell.
type Cmd struct {
	Argv    []string
	Env     []string      // extra KEY=VALUE pairs on top of the launcher's environment
	Dir     string        // working directory, "" for the launcher's
	Stdout  string        // file that receives stdout exactly as written ("" : into the log)
	Log     string        // file that receives stderr (and stdout when Stdout is "")
	Timeout time.Duration // 0: none
	OnLine  func(string)  // called with each line the child writes to stderr
}

// Result is how a child process ended.
type Result struct {
	ExitCode int  // -1 when it did not exit on its own
	TimedOut bool // killed at Cmd.Timeout
	Canceled bool // killed because the context was canceled
	Err      error
	Elapsed  time.Duration
	Tail     string // last lines of the log, for reasons
}

// Exited reports whether the process ran to its own end with one of codes.
func (r Result) Exited(codes ...int) bool {
	if r.TimedOut || r.Canceled || r.ExitCode < 0 {
		return false
	}
	for _, c := range codes {
		if r.ExitCode == c {
			return true
		}
	}
	return false
}

// Reason describes an abnormal end in a few words plus the log's tail.
func (r Result) Reason(what string) string {
	var s string
	switch {
	case r.TimedOut:
		s = fmt.Sprintf("%s: timeout after %s", what, r.Elapsed.Round(time.Second))
	case r.Canceled:
		s = fmt.Sprintf("%s: interrupted", what)
	case r.ExitCode < 0 && r.Err != nil:
		s = fmt.Sprintf("%s: %v", what, r.Err)
	default:
		s = fmt.Sprintf("%s: exit status %d", what, r.ExitCode)
	}
	if t := strings.TrimSpace(r.Tail); t != "" && !r.Canceled {
		s += ": " + t
	}
	return s
}

// RunCmd starts c and waits for it. The child and everything it starts run in
// their own process group, which is killed as a whole on timeout or cancel,
// so that a profiler's target never outlives it.
func RunCmd(ctx context.Context, c Cmd) Result {
	start := time.Now()
	if len(c.Argv) == 0 {
		return Result{ExitCode: -1, Err: errors.New("empty command")}
	}
	rctx := ctx
	var cancel context.CancelFunc
	if c.Timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(rctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = mergeEnv(os.Environ(), c.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		// Negative pid: the whole process group.
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = 5 * time.Second

	var logw io.Writer = io.Discard
	var tail tailBuffer
	if c.Log != "" {
		if err := os.MkdirAll(filepath.Dir(c.Log), 0o755); err != nil {
			return Result{ExitCode: -1, Err: err}
		}
		lf, err := os.OpenFile(c.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return Result{ExitCode: -1, Err: err}
		}
		defer lf.Close()
		fmt.Fprintf(lf, "$ %s\n", quoteArgv(c.Argv))
		logw = lf
	}
	ws := []io.Writer{logw, &tail}
	if c.OnLine != nil {
		ws = append(ws, &lineWriter{fn: c.OnLine})
	}
	cmd.Stderr = io.MultiWriter(ws...)
	var outTmp *os.File
	if c.Stdout != "" {
		if err := os.MkdirAll(filepath.Dir(c.Stdout), 0o755); err != nil {
			return Result{ExitCode: -1, Err: err}
		}
		f, err := os.CreateTemp(filepath.Dir(c.Stdout), "."+filepath.Base(c.Stdout)+".*.tmp")
		if err != nil {
			return Result{ExitCode: -1, Err: err}
		}
		outTmp = f
		defer func() {
			outTmp.Close()
			os.Remove(outTmp.Name()) // no-op after the rename
		}()
		cmd.Stdout = f
	} else {
		cmd.Stdout = cmd.Stderr
	}

	err := cmd.Run()
	res := Result{ExitCode: -1, Elapsed: time.Since(start), Tail: tail.String()}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case ctx.Err() != nil:
		res.Canceled = true
	case rctx.Err() != nil:
		res.TimedOut = true
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !res.TimedOut && !res.Canceled {
		res.Err = err
	}
	if outTmp != nil && !res.Canceled {
		// Keep what the child wrote even after a crash or timeout: the
		// caller decides what in it is usable. Rename only complete files
		// of processes that ended on their own.
		if cerr := outTmp.Close(); cerr == nil && res.ExitCode >= 0 {
			os.Chmod(outTmp.Name(), 0o644)
			if rerr := os.Rename(outTmp.Name(), c.Stdout); rerr != nil && res.Err == nil {
				res.Err = rerr
			}
		}
	}
	return res
}

func mergeEnv(base, extra []string) []string {
	if len(extra) == 0 {
		return base
	}
	keys := map[string]bool{}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// quoteArgv renders an argument vector for logs only; it is never executed.
func quoteArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}!#~") {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

// tailBuffer keeps the last few lines written to it.
type tailBuffer struct {
	buf bytes.Buffer
}

const tailBytes = 4096

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if t.buf.Len() > 2*tailBytes {
		b := t.buf.Bytes()
		keep := append([]byte(nil), b[len(b)-tailBytes:]...)
		t.buf.Reset()
		t.buf.Write(keep)
	}
	return len(p), nil
}

// String returns the last non-empty lines (at most 4, at most 600 bytes),
// joined with " | ".
func (t *tailBuffer) String() string {
	lines := strings.Split(strings.ReplaceAll(t.buf.String(), "\r", "\n"), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < 4; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append([]string{l}, keep...)
		}
	}
	s := strings.Join(keep, " | ")
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	return s
}

// lineWriter calls fn with each complete line written to it.
type lineWriter struct {
	fn  func(string)
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexAny(w.buf, "\r\n")
		if i < 0 {
			break
		}
		if l := strings.TrimSpace(string(w.buf[:i])); l != "" {
			w.fn(l)
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 {
		w.buf = w.buf[:0]
	}
	return len(p), nil
}
