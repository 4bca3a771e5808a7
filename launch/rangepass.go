package launch

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/ncu"
	"github.com/rooftool/rooftool/launch/rangerule"
	"github.com/rooftool/rooftool/spec"
)

// The range pass measures each cell's whole NVTX range (L2 reuse between
// its kernels included). It replays in rounds (rangePass): round 1 replays
// every cell once; later rounds replay the cells the replay rule picks
// (Config.RangeReplaysFor: every cell, or those of a claim near its
// threshold, package rangerule), up to Config.RangeReplays rounds. Each replay
// writes its own CSV (<shape>.range.csv, then <shape>.range.r2.csv, ...), so
// that a cell's DRAM bytes come with their spread. With several cells in
// one process, ncu 2025.3.1 range replay returned a later cell's range
// partial without an error, and could drop a later range's memory copies
// (METHOD.md); with RangeProcessPerExperiment, the default, a round's cells
// of one replay method share one process (rangeBatches, attemptShared), and
// a cell that comes back partial or failed from it, or below its DRAM floor,
// is replayed alone; RangeProcessPerCell gives every cell and replay a
// process of its own. Each cell's
// status says which process measured it (rundir.PassStatus.Process).
// Each replay is checked against the same cell's kernel pass
// (Coverage): a replay that fails or covers less than
// rundir.MinRangeCoverage is replayed once more with app-range, and the
// more complete result is kept.

// DefaultRangeReplays is how many times the range pass replays a cell at
// most when Config.RangeReplays is 0.
const DefaultRangeReplays = 3

// rangeReplays is the most replays per cell this run makes.
func (r *Runner) rangeReplays() int {
	if r.cfg.RangeReplays > 0 {
		return r.cfg.RangeReplays
	}
	return DefaultRangeReplays
}

// replaysFor is Config.RangeReplaysFor, "" read as rangerule.ReplaysForDecisions.
func (r *Runner) replaysFor() string {
	if r.cfg.RangeReplaysFor == "" {
		return rangerule.ReplaysForDecisions
	}
	return r.cfg.RangeReplaysFor
}

// How the range pass groups a round's cells into ncu processes
// (Config.RangeProcess).
const (
	RangeProcessPerCell       = "per-cell"       // one process per cell and replay
	RangeProcessPerExperiment = "per-experiment" // one process per experiment, replay round and replay method
)

// rangeProcessWords is each mode as the manifest records it
// (rundir.OptionRangeProcess).
var rangeProcessWords = map[string]string{
	RangeProcessPerCell:       "per-cell: one ncu process (one NVTX range) per cell and replay",
	RangeProcessPerExperiment: "per-experiment: one ncu process per experiment, replay round and replay method over the cells the round needs; a partial or failed cell replayed alone",
}

// rangeProcess is Config.RangeProcess; "" is per-experiment, for a --cmd
// program (each of its processes is a whole run of it) and rooftool's
// experiments alike: every range is checked against its kernel pass
// (coverage) and, once the nsys pass ran, against its DRAM floor, and one
// that falls short in a shared process is replayed alone.
func (r *Runner) rangeProcess() string {
	if r.cfg.RangeProcess != "" {
		return r.cfg.RangeProcess
	}
	return RangeProcessPerExperiment
}

// appRangeTimeoutScale: app-range replays the whole runner once per ncu
// pass, so its process gets this many times the per-cell timeout.
const appRangeTimeoutScale = 3

// rangeMethod is how a cell's range is replayed first: app-range for a
// CUDA-graph variant (range replay fails on cuGraphLaunch: "Unsupported API
// during capture"), range for the others.
func rangeMethod(exp *spec.Experiment, variant string) string {
	if v := exp.Variant(variant); v != nil && v.Graph {
		return rundir.MethodAppRange
	}
	return rundir.MethodRange
}

// rangeSuffix is the suffix of a cell's CSV from replay k (1-based) with
// method: <shape>.range.csv for the first replay, <shape>.range.r2.csv for
// the second, and so on.
func rangeSuffix(method string, k int) string {
	if k <= 1 {
		return "." + method + ".csv"
	}
	return fmt.Sprintf(".%s.r%d.csv", method, k)
}

