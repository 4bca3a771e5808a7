package launch

import (
	"context"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
)

// recordRun records in the manifest this invocation and what the run stands
// on: the GPU requested and found (a resumed run keeps the device it began
// on; another unit is named in its passes), shard, plan hash, versions of
// rooftool, the runner's environment and the driver, and the kernels'
// commit. The runner environment's error and the GPU warnings become run
// warnings.
func (r *Runner) recordRun(ctx context.Context, resumed bool, planHash string, env RunnerEnv, envErr error, dev rundir.GPUInfo, driver string, gwarn []string) {
	m := r.m
	r.recordInvocation(resumed, dev.Name)
	m.GPURequested = r.cfg.GPU
	m.Shard = r.cfg.Shard.String()
	m.PlanHash = planHash
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	m.Versions["rooftool"] = r.cfg.Version
	if envErr == nil {
		env.Fill(&dev)
		for k, v := range env.Versions() {
			m.Versions[k] = v
		}
	}
	if driver != "" {
		m.Versions["driver"] = driver // nvidia-smi's word over the runner's
	}
	if envErr != nil {
		r.warn("runner environment: %v", envErr)
	}
	if !resumed || m.GPU.Name == "" {
		m.GPU = dev // a resumed run keeps the device it began on; Resumed names any other
	} else if dev.UUID != "" && m.GPU.UUID != "" && dev.UUID != m.GPU.UUID {
		// Another unit (of the same model or not): its passes say so.
		r.passGPU = dev.UUID
		m.Resumed[len(m.Resumed)-1].GPUUUID = dev.UUID
	}
	for _, w := range gwarn {
		r.warn("%s", w)
	}
	switch {
	case r.cfg.KernelsFrom == KernelsFromInstalled:
		// Kernels installed with rooftool: built from its commit, and
		// whatever git repository holds the install is not theirs.
		if r.cfg.Commit != "" {
			m.GitCommit = r.cfg.Commit
		}
	case r.cfg.KernelsDir != "":
		if c := gitCommit(ctx, r.cfg.KernelsDir); c != "" {
			m.GitCommit = c
		}
	}
}

// listCells lists every planned cell in the manifest from the start, and
// returns how many of their passes are still to run.
func (r *Runner) listCells(cells []plan.Cell) int {
	units := 0
	for _, c := range cells {
		r.m.Cell(c.Exp.Name, c.Variant, c.Shape)
		for _, p := range c.Passes {
			if st, ok := r.m.Pass(c.Exp.Name, c.Variant, c.Shape, p); !ok || !finished(st) {
				units++
			}
		}
	}
	return units
}
