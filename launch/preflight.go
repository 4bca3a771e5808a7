package launch

import (
	"context"
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// PreflightError is Run's error where this machine lacks what the planned
// passes need (a GPU, the runner's torch, ncu, nsys): it is returned before
// any cell runs and before the run directory is made, and names each
// missing piece with what to do; `rooftool doctor` checks them all.
type PreflightError struct {
	Missing []string
}

func (e *PreflightError) Error() string {
	var b strings.Builder
	b.WriteString("this machine lacks what the run needs; nothing was run:")
	for _, m := range e.Missing {
		b.WriteString("\n  - ")
		b.WriteString(m)
	}
	b.WriteString("\nrooftool doctor checks the machine and says how to fix each")
	return b.String()
}

// preflight checks, before any cell runs, what the planned passes need:
// every pass a GPU (nvidia-smi lists one, or the runner's CUDA names its
// device); the kernel runner's
// environment (run.py env: python with torch) for the experiments, not for
// a --cmd program, which brings its own; ncu for the ncu and range passes,
// nsys for the nsys pass. Tools are found as the passes find them (the
// --ncu/--nsys/--python flags, then PATH), so fakes on PATH count.
func (r *Runner) preflight(ctx context.Context, passes map[string]bool, env RunnerEnv, envErr error) error {
	var missing []string
	smi := r.cfg.SMI
	var err error
	if smi == "" {
		smi, err = FindSMI()
	}
	if err == nil {
		_, err = QueryGPUs(ctx, smi)
	}
	if err != nil && envErr == nil && env.String("device") != "" {
		err = nil // the runner's CUDA sees a device nvidia-smi does not list (a container without it)
	}
	if err != nil {
		missing = append(missing, fmt.Sprintf("a GPU: %v (profile runs on a machine with an NVIDIA GPU and driver; ingest, stats, report and diff work here)", err))
	}
	if r.cfg.Cmd == nil && envErr != nil {
		missing = append(missing, fmt.Sprintf("the kernel runner's python with torch: %v (pass --python PATH of a python that has torch)", envErr))
	}
	if passes[rundir.PassNCU] || passes[rundir.PassRange] {
		if _, err := FindNCU(r.cfg.NCU); err != nil {
			missing = append(missing, fmt.Sprintf("ncu (ncu and range passes): %v (install Nsight Compute or pass --ncu PATH)", err))
		}
	}
	if passes[rundir.PassNsys] {
		if _, err := nsys.Find(r.cfg.Nsys); err != nil {
			missing = append(missing, fmt.Sprintf("nsys (nsys pass): %v; or pass --nsys PATH", err))
		}
	}
	if len(missing) > 0 {
		return &PreflightError{Missing: missing}
	}
	return nil
}
