package pipeline

import (
	"fmt"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// experimentsOf loads the experiments a run is judged with: its own
// snapshot of the specs and claims (specs/) where it has one, else the
// ones built into rooftool, and says which; for a snapshot, the warnings
// of missingClaims.
func experimentsOf(run *rundir.Run) ([]*spec.Experiment, string, []analysis.Warning, error) {
	if fsys, ok := run.Specs(); ok {
		exps, err := spec.LoadFS(fsys)
		if err != nil { // a snapshot that does not parse or validate is bad input (exit 2)
			return nil, "", nil, &RunInputError{Run: run.Name, Msg: fmt.Sprintf("%s: %v", run.Path(rundir.SpecsDir), err)}
		}
		var warns []analysis.Warning
		if builtin, err := spec.Load(); err == nil {
			fillEpilogues(exps, builtin)
			fillDataflows(exps, builtin)
			fillFusions(exps, builtin)
			warns = missingClaims(exps, builtin, run)
		}
		return exps, "the run's own snapshot (" + rundir.SpecsDir + "/)", warns, nil
	}
	exps, err := spec.Load()
	return exps, "the claims built into this rooftool (the run keeps no snapshot of its own)", nil, err
}

// missingClaims warns, for each experiment of a run's specs snapshot that
// has no claims.yaml, where rooftool's built-in experiment of that name has
// claims: those claims are not judged (a run of a --cmd program without
// --claims has no built-in experiment of its name, and no warning).
func missingClaims(exps, builtin []*spec.Experiment, run *rundir.Run) []analysis.Warning {
	byName := map[string]*spec.Experiment{}
	for _, e := range builtin {
		byName[e.Name] = e
	}
	var out []analysis.Warning
	for _, e := range exps {
		if b := byName[e.Name]; b != nil && len(e.Claims) == 0 && len(b.Claims) > 0 {
			out = append(out, analysis.Warning{Code: analysis.WarnMissing, Metric: "claims",
				Msg: fmt.Sprintf("%s has no claims.yaml: the %d claims rooftool has for %s are not judged",
					run.Path(rundir.SpecsPath(e.Name, "")), len(b.Claims), e.Name)})
		}
	}
	return out
}

// fillEpilogues gives the variants of a run's snapshot that state no
// epilogue operands (snapshots taken before claims.yaml had epilogue_bytes)
// those of the same experiment and variant built into rooftool, marked as
// such in Epilogue: a model of what the fused kernel must move, not a
// measurement, used only by the implementation-limited counterfactual.
func fillEpilogues(exps, builtin []*spec.Experiment) {
	for _, e := range exps {
		for _, b := range builtin {
			if b.Name != e.Name {
				continue
			}
			for v, th := range e.Theory {
				if bt, ok := b.Theory[v]; ok && th.EpilogueBytes == "" && bt.EpilogueBytes != "" {
					th.EpilogueBytes, th.Epilogue = bt.EpilogueBytes, bt.Epilogue+"; from the claims built into rooftool, the run's snapshot states none"
					e.Theory[v] = th
				}
				// The library GEMM of the same products (kernel quality's
				// DRAM reference), where the snapshot names none and the run
				// has that variant.
				if bt, ok := b.Theory[v]; ok && th.Library == "" && bt.Library != "" && e.Variant(bt.Library) != nil {
					th.Library = bt.Library
					e.Theory[v] = th
				}
			}
		}
	}
}

// fillDataflows gives the variants of a run's snapshot that state no
// dataflow (snapshots taken before specs had one) the dataflow of the same
// experiment and variant built into rooftool, marked as such in From; a
// cell whose kernels do not match it keeps launch-order chains (analysis
// CellSequence).
func fillDataflows(exps, builtin []*spec.Experiment) {
	for _, e := range exps {
		for _, b := range builtin {
			if b.Name != e.Name {
				continue
			}
			for i, v := range e.Variants {
				if v.Dataflow != nil {
					continue
				}
				for _, bv := range b.Variants {
					if bv.Name == v.Name && bv.Dataflow != nil {
						d := *bv.Dataflow
						d.From = "from the specs built into rooftool (the run's snapshot states none)"
						e.Variants[i].Dataflow = &d
					}
				}
			}
		}
	}
}

// fillFusions gives an experiment of a run's snapshot that groups no
// variants into fusions (snapshots taken before claims.yaml had fusions)
// the fusions built into rooftool for it, and the built-in claims that
// restate one of the snapshot's own claims (the same document, line, quote,
// metric, test and baseline) for another candidate: a member of a fusion or
// the best of one. The snapshot's claims are judged as they were; the added
// ones say in their note where they come from, and a candidate the run has
// no cells of is NOT MEASURED.
func fillFusions(exps, builtin []*spec.Experiment) {
	for _, e := range exps {
		if len(e.Fusions) > 0 {
			continue
		}
		for _, b := range builtin {
			if b.Name != e.Name || len(b.Fusions) == 0 {
				continue
			}
			e.Fusions = b.Fusions
			have := map[string]bool{}
			for _, c := range e.Claims {
				have[c.ID] = true
			}
			for _, c := range b.Claims {
				if have[c.ID] || !restates(e.Claims, c) {
					continue
				}
				c.Note = joinNote(c.Note, "from the claims built into rooftool: the run's snapshot states this claim for other candidates")
				e.Claims = append(e.Claims, c)
				if th, ok := b.Theory[c.Candidate]; ok && e.Theory != nil {
					if _, has := e.Theory[c.Candidate]; !has {
						e.Theory[c.Candidate] = th
					}
				}
			}
		}
	}
}

// restates reports whether one of cs states c's claim: the same document,
// line, quote, metric, test and baseline.
func restates(cs []spec.Claim, c spec.Claim) bool {
	for _, s := range cs {
		if s.Seed == c.Seed && s.Source == c.Source && s.Line == c.Line && s.Quote == c.Quote && s.Metric == c.Metric &&
			s.Op == c.Op && s.Threshold == c.Threshold && s.Baseline == c.Baseline {
			return true
		}
	}
	return false
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