// rangeMode is the ncu mode of one range attempt of replay k of n. Each
// method and replay writes its own cell CSV (rangeSuffix) so that every
// attempt stays on disk; the first attempt of the first replay removes a
// cell's earlier files.
func rangeMode(method string, k, n int, first bool) ncuMode {
	m := ncuMode{method: method, suffix: rangeSuffix(method, k), scale: 1}
	if method == rundir.MethodAppRange {
		m.scale = appRangeTimeoutScale
	}
	m.stale = []string{".profile.json", m.suffix}
	if first && k <= 1 {
		m.stale = append(m.stale, ".csv")
		for j := 1; j <= n; j++ {
			m.stale = append(m.stale, rangeSuffix(rundir.MethodRange, j), rangeSuffix(rundir.MethodAppRange, j))
		}
	}
	return m
}

// rangePass replays the range of each of todo ("variant/shape") in rounds:
// round 1 every cell, each later round the cells nextRound picks, and
// records after each round why each cell has the replays it has
// (PassStatus.ReplayReason).
func (r *Runner) rangePass(ctx context.Context, exp *spec.Experiment, todo []string) error {
	defer func() { r.round = 0 }()
	need := todo
	for k := 1; len(need) > 0; k++ {
		r.round = k
		for _, b := range r.rangeBatches(exp, need) {
			if err := r.runPass(ctx, exp, rundir.PassRange, b); err != nil {
				return err
			}
		}
		var reasons map[string]string
		need, reasons = r.nextRound(exp, todo, k)
		for c, why := range reasons {
			v, s, _ := strings.Cut(c, "/")
			if st, ok := r.m.Pass(exp.Name, v, s, rundir.PassRange); ok && st.Status == rundir.StatusOK {
				st.ReplayReason = why
				r.m.SetPass(exp.Name, v, s, rundir.PassRange, st)
			}
		}
		if err := r.write(); err != nil {
			return err
		}
	}
	return nil
}

