package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/suggest"
)

// SuggestOptions are the flags of `rooftool suggest`.
type SuggestOptions struct {
	IO         *IO
	Inputs     []string
	Format     string // table | csv | json
	AgainstRun bool   // set predictions against the run's measured fused variants
}

func newSuggestCmd(io *IO) *cobra.Command {
	opts := &SuggestOptions{IO: io}
	c := &cobra.Command{
		Use:   "suggest RUN|EXPORT...",
		Short: "Find GEMM + elementwise chains a fusion could collapse, and predict what fusing saves",
		Long: `Suggest reads an unfused trace and lists the chains a fusion into a GEMM's
epilogue could collapse, with what fusing each would save.

Model:
` + suggest.ChainModel + `

Inputs are one run (a run directory, or a run committed under testdata/runs):
chains per cell, each cell's kernels in launch order with the bytes of the
ncu kernel pass; or raw exports (nsys SQLite, Kineto JSON, ncu CSV) or a
directory of ingested tables: chains per file, stream and NVTX range path.

A run's chains follow each variant's dataflow where its spec states one
(kernels/<experiment>/spec.yaml, "dataflow"; a run whose snapshot has none
takes the built-in spec's, and says so); otherwise, and for exports, they
follow launch order, the BASIS column says so in every row, and they are
listed after the dataflow ones. Kernels not offered as folds are listed
below the chains with the reason.

--against-run (a run only) sets the savings predicted for each baseline
cell against what each candidate compared with it measured in the same run,
baseline minus candidate: kernels per iteration (nsys), DRAM bytes (range
pass, else kernel pass; the kernel-pass difference beside it) and time.
The time reference is the timing pass: the two cells' device-loop medians
(CUDA-graph replay), else their wall-loop medians where neither cell is
host-bound, with the difference's 95% interval (each median's
order-statistic interval at 97.5%); where the timing pass gives no fit
pair, one profiled call's kernel sums (nsys, else the ncu kernel pass),
and the row says why. The nsys and kernel-pass differences stand beside
it. PRED is every chain of the baseline; FUSED the edges of them the
candidate's kernel names show it fused (Inductor's triton_*_fused_<ops>
kernels, cuBLAS's epilogue variants such as nvjet ..._badd_), where they
tell; the errors (predicted - measured; for bytes and time in % of
measured) are of FUSED where known, else of PRED. For torch.compile's
default mode (a candidate whose description names torch.compile and not
max-autotune) the MODEL columns predict, from the baseline's dataflow
alone, the kernels, DRAM bytes (L2 flushed: against the kernel pass; warm
L2: against the range pass) and time it saves (against the timing pass:
the call's GPU time, its addend copies included; against a profiled call:
kernel time), with their errors:

` + suggest.InductorModel + `



--format table (default), csv or json (one object with "rooftool_suggest": 3).
Exit status: 0 done, 2 bad usage or input, 1 anything else.`,
		Example: `  rooftool suggest testdata/realdata/gpu4/report.sqlite
  rooftool suggest 2026-11-23-h100-140505
  rooftool suggest --against-run 2026-11-22-h100-003504 --format csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Inputs = args
			return runSuggest(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	c.Flags().BoolVar(&opts.AgainstRun, "against-run", false, "compare predicted savings with the run's measured fused variants")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	return c
}

func runSuggest(ctx context.Context, opts *SuggestOptions) error {
	if err := checkDataFormat("suggest", opts.Format); err != nil {
		return err
	}
	for _, p := range opts.Inputs {
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if len(opts.Inputs) > 1 {
			return usageErrorf("suggest: %s: no such file or directory (of several inputs each is an export; a run is given alone)", p)
		}
		if _, err := pipeline.Open(p); err != nil {
			return err // where it looked, as report, diff and project say
		}
	}
	if err := distinctInputs("suggest", opts.Inputs); err != nil {
		return err
	}
	out := suggest.Suggestions{}
	arg, dir, err := suggestRunArg(opts.Inputs)
	if err != nil {
		return err
	}
	var res *pipeline.Result
	if arg != "" {
		_, res, err = loadRun(ctx, arg, pipeline.Options{})
		var re *pipeline.RunInputError
		if errors.As(err, &re) && dir {
			res, err = nil, nil // tables of exports made outside rooftool profile
		}
		if err != nil {
			return err
		}
	}
	switch {
	case res != nil && opts.AgainstRun:
		out.Checks = suggest.CheckSuggestionsWith(res.Run, suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), gpuSMs(res.Run.GPU))
		if out.Checks == nil {
			out.Checks = []suggest.Check{}
		}
	case opts.AgainstRun:
		return usageErrorf("suggest: --against-run needs one run (a run directory or a committed run), not exports")
	case res != nil:
		flows, models, sms := suggest.FlowsOf(res.Experiments), suggest.ModelsOf(res.Experiments), gpuSMs(res.Run.GPU)
		for _, c := range res.Run.Cells {
			if c.Status == "ok" {
				cs, no := suggest.Cell(c, res.Run.Kernels, flows, sms, float64(res.Run.Ceilings.L2Bytes))
				out.Chains, out.NotOffered = append(out.Chains, cs...), append(out.NotOffered, no...)
				out.Chains = append(out.Chains, suggest.Merges(c, res.Run.Kernels, flows, models, float64(res.Run.Ceilings.L2Bytes))...)
			}
		}
		suggest.RankChains(out.Chains)
	default:
		chains, no, err := suggestExports(opts)
		if err != nil {
			return err
		}
		out.Chains, out.NotOffered = chains, no
	}
	out.AgainstRun = opts.AgainstRun
	return writeData(opts.IO, opts.Format, tableout.Output{CSV: out.CSV(), JSON: out.JSON(), Text: out.WriteText})
}

// gpuSMs is the SM count the catalog gives the run's GPU (0: not in it).
func gpuSMs(name string) int {
	if g, ok := gpu.Lookup(name); ok {
		return g.SMs
	}
	return 0
}

// gpuL2 is the L2 size in bytes the catalog gives the run's GPU (0: not
// in it).
func gpuL2(name string) float64 {
	if g, ok := gpu.Lookup(name); ok {
		return float64(g.L2Bytes)
	}
	return 0
}

// suggestExports finds the chains of raw exports, file by file, or of one
// directory of ingested tables. An export that holds no kernels (nsys
// without CUDA kernel activity or with an empty kernel table, a Kineto
// trace of range-profiler counters only) has no chain: beside exports with
// kernels a note on stderr says so; where no input has any, it is bad
// input (exit 2), as stats says.
func suggestExports(opts *SuggestOptions) ([]suggest.Chain, []suggest.NotOffered, error) {
	one := func(inputs []string) ([]suggest.Chain, []suggest.NotOffered, error) {
		t, err := loadTables(inputs)
		if err != nil {
			return nil, nil, err
		}
		defer t.Release()
		if t.NumRows(ingest.TableKernels) == 0 && t.NumRows(ingest.TableMetrics) == 0 {
			// An empty kernel table, as a missing one: no kernel to chain.
			return nil, nil, &ingest.InputError{File: strings.Join(inputs, ", "), Err: ingest.ErrNoKernels}
		}
		var facts []analysis.KernelFact
		sms, l2 := 0, 0.0
		if an, err := analysis.Analyze(t, nil, analysis.Options{}); err == nil {
			facts, sms, l2 = an.Kernels, gpuSMs(an.GPU), gpuL2(an.GPU)
		}
		cs, no := suggest.Tables(t, facts, sms, l2)
		return cs, no, nil
	}
	if len(opts.Inputs) == 1 {
		if st, err := os.Stat(opts.Inputs[0]); err == nil && st.IsDir() {
			return one(opts.Inputs)
		}
	}
	var out []suggest.Chain
	var nos []suggest.NotOffered
	var noKernels error // the first input without kernels, where none has any
	for _, p := range opts.Inputs {
		cs, no, err := one([]string{p})
		if errors.Is(err, ingest.ErrNoKernels) {
			if len(opts.Inputs) > 1 {
				fmt.Fprintf(opts.IO.Err, "rooftool: suggest: %s holds no kernels: no chain\n", p)
			}
			if noKernels == nil {
				noKernels = err
			}
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		out, nos = append(out, cs...), append(nos, no...)
		noKernels = errSomeKernels
	}
	if noKernels != nil && noKernels != errSomeKernels {
		return nil, nil, noKernels // every input kernel-less: bad input, as stats says
	}
	return out, nos, nil
}

// errSomeKernels marks, in suggestExports, that an input had kernels.
var errSomeKernels = errors.New("an input has kernels")

// suggestRunArg is the run the inputs may name: one committed run, or one
// directory of tables (dir: on disk, where tables of exports made outside
// rooftool profile are not a run, which loading it tells); "" for exports.
func suggestRunArg(inputs []string) (arg string, dir bool, err error) {
	if len(inputs) != 1 {
		return "", false, nil
	}
	p := inputs[0]
	st, err := os.Stat(p)
	switch {
	case err != nil && pipeline.IsCommitted(p):
		return p, false, nil
	case err == nil && st.IsDir():
		if err := checkTablesDir(p); err != nil {
			return "", false, err
		}
		return p, true, nil
	}
	return "", false, nil
}
