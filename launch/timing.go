package launch

import (
	"context"
	"path/filepath"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

func (r *Runner) attemptTiming(ctx context.Context, exp *spec.Experiment, cells []string) attemptResult {
	dir := r.rawDir(rundir.PassTiming, exp.Name)
	removeCellFiles(dir, cells, ".json", ".check.json", ".time-error.json")
	logf := filepath.Join(dir, "runner.log")
	res := RunCmd(ctx, Cmd{Argv: r.runnerArgv("time", exp, cells, dir), Env: r.targetEnv("time", exp, cells, dir, nil), Log: logf, Timeout: r.timeout(len(cells)), OnLine: r.onLine(exp.Name, rundir.PassTiming)})
	a := newAttempt(r.timingWhat())
	a.res = res
	for _, c := range cells {
		p := cellFile(dir, c, ".json")
		if tj, ok, err := a.readCell(c, p); ok {
			a.ran[c] = true
			switch {
			case err != nil:
				a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
			case len(tj.SamplesMs) > 0:
				a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(p)}, Code: tj.code}
			default:
				st := tj.status()
				if st.Status == rundir.StatusOK {
					st = rundir.PassStatus{Status: rundir.StatusFailed, Reason: "timing JSON has no samples_ms", Code: tj.code}
				}
				a.got[c] = st
			}
			continue
		}
		for _, suf := range []string{".check.json", ".time-error.json"} {
			q := cellFile(dir, c, suf)
			cj, ok, err := a.readCell(c, q)
			if !ok {
				continue
			}
			a.ran[c] = true
			if err != nil {
				a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
				break
			}
			st := cj.status()
			if st.Status == rundir.StatusOK {
				continue // a passing check file says nothing about timing
			}
			if suf == ".check.json" && st.Status == rundir.StatusFailed {
				st.Reason = "check failed: " + st.Reason
			}
			st.Files = []string{r.rel(q)}
			a.got[c] = st
			break
		}
	}
	if w := r.cmdExitWarning(rundir.PassTiming, a, cells, logf); w != "" {
		a.warn = append(a.warn, w)
	}
	return a
}