// rangeBatches are the ncu processes of one round: one per cell
// (RangeProcessPerCell), or one per replay method over the round's cells
// (RangeProcessPerExperiment: graph cells, replayed with app-range, apart
// from the others).
func (r *Runner) rangeBatches(exp *spec.Experiment, cells []string) [][]string {
	var out [][]string
	if r.rangeProcess() == RangeProcessPerCell {
		for _, c := range cells {
			out = append(out, []string{c})
		}
		return out
	}
	byMethod := map[string]int{}
	for _, c := range cells {
		v, _, _ := strings.Cut(c, "/")
		m := rangeMethod(exp, v)
		i, ok := byMethod[m]
		if !ok {
			i, byMethod[m] = len(out), len(out)
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// nextRound picks, after round k, the cells of todo replayed in it that
// get round k+1, and says why each of them has the replays it has: with
// rangerule.ReplaysForAll every cell whose range pass is ok, until
// rangeReplays rounds; with rangerule.ReplaysForDecisions the replay rule
// over the DRAM bytes replayed so far (rangerule.ReplayRound).
func (r *Runner) nextRound(exp *spec.Experiment, todo []string, k int) (again []string, reasons map[string]string) {
	n := r.rangeReplays()
	replays := map[string]int{}
	okCells := slices.DeleteFunc(slices.Clone(todo), func(c string) bool {
		v, s, _ := strings.Cut(c, "/")
		st, ok := r.m.Pass(exp.Name, v, s, rundir.PassRange)
		replays[c] = len(st.Replays)
		// A cell stopped in an earlier round stays stopped, with its reason.
		return !ok || st.Status != rundir.StatusOK || replays[c] != k
	})
	if r.replaysFor() == rangerule.ReplaysForAll {
		reasons = map[string]string{}
		for _, c := range okCells {
			reasons[c] = fmt.Sprintf("every cell: %d of --range-replays %d (--range-replays-for all)", replays[c], n)
			if replays[c] < n {
				again = append(again, c)
			}
		}
		return again, reasons
	}
	var shapes []string
	for _, c := range todo {
		_, s, _ := strings.Cut(c, "/")
		if !slices.Contains(shapes, s) {
			shapes = append(shapes, s)
		}
	}
	decs := exp.RangeDecisions(shapes)
	bytes := map[string][]float64{}
	for _, d := range decs {
		for _, c := range d.Cells() {
			if _, done := bytes[c]; !done {
				var warn []string
				bytes[c], warn = r.rangeBytes(exp.Name, c)
				for _, w := range warn {
					r.warn("%s", w)
				}
			}
		}
	}
	return rangerule.ReplayRound(decs, bytes, replays, okCells, n)
}

// rangeBytes are the DRAM bytes (read + write, else dram__bytes) of each
// ok replay of a cell's range pass as the manifest records it.
func (r *Runner) rangeBytes(exp, cell string) ([]float64, []string) {
	v, s, _ := strings.Cut(cell, "/")
	st, ok := r.m.Pass(exp, v, s, rundir.PassRange)
	if !ok || st.Status != rundir.StatusOK {
		return nil, nil
	}
	files := [][]string{st.Files}
	if len(st.Replays) > 0 {
		files = files[:0]
		for _, rp := range st.Replays {
			if rp.Status == rundir.StatusOK {
				files = append(files, rp.Files)
			}
		}
	}
	var out []float64
	var warn []string
	for _, fs := range files {
		if len(fs) == 0 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(fs[0])))
		if err == nil {
			var t map[string]float64
			if t, _, err = ncu.SumMetrics(data, metric.DRAMRead, metric.DRAMWrite, metric.DRAMBytes); err == nil {
				if d, ok := rangerule.DRAM(t); ok {
					out = append(out, d)
				}
				continue
			}
		}
		warn = append(warn, fmt.Sprintf("range pass of %s/%s: %s: %v: the replay rule leaves this replay out", exp, cell, fs[0], err))
	}
	return out, warn
}

// attemptRange profiles round r.round of the range pass over cells (one
// replay method; one cell unless a --cmd program's round shares a
// process). A cell's status holds every replay so far in Replays, and
// Files, Method and Coverage of its first ok one. A first replay that finds
// no range (failed, skipped, or no process reached the cell) leaves the
// cell's status to runPass, as one replay would; a later replay that fails
// is recorded among the replays and the cell keeps the ones it has.
func (r *Runner) attemptRange(ctx context.Context, exp *spec.Experiment, cells []string) attemptResult {
	k, n := max(r.round, 1), r.rangeReplays()
	kernel := map[string]rangerule.Totals{}
	var warn []string
	for _, c := range cells {
		t, err := r.kernelTotals(exp.Name, c)
		if err != nil {
			warn = append(warn, fmt.Sprintf("range pass of %s/%s: kernel pass totals: %v: coverage not checked", exp.Name, c, err))
		}
		kernel[c] = t
	}
	a := r.attemptShared(ctx, exp, cells, kernel, k, n)
	a.warn = append(warn, a.warn...)
	if a.prior == nil {
		a.prior = map[string]rundir.PassStatus{}
	}
	if a.res.Canceled {
		return a
	}
	for _, c := range cells {
		st, got := a.got[c]
		if k == 1 {
			if got && st.Status == rundir.StatusOK {
				st.Replays = []rundir.RangeReplay{replayOf(1, st)}
				a.got[c] = st
			}
			continue
		}
		v, s, _ := strings.Cut(c, "/")
		prev, _ := r.m.Pass(exp.Name, v, s, rundir.PassRange)
		rp := rundir.RangeReplay{Replay: k, Status: rundir.StatusFailed, Reason: a.res.Reason("ncu")}
		if got {
			rp = replayOf(k, st)
		}
		merged := prev
		merged.Replays = append(slices.Clone(prev.Replays), rp)
		merged.ReplayReason = ""
		a.got[c] = merged
		a.prior[c] = prev
		if rp.Status != rundir.StatusOK {
			ok := 0
			for _, x := range merged.Replays {
				if x.Status == rundir.StatusOK {
					ok++
				}
			}
			a.warn = append(a.warn, fmt.Sprintf("range pass of %s/%s: replay %d failed (%s): the DRAM spread rests on %d of %d replays", exp.Name, c, k, rp.Reason, ok, len(merged.Replays)))
		}
	}
	return a
}

// replayOf is replay k's entry from the status ncu gave it.
func replayOf(k int, st rundir.PassStatus) rundir.RangeReplay {
	return rundir.RangeReplay{Replay: k, Status: st.Status, Reason: st.Reason, Method: st.Method, Files: st.Files, Coverage: st.Coverage, Process: st.Process}
}

// attemptShared profiles replay k of several cells in one ncu process and
// checks each against its kernel pass; a cell that comes back partial or
// failed (a later range of a shared process can, DEVICE.md) is replayed
// alone (attemptReplay), and its own result stands. One cell goes straight
// to attemptReplay.
func (r *Runner) attemptShared(ctx context.Context, exp *spec.Experiment, cells []string, kernel map[string]rangerule.Totals, k, n int) attemptResult {
	if len(cells) == 1 {
		a := r.attemptReplay(ctx, exp, cells[0], kernel[cells[0]], k, n)
		setProcess(a, cells[0], rundir.ProcessAlone)
		return a
	}
	v, _, _ := strings.Cut(cells[0], "/")
	a := r.attemptNCU(ctx, exp, rundir.PassRange, cells, rangeMode(rangeMethod(exp, v), k, n, true))
	if a.res.Canceled {
		return a
	}
	for i, c := range cells {
		st, got := a.got[c]
		if !a.ran[c] || (got && st.Status != rundir.StatusOK && st.Method == "") {
			continue // the program did not reach the cell, or failed it: runPass says why
		}
		if got {
			a.warn = append(a.warn, r.cover(&st, kernel[c], exp.Name, c)...)
			st.Process = rundir.ProcessShared
			a.got[c] = st
			if st.Status == rundir.StatusOK && st.Coverage.Complete(st.Method) {
				continue
			}
		}
		// Partial or failed in the shared process: the cell alone. Its
		// replay removes the cell's CSV of this replay first; the shared
		// one is put back where it stays.
		var sharedCSV []byte
		if got && st.Status == rundir.StatusOK && len(st.Files) > 0 {
			sharedCSV, _ = os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(st.Files[0])))
		}
		b := r.attemptReplay(ctx, exp, c, kernel[c], k, n)
		setProcess(b, c, rundir.ProcessRetriedAlone)
		a.warn = append(a.warn, b.warn...)
		a.cellRetries[c] = 1 + b.retries
		if b.res.Canceled {
			// Interrupted while this cell was replayed alone: neither it (its
			// CSV of this replay already removed) nor the cells after it
			// (not yet checked against their kernel pass) has a result to
			// record, so a --resume measures them again.
			for _, rest := range cells[i:] {
				delete(a.got, rest)
			}
			a.res = b.res
			return a
		}
		bst, bgot := b.got[c]
		switch {
		case bgot && (bst.Status == rundir.StatusOK || !got || st.Status != rundir.StatusOK):
			a.got[c] = bst
			a.code[c] = cmp.Or(b.code[c], a.code[c])
		case got:
			// The shared process's partial range stays: alone did no better.
			if sharedCSV != nil {
				if err := rundir.WriteFileAtomic(filepath.Join(r.dir, filepath.FromSlash(st.Files[0])), sharedCSV); err != nil {
					a.warn = append(a.warn, fmt.Sprintf("range pass of %s/%s: %v", exp.Name, c, err))
				}
			}
			other := &rundir.PassStatus{Method: rundir.MethodRange, Status: rundir.StatusFailed, Reason: b.res.Reason("ncu")}
			if bgot {
				other = &bst
			}
			a.warn = append(a.warn, rangerule.PartialWarning(exp.Name, c, st, other))
		}
	}
	return a
}

