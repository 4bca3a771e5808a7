package reports

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
)

// Input is what Build turns into a Report: a run loaded and analysed by
// package pipeline (Run and Experiments are required; the rest may be
// zero), and the plots drawn of it. Warnings gathers the run-level
// warnings of loading and of plotting.
type Input struct {
	pipeline.Result
	Plots map[string][]Plot // experiment -> plots written
}

// Build derives the report: the verdict of every claim of every experiment
// at each of its shapes (claims are never dropped: one without a
// measurement is NOT MEASURED with the reason), each experiment's
// per-shape tables, and from the verdicts the answer table. It is
// deterministic.
func Build(in Input) *Report {
	x := newIndex(in.Run, in.Manifest, in.Checks)
	x.clocks, x.deviceClocks = in.CellSMClocks, in.CellDeviceSMClocks
	x.paired = in.Paired
	r := &Report{Version: 5, Run: runInfo(in), Time: timeOf(in.Manifest)}
	if in.Run != nil {
		r.Warnings = append(r.Warnings, in.Run.Warnings...)
	}
	r.Warnings = append(r.Warnings, in.Warnings...)
	r.Warnings = dedupe(r.Warnings)
	exps := append([]*spec.Experiment(nil), in.Experiments...)
	sort.SliceStable(exps, func(i, j int) bool { return exps[i].Name < exps[j].Name })
	for _, e := range exps {
		for _, c := range e.Claims {
			for _, s := range x.shapesFor(e, c) {
				r.Decisions = append(r.Decisions, x.decide(e, c, s))
			}
		}
		r.Experiments = append(r.Experiments, x.experiment(e, in))
	}
	r.Answer = answers(r.Decisions, r.Experiments)
	return r
}

func runInfo(in Input) RunInfo {
	ri := RunInfo{Name: in.Name, ClaimsFrom: in.ClaimsFrom}
	if in.Run != nil {
		ri.Ceilings = in.Run.Ceilings
		ri.GPU.Name = in.Run.GPU
	}
	m := in.Manifest
	if m == nil {
		return ri
	}
	ri.Tool, ri.Version, ri.Command, ri.GitCommit = m.Tool, m.Version, m.Command, m.GitCommit
	ri.GPURequested, ri.GPU, ri.Versions, ri.Options, ri.Passes = m.GPURequested, m.GPU, m.Versions, m.Options, m.Passes
	if ri.GPU.Name == "" && in.Run != nil {
		ri.GPU.Name = in.Run.GPU
	}
	if !m.Created.IsZero() {
		ri.Created = m.Created.UTC().Format(time.RFC3339)
	}
	if !m.Finished.IsZero() {
		ri.Finished = m.Finished.UTC().Format(time.RFC3339)
	}
	ri.Notes = m.Warnings
	ri.Resumed = m.Resumed
	for _, p := range m.MergedFrom {
		p.Files = nil // the hashes of the parts' exports stay in the manifest
		ri.MergedFrom = append(ri.MergedFrom, p)
	}
	ri.Incomplete = incomplete(m)
	return ri
}

// incomplete says why a run is not whole: its manifest has no finish time
// (its last invocation stopped before the run ended: killed, or cut by a
// time limit), or a pass the run lists never ran for cells that ran some
// profiling pass (a timing sweep's cells get check and timing only, by
// plan), or no pass ran for a cell at all.
func incomplete(m *rundir.Manifest) []string {
	var out []string
	if m.Finished.IsZero() {
		s := "no finish time: the run did not finish"
		if n := len(m.Resumed); n > 0 {
			s = fmt.Sprintf("no finish time: the last of its %d invocations (the first, then %d with --resume) did not finish", n+1, n)
		}
		out = append(out, s)
	}
	never := map[string][]string{}
	var none []string
	for _, c := range m.Cells {
		name := c.Experiment + "/" + c.Variant + "/" + c.Shape
		if len(c.Passes) == 0 {
			none = append(none, name)
			continue
		}
		profiled := false
		for _, p := range []string{rundir.PassNCU, rundir.PassRange, rundir.PassNsys} {
			_, has := c.Passes[p]
			profiled = profiled || has
		}
		if !profiled {
			continue
		}
		for _, p := range m.Passes {
			if _, has := c.Passes[p]; !has {
				never[p] = append(never[p], name)
			}
		}
	}
	list := func(cells []string) string {
		const most = 4
		if len(cells) > most {
			return strings.Join(cells[:most], ", ") + fmt.Sprintf(" and %d more", len(cells)-most)
		}
		return strings.Join(cells, ", ")
	}
	for _, p := range m.Passes {
		if cs := never[p]; len(cs) > 0 {
			out = append(out, fmt.Sprintf("the %s pass never ran for %s: %s", p, figure.Plural(len(cs), "cell"), list(cs)))
		}
	}
	if len(none) > 0 {
		out = append(out, fmt.Sprintf("no pass ran for %s: %s", figure.Plural(len(none), "cell"), list(none)))
	}
	return out
}

