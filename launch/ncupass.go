package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/ncu"
	"github.com/rooftool/rooftool/spec"
)

// nextPart returns the first "part-N" with no file of that stem in dir, so
// that a resumed or re-launched pass never overwrites an earlier export.
func nextPart(dir string) string {
	for i := 1; ; i++ {
		stem := fmt.Sprintf("part-%d", i)
		ms, _ := filepath.Glob(filepath.Join(dir, stem+".*"))
		if len(ms) == 0 {
			return stem
		}
	}
}

// profileVerdicts reads each cell's profile.json: which cells the runner
// reached and which it reported failed or skipped. The code record of a
// cell it ran ok goes to a.code.
func (r *Runner) profileVerdicts(dir string, cells []string, a *attemptResult) map[string]bool {
	okCells := map[string]bool{}
	for _, c := range cells {
		cj, ok, err := a.readCell(c, cellFile(dir, c, ".profile.json"))
		if !ok {
			continue
		}
		a.ran[c] = true
		if err != nil {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
			continue
		}
		st := cj.status()
		if st.Status != rundir.StatusOK {
			a.got[c] = st
			continue
		}
		okCells[c] = true
		a.code[c] = cj.code
	}
	return okCells
}

// startProfilerAttempt begins an ncu or nsys attempt over cells: every cell
// fails with toolErr when the profiler was not found; otherwise dir is made,
// the cells' stale files (suffixes) removed, and the next export part named.
// ok is false when the attempt ends there.
func startProfilerAttempt(what string, toolErr error, dir string, cells []string, stale ...string) (a attemptResult, part string, ok bool) {
	a = newAttempt(what)
	if toolErr != nil {
		for _, c := range cells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: toolErr.Error()}
		}
		return a, "", false
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		a.res = Result{ExitCode: -1, Err: err}
		return a, "", false
	}
	removeCellFiles(dir, cells, stale...)
	return a, nextPart(dir), true
}

// ncuMode is how one ncu process profiles its cells.
type ncuMode struct {
	method string   // rundir.MethodKernel, MethodRange or MethodAppRange
	suffix string   // of each cell's own CSV: <shape><suffix>
	stale  []string // cell files removed before the process starts
	scale  int      // timeout multiplier (app-range replays the whole runner per pass)
}

// kernelMode is the ncu pass: per-kernel replay, caches flushed per kernel.
var kernelMode = ncuMode{method: rundir.MethodKernel, suffix: ".csv", stale: []string{".profile.json", ".csv"}, scale: 1}

// replayArgs are ncu's options for the mode's replay method.
func (m ncuMode) replayArgs() []string {
	switch m.method {
	case rundir.MethodRange, rundir.MethodAppRange:
		return []string{"--replay-mode", m.method, "--cache-control", "none"}
	}
	return nil
}

