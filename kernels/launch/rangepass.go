package launch

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
)

// The range pass measures each cell's whole NVTX range (L2 reuse between
// its kernels included) with one ncu process per cell: with several cells in
// one process, ncu 2025.3.1 range replay returned a later cell's range
// partial without an error (kernels/README.md, DEVICE.md). A cell is
// replayed Config.RangeReplays times, each replay its own ncu process and
// its own CSV (<shape>.range.csv, then <shape>.range.r2.csv, ...), so that
// its DRAM bytes come with their spread. Each replay is checked against the
// same cell's kernel pass (Coverage): a replay that fails or covers less
// than rundir.MinRangeCoverage is replayed once more with app-range, and the
// more complete result is kept.

// DefaultRangeReplays is how many times the range pass replays each cell
// when Config.RangeReplays is 0.
const DefaultRangeReplays = 3

// rangeReplays is the number of replays per cell this run makes.
func (r *Runner) rangeReplays() int {
	if r.cfg.RangeReplays > 0 {
		return r.cfg.RangeReplays
	}
	return DefaultRangeReplays
}

// Which cells the range pass replays rangeReplays times (Config.RangeReplaysFor);
// the others are replayed once.
const (
	ReplaysForAll       = "all"       // every cell
	ReplaysForDecisions = "decisions" // the cells a range-decided claim rests on (kernels.Experiment.RangeDecided)
)

// replaysFor is the number of range replays of one cell.
func (r *Runner) replaysFor(exp *kernels.Experiment, cell string) int {
	n := r.rangeReplays()
	if r.cfg.RangeReplaysFor != ReplaysForDecisions {
		return n
	}
	variant, shape, _ := strings.Cut(cell, "/")
	if !exp.RangeDecided(variant, shape) {
		return 1
	}
	return n
}

// Metrics the coverage compares.
const (
	metricTime = "gpu__time_duration.sum"
	metricL2   = "lts__t_bytes.sum"
)

// appRangeTimeoutScale: app-range replays the whole runner once per ncu
// pass, so its process gets this many times the per-cell timeout.
const appRangeTimeoutScale = 3