// setProcess records in cell's status of a which process measured it,
// where ncu profiled the cell (its status names a method).
func setProcess(a attemptResult, cell, process string) {
	if st, ok := a.got[cell]; ok && st.Method != "" {
		st.Process = process
		a.got[cell] = st
	}
}

// attemptReplay profiles replay k of one cell's range: its first method,
// then app-range once when range replay failed (ncu's fault, not the
// runner's) or came back partial.
func (r *Runner) attemptReplay(ctx context.Context, exp *spec.Experiment, cell string, kernel rangerule.Totals, k, n int) attemptResult {
	variant, _, _ := strings.Cut(cell, "/")
	method := rangeMethod(exp, variant)
	a := r.attemptNCU(ctx, exp, rundir.PassRange, []string{cell}, rangeMode(method, k, n, true))
	if a.res.Canceled {
		return a
	}
	st, got := a.got[cell]
	a.warn = append(a.warn, r.cover(&st, kernel, exp.Name, cell)...)
	if got {
		a.got[cell] = st
	}
	if method != rundir.MethodRange || !rangeRetry(a, cell) {
		if got && st.Status == rundir.StatusOK && !st.Coverage.Complete(st.Method) {
			a.warn = append(a.warn, rangerule.PartialWarning(exp.Name, cell, st, nil))
		}
		return a
	}

	b := r.attemptNCU(ctx, exp, rundir.PassRange, []string{cell}, rangeMode(rundir.MethodAppRange, k, n, false))
	b.retries = 1
	b.warn = append(a.warn, b.warn...)
	if b.res.Canceled {
		return b
	}
	bst, bgot := b.got[cell]
	b.warn = append(b.warn, r.cover(&bst, kernel, exp.Name, cell)...)
	aOK := got && st.Status == rundir.StatusOK
	bOK := bgot && bst.Status == rundir.StatusOK
	switch {
	case bOK && (!aOK || bst.Coverage.Complete(bst.Method) || bst.Coverage.Score(bst.Method) > st.Coverage.Score(st.Method)):
		b.got[cell] = bst
		if !bst.Coverage.Complete(bst.Method) {
			var other *rundir.PassStatus
			if aOK {
				other = &st
			}
			b.warn = append(b.warn, rangerule.PartialWarning(exp.Name, cell, bst, other))
		}
		return b
	case aOK:
		// The partial range stays: app-range did no better.
		a.warn = b.warn
		a.retries = 1
		var other *rundir.PassStatus
		if bOK {
			other = &bst
		} else {
			other = &rundir.PassStatus{Method: rundir.MethodAppRange, Status: rundir.StatusFailed, Reason: bst.Reason}
			if !bgot {
				other.Reason = b.res.Reason("ncu")
			}
		}
		a.warn = append(a.warn, rangerule.PartialWarning(exp.Name, cell, st, other))
		return a
	case bgot:
		if got && st.Reason != "" {
			bst.Reason = "range replay: " + st.Reason + "; app-range replay: " + bst.Reason
		}
		b.got[cell] = bst
		return b
	case got:
		a.warn = b.warn
		a.retries = 1
		st.Reason += "; app-range replay: " + b.res.Reason("ncu")
		a.got[cell] = st
		return a
	}
	return b // neither process reached the cell: runPass says why
}

