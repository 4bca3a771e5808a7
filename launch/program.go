package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/launch/cmdprog"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/shard"
	"github.com/rooftool/rooftool/spec"
)

// The runner's side of a --cmd program (package cmdprog): the discovery
// run that lists the cells it marks, and its settings in each pass.

// targetEnv is the environment of the process a pass runs over cells
// ("variant/shape") of exp, writing into dir (raw/<pass>/<exp>): the
// runner's with extra, and for a --cmd program its marks settings.
func (r *Runner) targetEnv(mode string, exp *spec.Experiment, cells []string, dir string, extra []string) []string {
	env := r.runnerEnvVars(extra)
	if r.cfg.Cmd == nil {
		return env
	}
	keys := make([]string, len(cells))
	for i, c := range cells {
		keys[i] = exp.Name + "/" + c
	}
	return append(env, r.cfg.Cmd.MarksEnv(mode, filepath.Dir(dir), r.dir, keys, r.cfg.Reps)...)
}

// timingWhat names the timing process in a failed cell's reason.
func (r *Runner) timingWhat() string {
	if r.cfg.Cmd != nil {
		return "--cmd (timing run)"
	}
	return "runner time"
}

// cmdExitWarning is the warning about a --cmd program that exited non-zero
// after writing the records of every cell it was asked for ("" otherwise):
// its cells count, but the program reported a failure of its own.
func (r *Runner) cmdExitWarning(pass string, a attemptResult, cells []string, log string) string {
	if r.cfg.Cmd == nil || a.res.ExitCode <= 0 || slices.ContainsFunc(cells, func(c string) bool { return !a.ran[c] }) {
		return ""
	}
	return fmt.Sprintf("%s pass: --cmd %q exited with status %d after writing every record (log %s): %s", pass, r.cfg.Cmd.Line, a.res.ExitCode, r.rel(log), a.res.Tail)
}

// discover runs the --cmd program once with the helper in list mode (each
// marked body once, no range, no timing), checks the cells it marked and
// plans them in the order met. Each experiment's spec (its variants and
// shapes as marked; roles from the claims) and the claims go into the run's
// specs/ snapshot, which the report judges the run by. It returns the cells
// and their plan hash. A program that cannot start, marks nothing or
// marks a malformed or repeated range is a plan.ConfigError; one that
// fails otherwise is an error naming its log.
func (r *Runner) discover(ctx context.Context) ([]plan.Cell, string, error) {
	t := r.cfg.Cmd
	if err := t.Check(r.cfg.Passes, r.cfg.Shard.Count > 0, r.cfg.RunDir, r.m.Options[cmdprog.Option]); err != nil {
		return nil, "", err
	}
	if err := cmdprog.WriteHelper(r.dir, r.cfg.KernelsDir); err != nil {
		return nil, "", err
	}
	raw := filepath.Join(r.dir, filepath.FromSlash(cmdprog.MarksRawDir))
	listed := filepath.Join(raw, cmdprog.MarksListed)
	logf := filepath.Join(raw, "run.log")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		return nil, "", err
	}
	os.Remove(listed)
	r.prog.Begin("--cmd: discovering the marked cells (each marked region once)")
	res := RunCmd(ctx, Cmd{Argv: t.Argv, Env: append(r.runnerEnvVars(nil), t.MarksEnv("list", raw, r.dir, nil, r.cfg.Reps)...), Log: logf, Timeout: r.cfg.Timeout})
	keys, bad, rerr := cmdprog.ReadMarks(listed)
	cmd := fmt.Sprintf("--cmd %q", t.Line)
	switch {
	case res.Canceled:
		return nil, "", ctx.Err()
	case res.ExitCode < 0 && res.Err != nil && !res.TimedOut:
		return nil, "", configErrorf("%s: %v", cmd, res.Err)
	case len(bad) > 0:
		return nil, "", configErrorf("%s: malformed range name: %s", cmd, strings.Join(bad, "; "))
	case rerr != nil:
		return nil, "", configErrorf("%s: %s: %w", cmd, r.rel(listed), rerr)
	case res.TimedOut:
		return nil, "", fmt.Errorf("%s: its discovery run (each marked region once) was still running after %s (--timeout); log %s", cmd, r.cfg.Timeout, r.rel(logf))
	case res.ExitCode != 0:
		return nil, "", fmt.Errorf("%s exited with status %d in its discovery run (each marked region once; log %s): %s", cmd, res.ExitCode, r.rel(logf), res.Tail)
	case len(keys) == 0:
		return nil, "", configErrorf("%s marked no range (log %s): mark each variant's call with `for _ in rooftool_marks.mark(experiment, variant, shape):` (kernels/README.md, \"Profile a program of your own\")", cmd, r.rel(logf))
	}
	specs, err := t.Experiments(keys, r.cfg.Passes)
	if err != nil {
		return nil, "", err
	}
	warns, err := specs.WriteSnapshot(r.dir)
	for _, w := range warns {
		r.warn("%s", w)
	}
	if err != nil {
		return nil, "", err
	}
	var cells []plan.Cell
	for _, k := range keys {
		cells = append(cells, plan.Cell{Exp: specs.Exps[k.Experiment], Variant: k.Variant, Shape: k.Shape, Passes: r.cfg.Passes})
	}
	_, _, hash, err := shard.Split(cells, nil, 0, false)
	if err != nil {
		return nil, "", err
	}
	if r.m.Options == nil {
		r.m.Options = map[string]string{}
	}
	r.m.Options[cmdprog.Option] = t.Line
	r.m.Options[cmdprog.OptionHelper] = cmdprog.MarksHelperDir + "/rooftool_marks"
	r.m.Options[cmdprog.OptionCells] = cmdprog.MarksRawDir + "/" + cmdprog.MarksListed
	delete(r.m.Options, cmdprog.OptionClaims)
	if t.Claims != "" {
		r.m.Options[cmdprog.OptionClaims] = t.Claims
	}
	return cells, hash, nil
}