func dedupe(ws []analysis.Warning) []analysis.Warning {
	seen := map[analysis.Warning]bool{}
	var out []analysis.Warning
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func (x *index) experiment(e *spec.Experiment, in Input) ExperimentReport {
	er := ExperimentReport{Name: e.Name, Title: e.Title, Seeds: e.Seeds, Baseline: e.Baseline(), InRun: x.inRun[e.Name]}
	er.Env = envOf(in, e.Name)
	er.Plots = in.Plots[e.Name]
	var ws []analysis.Warning
	// A comparison's warning that repeats one of its cells' (host-bound
	// names the cell whose wall time is host overhead) is listed once, as
	// the cell's.
	type said struct{ code, shape, msg string }
	cellSaid := map[said]bool{}
	for _, s := range x.shapesOf(e) {
		sr := ShapeReport{Shape: s}
		for _, v := range e.Variants {
			row, cw := x.row(e, v, s)
			sr.Rows = append(sr.Rows, row)
			for _, w := range cw {
				cellSaid[said{w.Code, s, w.Msg}] = true
				if !strings.Contains(w.Msg, v.Name+" at "+s) {
					w.Msg = v.Name + " at " + s + ": " + w.Msg
				}
				ws = append(ws, w)
			}
		}
		er.Shapes = append(er.Shapes, sr)
	}
	if in.Run != nil {
		for _, c := range in.Run.Comparisons {
			if c.Experiment == e.Name {
				for _, w := range c.Warnings {
					if cellSaid[said{w.Code, c.Shape, w.Msg}] {
						continue
					}
					w.Msg = c.Candidate + " vs " + c.Baseline + " at " + c.Shape + ": " + w.Msg
					ws = append(ws, w)
				}
			}
		}
		for _, c := range in.Run.Crossovers {
			if c.Experiment == e.Name {
				er.Crossovers = append(er.Crossovers, c)
			}
		}
	}
	er.Quality = x.quality(e)
	er.FusionBest = x.fusionBest(e, er.Quality)
	er.Warnings = dedupe(ws)
	return er
}

// shapesOf lists the experiment's shapes that the run has, in spec order
// (default grid, then sweeps), then any others the run has, sorted.
func (x *index) shapesOf(e *spec.Experiment) []string {
	has := map[string]bool{}
	for k := range x.cells {
		if k.Experiment == e.Name {
			has[k.Shape] = true
		}
	}
	for k := range x.manCells {
		if k.Experiment == e.Name {
			has[k.Shape] = true
		}
	}
	var out []string
	for _, s := range e.AllShapes() {
		if has[s] {
			out = append(out, s)
			delete(has, s)
		}
	}
	var rest []string
	for s := range has {
		rest = append(rest, s)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func envOf(in Input, exp string) Env {
	var env Env
	if in.Manifest != nil {
		g := in.Manifest.GPU
		env.GPU = g.Name
		env.SMClockMHz, env.MemClockMHz, env.MaxSMClockMHz, env.MaxMemClockMHz = g.SMClockMHz, g.MemClockMHz, g.MaxSMClockMHz, g.MaxMemClockMHz
		for k, v := range in.Manifest.Versions {
			if v != "" {
				env.Versions = append(env.Versions, k+" "+v)
			}
		}
		sort.Strings(env.Versions)
	}
	if env.GPU == "" && in.Run != nil {
		env.GPU = in.Run.GPU
	}
	env.TimingDevices = in.TimingDevices[exp]
	env.TimingMethods = in.TimingMethods[exp]
	env.TimingSMMHz = in.TimingClocks[exp]["sm_mhz"]
	env.TimingMemMHz = in.TimingClocks[exp]["mem_mhz"]
	env.Launch, env.Knobs = codeOf(in.Manifest, exp)
	return env
}

// codeOf lists, over every pass of an experiment's cells, the Triton launch
// paths and the knob settings the runner reported ("NAME=value", each with
// the passes that differ from it listed in the cells' passes-differ
// warnings), sorted. A run made before passes recorded their code gives none.
func codeOf(m *rundir.Manifest, exp string) (launch, knobs []string) {
	if m == nil {
		return nil, nil
	}
	ls, ks := map[string]bool{}, map[string]bool{}
	for _, c := range m.Cells {
		if c.Experiment != exp {
			continue
		}
		for _, ps := range c.Passes {
			if ps.Code == nil {
				continue
			}
			if ps.Code.Launch != "" {
				ls[ps.Code.Launch] = true
			}
			for k, v := range ps.Code.Knobs {
				ks[k+"="+v] = true
			}
		}
	}
	for l := range ls {
		launch = append(launch, l)
	}
	for k := range ks {
		knobs = append(knobs, k)
	}
	sort.Strings(launch)
	sort.Strings(knobs)
	return launch, knobs
}

func (x *index) row(e *spec.Experiment, v spec.Variant, shape string) (CellRow, []analysis.Warning) {
	row := CellRow{Variant: v.Name, Role: v.Role}
	row.Status, row.Reason = x.status(e.Name, v.Name, shape)
	if th, ok := e.Theory[v.Name]; ok {
		if b, f, err := analysis.EvalTheory(th, shape); err == nil {
			row.TheoryDRAMBytes, row.TheoryFLOPs = b, f
		} else {
			row.Reason = joinNote(row.Reason, "theory: "+err.Error())
		}
	}
	row.TimingSMMHz = x.clocks[cellkey.New(e.Name, v.Name, shape)]
	if ck := x.checks[cellkey.New(e.Name, v.Name, shape)]; ck != nil && ck.MaxRelErr != nil {
		r := *ck.MaxRelErr
		row.RelError = &r
	}
	c := x.cells[cellkey.New(e.Name, v.Name, shape)]
	if c == nil {
		return row, nil
	}
	row.Kernels, row.GPUTimeNs = c.Kernels, c.GPUTimeNs
	row.ElementwiseKernels, _ = x.elementwiseCount(c)
	row.KernelNames = append([]string(nil), c.KernelNames...)
	if c.Wall.N > 0 {
		row.WallMs = &Value{Center: c.Wall.Center, Lo: c.Wall.Lo, Hi: c.Wall.Hi, N: c.Wall.N}
	}
	if c.Device.N > 0 {
		row.DeviceMs = &Value{Center: c.Device.Center, Lo: c.Device.Lo, Hi: c.Device.Hi, N: c.Device.N}
	}
	if c.HostRatio > 0 {
		hr := c.HostRatio
		row.HostRatio = &hr
	}
	if c.Wall.N > 0 {
		row.LaunchMethod, row.LaunchError = c.LaunchMethod, c.LaunchError
	}
	row.RangeCoverage = c.RangeCoverage
	row.RangeProcess = analysis.RangeProcessWord(c.RangeProcess)
	row.BoundFraction = x.boundFraction(e, v.Name, shape)
	row.DRAMBytes, row.DRAMBytesKernels, row.L2Bytes, row.FLOPs, row.Class = c.DRAMBytesRange, c.DRAMBytesKernels, c.L2Bytes, c.FLOPs, c.Class
	if c.DRAMBytesRange > 0 {
		row.DRAMBytesReplays = c.DRAMBytesRangeReplays
	}
	if l2 := l2Of(c); l2 != c.L2Bytes {
		row.RangeL2Bytes = l2
	}
	if row.TheoryDRAMBytes == 0 {
		row.TheoryDRAMBytes = c.TheoryDRAMBytes
	}
	if row.TheoryFLOPs == 0 {
		row.TheoryFLOPs = c.TheoryFLOPs
	}
	ws := append([]analysis.Warning(nil), c.Warnings...)
	if meas, _ := dramOf(c); meas > 0 && row.TheoryDRAMBytes > 0 {
		mr := meas / row.TheoryDRAMBytes
		row.ModelRatio = &mr
		if mr < modelLo || mr > modelHi {
			has := false
			for _, w := range ws {
				has = has || w.Code == analysis.WarnModelMismatch
			}
			if !has {
				ws = append(ws, analysis.Warning{Code: analysis.WarnModelMismatch,
					Msg: fmt.Sprintf("%s at %s: measured DRAM %s is %s the model's %s (outside %sx..%sx)",
						v.Name, shape, figure.Bytes(meas), figure.Ratio(mr), figure.Bytes(row.TheoryDRAMBytes), figure.Num(modelLo), figure.Num(modelHi))})
			}
		}
	}
	if v.Role == spec.RoleCandidate {
		if cmp := x.comparison(e.Name, shape, e.BaselineFor(v.Name), v.Name); cmp != nil && cmp.Speedup.N > 0 {
			s := cmp.Speedup
			row.Speedup = &Value{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N}
			p := cmp.P
			row.P = &p
		}
	}
	seen := map[string]bool{}
	for _, w := range ws {
		if !seen[w.Code] {
			seen[w.Code] = true
			row.Warnings = append(row.Warnings, w.Code)
		}
	}
	sort.Strings(row.Warnings)
	return row, ws
}

// plotPath is the report-relative path of a plot file.
func plotPath(file string) string { return path.Join("plots", path.Base(file)) }