// rangeRetry reports whether a failed or partial range replay of cell is
// worth one app-range replay: ncu failed on a cell the runner ran ok, or
// the range was partial, or the process died on its own (not a timeout,
// not bad usage) before the runner finished the cell.
func rangeRetry(a attemptResult, cell string) bool {
	st, got := a.got[cell]
	switch {
	case got && st.Status == rundir.StatusOK:
		return !st.Coverage.Complete(st.Method)
	case got:
		return st.Status == rundir.StatusFailed && st.Method == rundir.MethodRange
	}
	return !a.res.TimedOut && a.res.ExitCode > 0 && !a.res.Exited(2)
}

// kernelTotals sums the same cell's kernel pass: nil (and no error) when
// that pass did not run ok, or recorded no CSV of the cell's own.
func (r *Runner) kernelTotals(exp, cell string) (rangerule.Totals, error) {
	v, s, _ := strings.Cut(cell, "/")
	st, ok := r.m.Pass(exp, v, s, rundir.PassNCU)
	if !ok || st.Status != rundir.StatusOK || len(st.Files) == 0 {
		return nil, nil
	}
	f := st.Files[0]
	if path.Ext(f) != ".csv" || path.Base(path.Dir(f)) != v {
		return nil, nil // the experiment's whole export: kernels not attributed to cells
	}
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(f)))
	if err != nil {
		return nil, err
	}
	t, _, err := ncu.SumMetrics(data, metric.Duration, metric.L2Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	return t, nil
}

// cover sets st.Coverage of an ok range status from its CSV (st.Files[0])
// and the kernel pass's totals; it returns warnings.
func (r *Runner) cover(st *rundir.PassStatus, kernel rangerule.Totals, exp, cell string) []string {
	if st.Status != rundir.StatusOK || kernel == nil || len(st.Files) == 0 {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(st.Files[0])))
	if err != nil {
		return []string{fmt.Sprintf("range pass of %s/%s: %v: coverage not checked", exp, cell, err)}
	}
	rng, _, err := ncu.SumMetrics(data, metric.Duration, metric.L2Bytes)
	if err != nil {
		return []string{fmt.Sprintf("range pass of %s/%s: %s: %v: coverage not checked", exp, cell, st.Files[0], err)}
	}
	st.Coverage = rangerule.Coverage(kernel, rng)
	return nil
}
