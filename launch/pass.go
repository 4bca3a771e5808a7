package launch

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/compilecache"
	"github.com/rooftool/rooftool/spec"
)

// onLine turns the runner's per-cell stderr lines ("exp/variant/shape: check
// ok ...") into the progress description, so a terminal shows the cell at work.
func (r *Runner) onLine(exp, pass string) func(string) {
	return func(l string) {
		if !strings.HasPrefix(l, exp+"/") {
			return // profiler chatter; the runner's lines start with the cell
		}
		if len(l) > 100 {
			l = l[:97] + "..."
		}
		r.prog.Begin(exp + " " + pass + ": " + l)
	}
}

// attemptResult is what one runner process gave.
type attemptResult struct {
	got  map[string]rundir.PassStatus // cells with a definitive outcome
	ran  map[string]bool              // cells the runner reached (wrote its per-cell file)
	res  Result
	what string // e.g. "runner", "ncu", "nsys export"
	warn []string
	// code is what the runner reported running per cell (profile.json of
	// the cells it ran ok); runPass adds it to a status that lacks one.
	code map[string]*rundir.Code
	// retries counts the processes a cell took beyond the first within
	// this attempt (the range pass's app-range replay); cellRetries those
	// of one cell beyond that (a cell of a shared range process replayed
	// alone).
	retries     int
	cellRetries map[string]int
	// prior is a cell's status from the range pass's earlier rounds: its
	// seconds and processes add to this round's.
	prior map[string]rundir.PassStatus
	// cellSec is the runner's own seconds per cell (cell_seconds of its
	// JSON); firstStart the earliest cell_started (Unix seconds), 0: none.
	cellSec    map[string]float64
	firstStart float64
}

func newAttempt(what string) attemptResult {
	return attemptResult{got: map[string]rundir.PassStatus{}, ran: map[string]bool{}, code: map[string]*rundir.Code{}, what: what,
		cellRetries: map[string]int{}, prior: map[string]rundir.PassStatus{}, cellSec: map[string]float64{}}
}

// runPass runs one pass of one experiment over cells ("variant/shape"),
// re-launching the runner after a crash or timeout for the cells it did
// not reach. The cell it was stuck on is marked failed.
func (r *Runner) runPass(ctx context.Context, exp *spec.Experiment, pass string, cells []string) error {
	pending := cells
	attempts := 0
	for len(pending) > 0 {
		attempts++
		r.prog.Begin(fmt.Sprintf("%s %s: %s (%d cells)", exp.Name, pass, pending[0], len(pending)))
		var before map[string]int
		if r.cacheRoot != "" {
			before = compilecache.Counts(r.cacheRoot)
		}
		t0 := time.Now()
		a := r.attempt(ctx, exp, pass, pending)
		el := time.Since(t0)
		for _, w := range a.warn {
			r.warn("%s", w)
		}
		l := launchOf(exp.Name, pass, len(pending), t0, el, a)
		if r.cacheRoot != "" {
			l.CacheAdded = compilecache.Added(before, compilecache.Counts(r.cacheRoot))
		}
		r.m.Launches = append(r.m.Launches, l)
		share := el.Seconds() / float64(len(pending))
		var rest []string
		counts := map[string]int{}
		for _, c := range pending {
			st, ok := a.got[c]
			if !ok {
				rest = append(rest, c)
				continue
			}
			prev := a.prior[c]
			st.Seconds = round3(share + prev.Seconds)
			st.SharedBy = len(pending)
			st.CellSeconds = round3(a.cellSec[c] + prev.CellSeconds)
			st.Attempts = attempts + a.retries + a.cellRetries[c] + prev.Attempts
			if st.Code == nil {
				st.Code = a.code[c]
			}
			v, s, _ := strings.Cut(c, "/")
			st.GPUUUID = r.passGPU
			r.m.SetPass(exp.Name, v, s, pass, st)
			counts[st.Status]++
		}
		if a.res.Canceled {
			r.write()
			r.prog.Done(len(pending)-len(rest), summary(exp.Name, pass, counts, el)+" (interrupted)")
			return ctx.Err()
		}
		if len(rest) > 0 {
			reason := a.res.Reason(a.what)
			var fail []string
			switch {
			case a.res.Exited(2):
				fail = rest // bad usage: every cell fails the same way
			case a.res.Err != nil && a.res.ExitCode < 0 && !a.res.TimedOut:
				fail = rest // the process could not start (or was lost): same for every cell
			default:
				culprit := -1
				for i, c := range rest {
					if !a.ran[c] {
						culprit = i
						break
					}
				}
				if culprit < 0 {
					fail = rest // the runner reached them all; the profiler failed after
				} else {
					fail = []string{rest[culprit]}
				}
			}
			for _, c := range fail {
				v, s, _ := strings.Cut(c, "/")
				why := reason
				if a.res.TimedOut && len(fail) == 1 {
					why = fmt.Sprintf("%s: timeout: the runner was still in this cell after %s (--timeout %s per cell)", a.what, el.Round(time.Second), r.cfg.Timeout)
				}
				r.m.SetPass(exp.Name, v, s, pass, rundir.PassStatus{Status: rundir.StatusFailed, Reason: why, Seconds: round3(share), SharedBy: len(pending), Attempts: attempts, GPUUUID: r.passGPU})
				counts[rundir.StatusFailed]++
			}
			var next []string
			for _, c := range rest {
				if !slices.Contains(fail, c) {
					next = append(next, c)
				}
			}
			pending = next
		} else {
			pending = nil
		}
		if err := r.write(); err != nil {
			return err
		}
		n := 0
		for _, k := range counts {
			n += k
		}
		if pass == rundir.PassRange && r.round > 1 {
			n = 0 // a later replay round: its cells were counted in the first
		}
		r.prog.Done(n, summary(exp.Name, pass, counts, el))
	}
	return nil
}

