package launch

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

func (r *Runner) attemptNsys(ctx context.Context, exp *spec.Experiment, cells []string) attemptResult {
	dir := r.rawDir(rundir.PassNsys, exp.Name)
	a, part, ok := startProfilerAttempt("nsys", r.nsysErr, dir, cells, ".profile.json")
	if !ok {
		return a
	}
	tmpBase := filepath.Join(dir, "."+part+".tmp")
	logf := filepath.Join(dir, part+".log")
	// --cuda-graph-trace=node: a graph launch otherwise appears as one
	// whole-graph row and its kernels are missing from the kernel table.
	argv := []string{r.nsys, "profile", "--trace=cuda,nvtx", "--sample=none", "--cpuctxsw=none", "--cuda-graph-trace=node", "--force-overwrite=true", "-o", tmpBase}
	argv = append(argv, r.runnerArgv("profile", exp, cells, dir)...)
	res := RunCmd(ctx, Cmd{Argv: argv, Env: r.targetEnv("profile", exp, cells, dir, r.nsysEnv), Log: logf, Timeout: r.timeout(len(cells)), OnLine: r.onLine(exp.Name, rundir.PassNsys)})
	a.res = res
	okCells := r.profileVerdicts(dir, cells, &a)
	if res.Canceled {
		return a
	}
	failAll := func(why string) {
		for c := range okCells {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: why}
		}
	}
	tmpRep := tmpBase + ".nsys-rep"
	if _, err := os.Stat(tmpRep); err != nil {
		if !res.Exited(0, 1) {
			return a
		}
		why := "nsys wrote no .nsys-rep: " + res.Reason("nsys profile")
		if q, _ := filepath.Glob(tmpBase + "*.qdstrm"); len(q) > 0 {
			os.Rename(q[0], filepath.Join(dir, part+".qdstrm"))
			why = "nsys recorded a .qdstrm but its importer made no .nsys-rep (QdstrmImporter cannot load libdw.so.1? see `rooftool doctor`; fix: unpack libdw1 and libelf1 into .nsysdeps or pass --nsys-libs): " + res.Reason("nsys profile")
		}
		failAll(why)
		return a
	}
	rep := filepath.Join(dir, part+".nsys-rep")
	if err := os.Rename(tmpRep, rep); err != nil {
		failAll(err.Error())
		return a
	}
	tmpDB := tmpBase + ".sqlite"
	eres := RunCmd(ctx, Cmd{Argv: []string{r.nsys, "export", "--type", "sqlite", "--force-overwrite=true", "-o", tmpDB, rep}, Env: r.nsysEnv, Log: logf, Timeout: 10 * time.Minute})
	if _, err := os.Stat(tmpDB); err != nil || !eres.Exited(0) {
		a.what = "nsys export"
		failAll(eres.Reason("nsys export --type sqlite"))
		return a
	}
	db := filepath.Join(dir, part+".sqlite")
	if err := os.Rename(tmpDB, db); err != nil {
		failAll(err.Error())
		return a
	}
	ks := nsysCellKernels(db, exp.Name, okCells)
	for c := range okCells {
		a.got[c] = rundir.PassStatus{Status: rundir.StatusOK, Files: []string{r.rel(db), r.rel(rep)}, Kernels: ks[c]}
	}
	return a
}

// nsysCellKernels lists the kernels an nsys export traced inside each
// cell's NVTX range, in launch order (ID: the CUDA correlation id). It
// costs one parse of the SQLite; an export ingest cannot read gives none
// (ingest says why at the end of the run).
func nsysCellKernels(db, exp string, okCells map[string]bool) map[string][]rundir.KernelReplay {
	var cells []string
	for c := range okCells {
		cells = append(cells, c)
	}
	tb, err := detect.File(db, ingest.Options{Experiment: exp, Cells: cells}, nil)
	if err != nil {
		return nil
	}
	defer tb.Release()
	ks := tb.Kernels()
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].StartNs < ks[j].StartNs })
	out := map[string][]rundir.KernelReplay{}
	for _, k := range ks {
		c := k.Variant + "/" + k.Shape
		if k.Experiment == exp && okCells[c] {
			out[c] = append(out[c], rundir.KernelReplay{ID: int(k.CorrelationID), Name: shortKernel(k.Name)})
		}
	}
	return out
}
