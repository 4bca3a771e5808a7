package reports

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/verdict"
)

// Input is what Build turns into a Report: a run loaded and analysed by
// package pipeline (Run and Experiments are required; the rest may be
// zero), and the plots drawn of it. Warnings gathers the run-level
// warnings of loading and of plotting.
type Input struct {
	pipeline.Result
	Plots map[string][]Plot // experiment -> plots written
}

// Build derives the report: the verdicts of package verdict (every claim
// of every experiment at each of its shapes, the answer table, each
// experiment's per-shape tables) with what the report states beside them:
// the run, each experiment's environment, crossovers and plots, and where
// the run's time went. It is deterministic.
func Build(in Input) *Report {
	v := verdict.Build(&in.Result)
	r := &Report{Version: 5, Run: runInfo(in), Answer: v.Answer, Decisions: v.Decisions, Warnings: v.Warnings, Time: timeOf(in.Manifest)}
	for _, e := range v.Experiments {
		r.Experiments = append(r.Experiments, experiment(e, in))
	}
	return r
}

// experiment is the report's section of one judged experiment.
func experiment(je verdict.Experiment, in Input) ExperimentReport {
	e := je.Spec
	er := ExperimentReport{Name: e.Name, Title: e.Title, Seeds: e.Seeds, Baseline: e.Baseline(), InRun: je.InRun,
		Env: envOf(in, e.Name), Shapes: je.Shapes, Plots: in.Plots[e.Name], Quality: je.Quality, FusionBest: je.FusionBest, Warnings: je.Warnings}
	if in.Run != nil {
		for _, c := range in.Run.Crossovers {
			if c.Experiment == e.Name {
				er.Crossovers = append(er.Crossovers, c)
			}
		}
	}
	return er
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

// plotPath is the report-relative path of a plot file.
func plotPath(file string) string { return path.Join("plots", path.Base(file)) }
