package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/suggest"
)

// Suggest finds the chains a fusion could collapse in the input (package
// suggest). Of a run: the chains of each cell that ran, along each
// variant's dataflow where its spec states one, ranked; with againstRun,
// the predictions of each baseline cell set against what the run's
// candidates measured instead. Of exports, file by file, or of a directory
// of tables that is not a run (tables of exports made outside rooftool
// profile): the chains in launch order. An export that holds no kernels
// has no chain: beside exports with kernels a note says so (notes, also
// beside an error); where no input has any it is bad input (ErrNoKernels,
// as stats says). --against-run without a run is a *BadInputError.
func (in *Input) Suggest(ctx context.Context, againstRun bool) (out suggest.Suggestions, notes []string, err error) {
	var res *Result
	if in.Run != nil {
		res, err = in.Load(ctx, nil)
		var re *RunInputError
		if errors.As(err, &re) && in.TablesDir != "" {
			res, err = nil, nil // tables of exports made outside rooftool profile
		}
		if err != nil {
			return out, nil, err
		}
	}
	switch {
	case res != nil && againstRun:
		out.Checks = suggest.CheckSuggestionsWith(res.Run, suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), catalogSMs(res.Run.GPU))
		if out.Checks == nil {
			out.Checks = []suggest.Check{}
		}
	case againstRun:
		return out, nil, &BadInputError{errors.New("--against-run needs one run (a run directory or a committed run), not exports")}
	case res != nil:
		flows, models, sms := suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), catalogSMs(res.Run.GPU)
		for _, c := range res.Run.Cells {
			if c.Status == "ok" {
				cs, no := suggest.Cell(c, res.Run.Kernels, flows, sms, float64(res.Run.Ceilings.L2Bytes))
				out.Chains, out.NotOffered = append(out.Chains, cs...), append(out.NotOffered, no...)
				out.Chains = append(out.Chains, suggest.Merges(c, res.Run.Kernels, flows, models, float64(res.Run.Ceilings.L2Bytes))...)
			}
		}
		suggest.RankChains(out.Chains)
	default:
		if out.Chains, out.NotOffered, notes, err = in.suggestExports(); err != nil {
			return out, notes, err
		}
	}
	out.AgainstRun = againstRun
	return out, notes, nil
}

// suggestExports finds the chains of the input's exports, file by file,
// or of its directory of tables.
func (in *Input) suggestExports() ([]suggest.Chain, []suggest.NotOffered, []string, error) {
	if in.TablesDir != "" {
		t, err := in.Tables(nil)
		if err != nil {
			return nil, nil, nil, err
		}
		cs, no, err := tableChains(t, in.Args[0])
		return cs, no, nil, err
	}
	var out []suggest.Chain
	var nos []suggest.NotOffered
	var notes []string
	var noKernels error // the first input without kernels, while none has any
	some := false
	for _, p := range in.Args {
		var cs []suggest.Chain
		var no []suggest.NotOffered
		t, err := readArg(p)
		if err == nil {
			cs, no, err = tableChains(t, p)
		}
		if errors.Is(err, ingest.ErrNoKernels) {
			if len(in.Args) > 1 {
				notes = append(notes, fmt.Sprintf("%s holds no kernels: no chain", p))
			}
			if noKernels == nil {
				noKernels = err
			}
			continue
		}
		if err != nil {
			return nil, nil, notes, err
		}
		out, nos = append(out, cs...), append(nos, no...)
		some = true
	}
	if noKernels != nil && !some {
		return nil, nil, nil, noKernels // every input kernel-less: bad input, as stats says
	}
	return out, nos, notes, nil
}

// readArg reads one of several inputs into memory: a directory of tables
// (checked as OpenInput checks one given alone), else an export.
func readArg(p string) (*ingest.Tables, error) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		if err := checkTablesDir(p); err != nil {
			return nil, err
		}
		return ingest.ReadDir(tablesDirOf(p), nil)
	}
	return ReadExports([]string{p}, nil)
}

// tableChains finds the chains of the tables of one export or directory
// (name) and releases them. Tables without kernels are an
// *ingest.InputError that is ingest.ErrNoKernels.
func tableChains(t *ingest.Tables, name string) ([]suggest.Chain, []suggest.NotOffered, error) {
	defer t.Release()
	if t.NumRows(ingest.TableKernels) == 0 && t.NumRows(ingest.TableMetrics) == 0 {
		// An empty kernel table, as a missing one: no kernel to chain.
		return nil, nil, &ingest.InputError{File: name, Err: ingest.ErrNoKernels}
	}
	var facts []analysis.KernelFact
	sms, l2 := 0, 0.0
	if an, err := analysis.Analyze(t, nil, analysis.Options{}); err == nil {
		facts, sms = an.Kernels, catalogSMs(an.GPU)
		if g, ok := gpu.Lookup(an.GPU); ok {
			l2 = float64(g.L2Bytes)
		}
	}
	cs, no := suggest.Tables(t, facts, sms, l2)
	return cs, no, nil
}

// catalogSMs is the SM count the catalog gives a GPU (0: not in it).
func catalogSMs(name string) int {
	if g, ok := gpu.Lookup(name); ok {
		return g.SMs
	}
	return 0
}