// rangeMethod is how a cell's range is replayed first: app-range for a
// CUDA-graph variant (range replay fails on cuGraphLaunch: "Unsupported API
// during capture"), range for the others.
func rangeMethod(exp *kernels.Experiment, variant string) string {
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

// attemptRange replays one cell's range rangeReplays times, each replay its
// own ncu process (attemptReplay). The cell's status is the first ok
// replay's, with every replay's outcome in Replays. A first replay that
// finds no range (failed, skipped, or no process reached the cell) ends the
// pass there, as one replay would.
func (r *Runner) attemptRange(ctx context.Context, exp *kernels.Experiment, cell string) attemptResult {
	n := r.replaysFor(exp, cell)
	kernel, kerr := r.kernelTotals(exp.Name, cell)
	var warn []string
	if kerr != nil {
		warn = append(warn, fmt.Sprintf("range pass of %s/%s: kernel pass totals: %v: coverage not checked", exp.Name, cell, kerr))
	}
	var kept attemptResult
	var replays []rundir.RangeReplay
	found, procs, ok := false, 0, 0
	for k := 1; k <= n; k++ {
		a := r.attemptReplay(ctx, exp, cell, kernel, k, n)
		procs += 1 + a.retries
		warn = append(warn, a.warn...)
		st, got := a.got[cell]
		if a.res.Canceled || (k == 1 && (!got || st.Status != rundir.StatusOK)) {
			a.warn, a.retries = warn, procs-1
			return a
		}
		rp := rundir.RangeReplay{Replay: k, Status: st.Status, Reason: st.Reason, Method: st.Method, Files: st.Files, Coverage: st.Coverage}
		if !got {
			rp = rundir.RangeReplay{Replay: k, Status: rundir.StatusFailed, Reason: a.res.Reason("ncu")}
		}
		replays = append(replays, rp)
		if rp.Status == rundir.StatusOK {
			ok++
			if !found {
				kept, found = a, true
			}
		}
	}
	if ok < n {
		warn = append(warn, fmt.Sprintf("range pass of %s/%s: %d of %d replays ok: the DRAM spread rests on %d", exp.Name, cell, ok, n, ok))
	}
	st := kept.got[cell]
	st.Replays = replays
	kept.got[cell] = st
	kept.warn, kept.retries = warn, procs-1
	return kept
}

// attemptReplay profiles replay k of one cell's range: its first method,
// then app-range once when range replay failed (ncu's fault, not the
// runner's) or came back partial.
func (r *Runner) attemptReplay(ctx context.Context, exp *kernels.Experiment, cell string, kernel ncuTotals, k, n int) attemptResult {
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
			a.warn = append(a.warn, partialWarning(exp.Name, cell, st, nil))
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
			b.warn = append(b.warn, partialWarning(exp.Name, cell, bst, other))
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
		a.warn = append(a.warn, partialWarning(exp.Name, cell, st, other))
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

// partialWarning names a cell whose range no method measured completely.
func partialWarning(exp, cell string, kept rundir.PassStatus, other *rundir.PassStatus) string {
	w := fmt.Sprintf("range pass of %s/%s: no replay method reached %.2f of the kernel pass: %s", exp, cell, rundir.MinRangeCoverage, describeCoverage(kept))
	if other != nil {
		if other.Status == rundir.StatusOK {
			w += "; " + describeCoverage(*other)
		} else {
			w += fmt.Sprintf("; %s failed: %s", other.Method, other.Reason)
		}
	}
	return w + fmt.Sprintf("; kept %s: its bytes may undercount the cell", kept.Method)
}

func describeCoverage(st rundir.PassStatus) string {
	c := st.Coverage
	var parts []string
	if c != nil && c.Time != nil {
		parts = append(parts, fmt.Sprintf("time %.2f", *c.Time))
	}
	if c != nil && c.L2Bytes != nil {
		parts = append(parts, fmt.Sprintf("l2 bytes %.2f", *c.L2Bytes))
	}
	if len(parts) == 0 {
		return st.Method + " unmeasured"
	}
	return st.Method + " covers " + strings.Join(parts, ", ")
}

// ncuTotals are a few metrics summed over the rows of an ncu CSV; a metric
// no row carried is absent.
type ncuTotals map[string]float64

// kernelTotals sums the same cell's kernel pass: nil (and no error) when
// that pass did not run ok, or recorded no CSV of the cell's own.
func (r *Runner) kernelTotals(exp, cell string) (ncuTotals, error) {
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
	t, err := SumNCUMetrics(data, metricTime, metricL2)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	return t, nil
}

// cover sets st.Coverage of an ok range status from its CSV (st.Files[0])
// and the kernel pass's totals; it returns warnings.
func (r *Runner) cover(st *rundir.PassStatus, kernel ncuTotals, exp, cell string) []string {
	if st.Status != rundir.StatusOK || kernel == nil || len(st.Files) == 0 {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(st.Files[0])))
	if err != nil {
		return []string{fmt.Sprintf("range pass of %s/%s: %v: coverage not checked", exp, cell, err)}
	}
	rng, err := SumNCUMetrics(data, metricTime, metricL2)
	if err != nil {
		return []string{fmt.Sprintf("range pass of %s/%s: %s: %v: coverage not checked", exp, cell, st.Files[0], err)}
	}
	st.Coverage = coverage(kernel, rng)
	return nil
}

// coverage compares range totals with kernel totals.
func coverage(kernel, rng ncuTotals) *rundir.Coverage {
	c := &rundir.Coverage{
		KernelTimeNs: kernel[metricTime], RangeTimeNs: rng[metricTime],
		KernelL2Bytes: kernel[metricL2], RangeL2Bytes: rng[metricL2],
	}
	ratio := func(m string) *float64 {
		k, kok := kernel[m]
		v, vok := rng[m]
		if !kok || !vok {
			return nil
		}
		return rundir.CoverageRatio(v, k)
	}
	c.Time = ratio(metricTime)
	c.L2Bytes = ratio(metricL2)
	return c
}

// SumNCUMetrics sums the named metrics over the result rows of an ncu
// --csv --page raw export, in base units (ns, byte) whatever units its
// units row names. A metric with no column or no number is left out.
func SumNCUMetrics(data []byte, names ...string) (map[string]float64, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var cols map[string]int
	scale := map[string]float64{}
	out := map[string]float64{}
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "==") {
			continue
		}
		rec, err := parseCSVLine([]byte(line))
		if err != nil || len(rec) == 0 {
			continue
		}
		if cols == nil {
			if strings.TrimSpace(rec[0]) != "ID" {
				continue
			}
			cols = map[string]int{}
			for i, h := range rec {
				for _, n := range names {
					if h == n {
						cols[n] = i
						scale[n] = 1
					}
				}
			}
			continue
		}
		if strings.TrimSpace(rec[0]) == "" { // the units row
			for n, i := range cols {
				if i < len(rec) {
					f, err := unitScale(rec[i])
					if err != nil {
						return nil, fmt.Errorf("%s: %w", n, err)
					}
					scale[n] = f
				}
			}
			continue
		}
		if _, err := strconv.Atoi(strings.TrimSpace(rec[0])); err != nil {
			continue
		}
		for n, i := range cols {
			if i >= len(rec) {
				continue
			}
			v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(rec[i]), ",", ""), 64)
			if err != nil {
				continue // n/a: not collected for this row
			}
			out[n] += v * scale[n]
		}
	}
	if cols == nil {
		return nil, errNoHeader
	}
	return out, nil
}

// unitScale converts ncu's time and byte units to ns and bytes.
func unitScale(u string) (float64, error) {
	switch strings.TrimSpace(u) {
	case "", "ns", "nsecond", "byte":
		return 1, nil
	case "us", "usecond":
		return 1e3, nil
	case "ms", "msecond":
		return 1e6, nil
	case "s", "second":
		return 1e9, nil
	case "Kbyte", "KB":
		return 1e3, nil
	case "Mbyte", "MB":
		return 1e6, nil
	case "Gbyte", "GB":
		return 1e9, nil
	case "Tbyte", "TB":
		return 1e12, nil
	case "KiB":
		return 1 << 10, nil
	case "MiB":
		return 1 << 20, nil
	case "GiB":
		return 1 << 30, nil
	}
	return 0, fmt.Errorf("unit %q: not a time or byte unit", u)
}