func (r *Runner) attemptNCU(ctx context.Context, exp *spec.Experiment, pass string, cells []string, mode ncuMode) attemptResult {
	dir := r.rawDir(pass, exp.Name)
	a, part, ok := startProfilerAttempt("ncu", r.ncuErr, dir, cells, mode.stale...)
	if !ok {
		return a
	}
	rep := filepath.Join(dir, part+".ncu-rep")
	tmp := filepath.Join(dir, "."+part+".tmp.ncu-rep")
	logf := filepath.Join(dir, part+".log")
	metrics := r.metrics
	if pass == rundir.PassRange {
		metrics = r.rmetrics
	}
	var res Result
	for try := 0; ; try++ {
		argv := []string{r.ncu, "--export", tmp, "--force-overwrite", "--clock-control", "none", "--nvtx"}
		for _, c := range cells {
			argv = append(argv, "--nvtx-include", exp.Name+"/"+c+"/")
		}
		argv = append(argv, mode.replayArgs()...)
		argv = append(argv, "--metrics", strings.Join(metrics, ","))
		argv = append(argv, r.runnerArgv("profile", exp, cells, dir)...)
		res = RunCmd(ctx, Cmd{Argv: argv, Env: r.targetEnv("profile", exp, cells, dir, nil), Log: logf, Timeout: r.timeout(len(cells) * max(mode.scale, 1)), OnLine: r.onLine(exp.Name, pass)})
		logText, _ := os.ReadFile(logf)
		missing := ncu.MissingMetrics(string(logText))
		if len(missing) == 0 || try >= 2 || res.Canceled {
			break
		}
		var keep []string
		for _, m := range metrics {
			base, _, _ := strings.Cut(m, ".")
			if !slices.ContainsFunc(missing, func(x string) bool { return x == m || x == base }) {
				keep = append(keep, m)
			}
		}
		if len(keep) == len(metrics) || len(keep) == 0 {
			break
		}
		a.warn = append(a.warn, fmt.Sprintf("ncu rejected metric(s) %s: profiled again without them", strings.Join(missing, ", ")))
		metrics = keep
		if pass == rundir.PassRange {
			r.rmetrics = keep
		} else {
			r.metrics = keep
		}
		removeCellFiles(dir, cells, ".profile.json")
	}
	a.res = res
	logText, _ := os.ReadFile(logf)
	errLines := ncu.ErrorLines(string(logText))
	okCells := r.profileVerdicts(dir, cells, &a)
	// Every status of a cell ncu profiled names the method (a.got is a
	// map: the returned copy of a sees this).
	defer func() {
		for c := range okCells {
			if st, ok := a.got[c]; ok {
				st.Method = mode.method
				a.got[c] = st
			}
		}
	}()
	if res.Canceled {
		return a
	}
	if _, err := os.Stat(tmp); err != nil {
		if !res.Exited(0, 1) && errLines == "" {
			return a // crash or timeout: cells not reached are retried
		}
		why := "ncu wrote no report"
		if errLines != "" {
			why += ": " + errLines
		} else {
			why += ": " + res.Reason("ncu")
		}
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
		return a
	}
	if err := os.Rename(tmp, rep); err != nil {
		a.res.Err = err
		return a
	}
	csvPath := filepath.Join(dir, part+".csv")
	ires := RunCmd(ctx, Cmd{Argv: []string{r.ncu, "--import", rep, "--csv", "--page", "raw", "--print-units", "base"}, Stdout: csvPath, Log: logf, Timeout: 10 * time.Minute})
	if !ires.Exited(0) {
		why := ires.Reason("ncu --import")
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
		return a
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		a.res.Err = err
		return a
	}
	split, err := ncu.SplitCSV(data, exp.Name, cells)
	if err != nil {
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: fmt.Sprintf("%s: %v", r.rel(csvPath), err)}
		}
		return a
	}
	if pass == rundir.PassRange {
		if w := attributeRangeRows(split, cells, okCells); w != "" {
			a.warn = append(a.warn, fmt.Sprintf("%s: %s", r.rel(csvPath), w))
		}
	}
	passes := ncu.ReplayPasses(string(logText))
	wholeOK := pass == rundir.PassNCU && !split.HasNVTX && len(split.Rows) > 0
	if wholeOK {
		a.warn = append(a.warn, fmt.Sprintf("%s has no NVTX column: kernels are not attributed to cells", r.rel(csvPath)))
	}
	for c := range okCells {
		var ks []rundir.KernelReplay
		for _, row := range split.Rows {
			if row.Cell == c {
				ks = append(ks, rundir.KernelReplay{ID: row.ID, Name: shortKernel(row.Name), Passes: passes[row.ID]})
			}
		}
		switch {
		case len(ks) > 0:
			p := cellFile(dir, c, mode.suffix)
			if err := rundir.WriteFileAtomic(p, split.CellCSV(c)); err != nil {
				a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
				continue
			}
			a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(p), r.rel(csvPath), r.rel(rep)}, Kernels: ks}
		case wholeOK:
			a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(csvPath), r.rel(rep)}}
		default:
			why := fmt.Sprintf("ncu recorded nothing in NVTX range %s/%s/", exp.Name, c)
			if errLines != "" {
				why += ": " + errLines
			}
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
	}
	return a
}

// attributeRangeRows gives range rows that carry no NVTX stack of their own
// to cells: in a process that profiled one cell every row is that cell's;
// over several cells, rows go by launch order when their count matches the
// cells that ran (said so in the returned warning).
func attributeRangeRows(split *ncu.Split, cells []string, okCells map[string]bool) string {
	var loose []int
	for i, row := range split.Rows {
		if row.Cell == "" {
			loose = append(loose, i)
		}
	}
	if len(loose) == 0 {
		return ""
	}
	if len(cells) == 1 {
		if okCells[cells[0]] {
			for _, j := range loose {
				split.Rows[j].Cell = cells[0]
			}
		}
		return ""
	}
	var order []string
	for _, c := range cells {
		if okCells[c] && countRows(split, c) == 0 {
			order = append(order, c)
		}
	}
	if len(loose) != len(order) {
		return ""
	}
	for i, j := range loose {
		split.Rows[j].Cell = order[i]
	}
	return "ncu range rows carry no NVTX path; attributed to cells in launch order"
}

func countRows(s *ncu.Split, cell string) int {
	n := 0
	for _, r := range s.Rows {
		if r.Cell == cell {
			n++
		}
	}
	return n
}

// shortKernel trims a kernel's name to at most 160 bytes for the manifest.
func shortKernel(n string) string {
	if len(n) > 160 {
		return n[:157] + "..."
	}
	return n
}