// launchOf records one launch of pass over n cells, begun at t0 and
// lasting el: its startup is the time until the runner's earliest
// cell_started, where it reported one and the launch was one process
// (a range cell's replays are several).
func launchOf(exp, pass string, n int, t0 time.Time, el time.Duration, a attemptResult) rundir.Launch {
	l := rundir.Launch{Pass: pass, Experiment: exp, Cells: n, Seconds: round3(el.Seconds())}
	if pass != rundir.PassRange && a.firstStart > 0 {
		start := float64(t0.UnixNano()) / 1e9
		if s := a.firstStart - start; s > 0 && s <= el.Seconds() {
			l.StartupSeconds = round3(s)
		}
	}
	return l
}

func summary(exp, pass string, counts map[string]int, el time.Duration) string {
	var parts []string
	for _, s := range []string{rundir.StatusOK, rundir.StatusFailed, rundir.StatusSkipped} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no result")
	}
	return fmt.Sprintf("%s %s: %s (%s)", exp, pass, strings.Join(parts, ", "), el.Round(100*time.Millisecond))
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func (r *Runner) attempt(ctx context.Context, exp *spec.Experiment, pass string, cells []string) attemptResult {
	switch pass {
	case rundir.PassCheck:
		return r.attemptCheck(ctx, exp, cells)
	case rundir.PassTiming:
		return r.attemptTiming(ctx, exp, cells)
	case rundir.PassNCU:
		return r.attemptNCU(ctx, exp, pass, cells, kernelMode)
	case rundir.PassRange:
		return r.attemptRange(ctx, exp, cells)
	case rundir.PassNsys:
		return r.attemptNsys(ctx, exp, cells)
	}
	return attemptResult{what: pass, res: Result{ExitCode: -1, Err: fmt.Errorf("unknown pass %q", pass)}}
}

// rawDir is raw/<pass folder>/<experiment>.
func (r *Runner) rawDir(pass, exp string) string {
	folder := map[string]string{rundir.PassCheck: "check", rundir.PassTiming: "timing", rundir.PassNCU: "ncu", rundir.PassRange: "ncu-range", rundir.PassNsys: "nsys"}[pass]
	return filepath.Join(r.dir, "raw", folder, exp)
}

func (r *Runner) rel(p string) string {
	if rel, err := filepath.Rel(r.dir, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}

func (r *Runner) runnerArgv(mode string, exp *spec.Experiment, cells []string, out string) []string {
	if r.cfg.Cmd != nil {
		return slices.Clone(r.cfg.Cmd.Argv) // targetEnv tells it mode, cells and out
	}
	argv := []string{r.cfg.Python, r.runPy, mode, "--experiment", exp.Name}
	for _, c := range cells {
		argv = append(argv, "--cell", c)
	}
	argv = append(argv, "--out", out)
	if mode == "time" && r.cfg.Reps > 0 {
		argv = append(argv, "--reps", strconv.Itoa(r.cfg.Reps))
	}
	return argv
}

func (r *Runner) timeout(n int) time.Duration { return r.cfg.Timeout * time.Duration(n) }

// cellFile is dir/<variant>/<shape><suffix>.
func cellFile(dir, cell, suffix string) string {
	v, s, _ := strings.Cut(cell, "/")
	return filepath.Join(dir, v, s+suffix)
}
