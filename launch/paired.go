package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/runtables"
	"github.com/rooftool/rooftool/spec"
)

// claimPairs lists the (baseline, candidate, shape) a run times paired:
// every speedup and gpu_speedup claim of exp (each member of a best-of
// claim's fusion), at each shape the claim names, where the timing pass of
// both cells finished ok (ok reports it). Sorted, without repeats, each as
// "BASELINE/CANDIDATE/SHAPE".
func claimPairs(exp *spec.Experiment, ok func(variant, shape string) bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range exp.Claims {
		if c.Metric != "speedup" && c.Metric != "gpu_speedup" {
			continue
		}
		cands := []string{c.Candidate}
		if g, isBest := c.BestOf(); isBest {
			cands = exp.Fusions[g]
		}
		for _, cand := range cands {
			base := c.Baseline
			if base == "" {
				base = exp.BaselineFor(cand)
			}
			if base == "" || base == cand {
				continue
			}
			for _, s := range c.Shapes {
				p := base + "/" + cand + "/" + s
				if seen[p] || !ok(base, s) || !ok(cand, s) {
					continue
				}
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// pairedTiming runs kernels/run.py pair for exp's claim pairs whose cells
// the timing pass measured, in one process, after the experiment's timing
// pass (and under its lock). Records land in raw/timing/<exp>/paired/; a
// failure is a warning: the separate timing loops still stand.
func (r *Runner) pairedTiming(ctx context.Context, exp *spec.Experiment) {
	if r.cfg.Cmd != nil {
		return // a --cmd program has no claims of its own to pair
	}
	pairs := claimPairs(exp, func(v, s string) bool {
		st, ok := r.m.Pass(exp.Name, v, s, rundir.PassTiming)
		return ok && st.Status == rundir.StatusOK
	})
	if len(pairs) == 0 {
		return
	}
	dir := r.rawDir(rundir.PassTiming, exp.Name)
	for _, p := range pairs {
		b, rest, _ := strings.Cut(p, "/")
		c, s, _ := strings.Cut(rest, "/")
		os.Remove(filepath.Join(dir, runtables.PairedDir, b+"~"+c+"~"+s+".json"))
	}
	r.prog.Begin(fmt.Sprintf("%s paired timing: %d pairs", exp.Name, len(pairs)))
	res := RunCmd(ctx, Cmd{Argv: pairArgv(r.cfg.Python, r.runPy, exp.Name, pairs, dir), Env: r.runnerEnvVars(nil),
		Log: filepath.Join(dir, runtables.PairedDir+".log"), Timeout: r.timeout(2 * len(pairs))})
	if res.ExitCode != 0 || res.Err != nil {
		r.warn("%s: paired timing of %d claim pairs did not finish cleanly (exit %d%s); see %s", exp.Name, len(pairs), res.ExitCode,
			errSuffix(res), r.rel(filepath.Join(dir, runtables.PairedDir+".log")))
	}
}

func errSuffix(res Result) string {
	switch {
	case res.TimedOut:
		return ", timed out"
	case res.Err != nil:
		return ": " + res.Err.Error()
	}
	return ""
}

// pairArgv is the runner's pair-mode command line.
func pairArgv(python, runPy, exp string, pairs []string, out string) []string {
	argv := []string{python, runPy, "pair", "--experiment", exp}
	for _, p := range pairs {
		argv = append(argv, "--pair", p)
	}
	return append(argv, "--out", out)
}
