package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
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
` + analysis.SuggestModel + `

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
baseline minus candidate: kernels per iteration, DRAM bytes (range pass,
else kernel pass; the kernel-pass difference beside it) and GPU time (nsys
timeline). PRED is every chain of the baseline; FUSED the edges of them the
candidate's kernel names show it fused (Inductor's triton_*_fused_<ops>
kernels, cuBLAS's epilogue variants such as nvjet ..._badd_), where they
tell; the errors (predicted - measured; for bytes and time in % of
measured) are of FUSED where known, else of PRED. For torch.compile's
default mode (a candidate whose description names torch.compile and not
max-autotune) the MODEL columns predict, from the baseline's dataflow
alone, the kernels, DRAM bytes (L2 flushed: against the kernel pass; warm
L2: against the range pass) and time it saves, with their errors:

` + analysis.InductorModel + `



--format table (default), csv or json (one object with "rooftool_suggest": 2).
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

// suggestJSONVersion is the "rooftool_suggest" field of the JSON output.
const suggestJSONVersion = 2

// suggestJSON is what `rooftool suggest --format json` writes, keys sorted:
// "rooftool_suggest" (this version), "model" (SuggestModel), and "chains"
// (analysis.Chain) with "not_offered" (analysis.NotOffered), or with
// --against-run "checks" (analysis.SuggestCheck).
type suggestJSON struct {
	Version    int
	Model      string
	Chains     []analysis.Chain
	NotOffered []analysis.NotOffered
	Checks     []analysis.SuggestCheck
}

func runSuggest(ctx context.Context, opts *SuggestOptions) error {
	if err := checkDataFormat("suggest", opts.Format); err != nil {
		return err
	}
	for _, p := range opts.Inputs {
		if _, err := os.Stat(p); err != nil && !(len(opts.Inputs) == 1 && pipeline.IsCommitted(p)) {
			return usageErrorf("suggest: %s: no such file, directory or committed run", p)
		}
	}
	if err := distinctInputs("suggest", opts.Inputs); err != nil {
		return err
	}
	out := suggestJSON{Version: suggestJSONVersion, Model: analysis.SuggestModel}
	arg, err := suggestRunArg(opts.Inputs)
	if err != nil {
		return err
	}
	var res *pipeline.Result
	if arg != "" {
		_, res, err = loadRun(ctx, arg, pipeline.Options{})
		var re *pipeline.RunInputError
		if _, serr := os.Stat(arg); errors.As(err, &re) && serr == nil {
			res, err = nil, nil // tables of exports made outside rooftool profile
		}
		if err != nil {
			return err
		}
	}
	switch {
	case res != nil && opts.AgainstRun:
		out.Checks = analysis.CheckSuggestionsWith(res.Run, analysis.FlowsOf(res.Experiments), analysis.ModelsOf(res.Experiments), gpuSMs(res.Run.GPU))
		if out.Checks == nil {
			out.Checks = []analysis.SuggestCheck{}
		}
	case opts.AgainstRun:
		return usageErrorf("suggest: --against-run needs one run (a run directory or a committed run), not exports")
	case res != nil:
		flows, models, sms := analysis.FlowsOf(res.Experiments), analysis.ModelsOf(res.Experiments), gpuSMs(res.Run.GPU)
		for _, c := range res.Run.Cells {
			if c.Status == "ok" {
				cs, no := analysis.SuggestCell(c, res.Run.Kernels, flows, sms, float64(res.Run.Ceilings.L2Bytes))
				out.Chains, out.NotOffered = append(out.Chains, cs...), append(out.NotOffered, no...)
				out.Chains = append(out.Chains, analysis.SuggestMerges(c, res.Run.Kernels, flows, models, float64(res.Run.Ceilings.L2Bytes))...)
			}
		}
		analysis.RankChains(out.Chains)
	default:
		chains, no, err := suggestExports(opts)
		if err != nil {
			return err
		}
		out.Chains, out.NotOffered = chains, no
	}
	doc := map[string]any{"rooftool_suggest": out.Version, "model": out.Model}
	var csv tableout.Table
	if opts.AgainstRun {
		doc["checks"] = out.Checks
		csv = checkRows(out.Checks, false)
	} else {
		if out.Chains == nil {
			out.Chains = []analysis.Chain{}
		}
		if out.NotOffered == nil {
			out.NotOffered = []analysis.NotOffered{}
		}
		doc["chains"], doc["not_offered"] = out.Chains, out.NotOffered
		csv = chainRows(out.Chains, false)
	}
	text := func(w io.Writer) error {
		if opts.AgainstRun {
			return checkRows(out.Checks, true).WriteText(w, tableout.Columns)
		}
		if len(out.Chains) == 0 {
			fmt.Fprintln(w, "no chain: no GEMM followed on its stream by kernels without tensor work that an epilogue could hold")
		} else if err := chainRows(out.Chains, true).WriteText(w, tableout.Columns); err != nil {
			return err
		}
		var notes []string
		for _, c := range out.Chains {
			if c.Note != "" && !slices.Contains(notes, c.Note) {
				notes = append(notes, c.Note)
			}
		}
		for _, n := range notes {
			fmt.Fprintf(w, "\nnote: %s", n)
		}
		if len(notes) > 0 {
			fmt.Fprintln(w)
		}
		if len(out.NotOffered) > 0 {
			fmt.Fprintln(w, "\nNot offered as folds:")
			for _, n := range out.NotOffered {
				fmt.Fprintf(w, "  %s kernel %d %s: %s\n", suggestTrim(n.Range, 48), n.Index, suggestTrim(n.Kernel, 40), n.Reason)
			}
		}
		_, err := fmt.Fprintln(w, "\nFOLDED TIME is the folded kernels' time; TIME SAVED that less the epilogue's reads of their other operands at the sequence's streaming DRAM rate (a prediction, not a bound: a fused kernel that also changes its main loop saves more, a slower epilogue less); DRAM SAVED is on the kernel pass's bytes (L2 flushed before each kernel), WARM L2 with the residency rule of the model; DRAM and time saved need ncu bytes (- where absent). See rooftool suggest --help for the model.")
		return err
	}
	return writeData(opts.IO, opts.Format, tableout.Output{CSV: csv, JSON: doc, Text: text})
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
func suggestExports(opts *SuggestOptions) ([]analysis.Chain, []analysis.NotOffered, error) {
	one := func(inputs []string) ([]analysis.Chain, []analysis.NotOffered, error) {
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
		cs, no := analysis.SuggestTables(t, facts, sms, l2)
		return cs, no, nil
	}
	if len(opts.Inputs) == 1 {
		if st, err := os.Stat(opts.Inputs[0]); err == nil && st.IsDir() {
			return one(opts.Inputs)
		}
	}
	var out []analysis.Chain
	var nos []analysis.NotOffered
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

// suggestRunArg is the run the inputs name, when they name one: one
// committed run, or one directory rooftool profile wrote (its tables hold
// rooftool cells); "" for exports, or tables of exports made outside
// rooftool profile (loadRun's *pipeline.RunInputError).
func suggestRunArg(inputs []string) (string, error) {
	if len(inputs) != 1 {
		return "", nil
	}
	p := inputs[0]
	st, err := os.Stat(p)
	switch {
	case err != nil && pipeline.IsCommitted(p):
	case err == nil && st.IsDir():
		if err := checkTablesDir(p); err != nil {
			return "", err
		}
	default:
		return "", nil
	}
	return p, nil
}

// chainRows are the chains as a table: for CSV in base units under the
// JSON's names, for reading (human) scaled and shortened.
func chainRows(cs []analysis.Chain, human bool) tableout.Table {
	t := tableout.Table{Header: []string{"range", "stream", "index", "basis", "producer", "folded", "kernels_saved", "folded_time_ns", "time_saved_ns", "dram_saved_bytes", "dram_saved_warm_bytes"}}
	if human {
		t.Header = []string{"RANGE", "STREAM", "AT", "BASIS", "PRODUCER", "FOLDED", "KERNELS SAVED", "FOLDED TIME (us)", "TIME SAVED (us)", "DRAM SAVED (MB)", "WARM L2 (MB)"}
	}
	for _, c := range cs {
		folded := strings.Join(c.Folded, " | ")
		rng, prod := c.Range, c.Producer
		dram, saved, ts := "", strconv.FormatFloat(c.FoldedTimeNs, 'f', -1, 64), ""
		if c.TimeSavedKnown {
			ts = strconv.FormatFloat(c.TimeSavedNs, 'f', -1, 64)
		}
		warm := ""
		if c.DRAMKnown {
			dram, warm = strconv.FormatFloat(c.DRAMSavedBytes, 'f', -1, 64), strconv.FormatFloat(c.DRAMSavedWarmBytes, 'f', -1, 64)
		}
		if human {
			var short []string
			for i, f := range c.Folded {
				if i == 3 {
					short = append(short, fmt.Sprintf("+%d more", len(c.Folded)-3))
					break
				}
				short = append(short, suggestTrim(f, 32))
			}
			folded, rng, prod = strings.Join(short, " | "), suggestTrim(rng, 48), suggestTrim(prod, 40)
			saved = fmt.Sprintf("%.1f", c.FoldedTimeNs/1e3)
			dram, ts, warm = "-", "-", "-"
			if c.TimeSavedKnown {
				ts = fmt.Sprintf("%.1f", c.TimeSavedNs/1e3)
			}
			if c.DRAMKnown {
				dram, warm = fmt.Sprintf("%.2f", c.DRAMSavedBytes/1e6), fmt.Sprintf("%.2f", c.DRAMSavedWarmBytes/1e6)
			}
		}
		if rng == "" {
			rng = "-"
		}
		t.Rows = append(t.Rows, []string{rng, strconv.FormatInt(c.Stream, 10), strconv.Itoa(c.Index), c.Basis, prod, folded,
			strconv.Itoa(c.KernelsSaved), saved, ts, dram, warm})
	}
	return t
}

// checkRows are the checks as a table: for CSV in base units under the
// JSON's names, for reading (human) scaled, each figure's unit in its
// header.
func checkRows(cs []analysis.SuggestCheck, human bool) tableout.Table {
	t := tableout.Table{Header: []string{"experiment", "shape", "baseline", "candidate", "basis", "chains",
		"predicted_kernels_saved", "fused_kernels_saved", "measured_kernels_saved", "kernels_error",
		"predicted_dram_saved_bytes", "fused_dram_saved_bytes", "measured_dram_saved_bytes", "dram_error_pct",
		"measured_dram_saved_kernel_bytes", "dram_kernel_error_pct", "predicted_dram_saved_warm_bytes", "dram_warm_error_pct",
		"predicted_folded_time_ns", "fused_folded_time_ns", "measured_gpu_time_saved_ns", "gpu_time_error_pct",
		"predicted_time_saved_ns", "predicted_time_error_pct",
		"measured_kernel_time_saved_ns", "kernel_time_error_pct", "fused",
		"model_kernels_saved", "model_kernels_error", "model_dram_saved_flushed_bytes", "model_dram_flushed_error_pct",
		"model_dram_saved_warm_bytes", "model_dram_warm_error_pct", "model_time_saved_ns", "model_time_error_pct", "model_fused", "note"}}
	if human {
		t.Header = []string{"EXPERIMENT", "SHAPE", "BASELINE", "CANDIDATE", "BASIS", "CHAINS",
			"KERNELS PRED", "FUSED", "MEAS", "ERR",
			"DRAM PRED (MB)", "FUSED (MB)", "MEAS (MB)", "ERR (%)", "MEAS KERNEL PASS (MB)", "ERR (%)", "DRAM WARM PRED (MB)", "ERR (%)",
			"FOLDED TIME (us)", "FUSED (us)", "GPU MEAS (us)", "ERR (%)", "TIME SAVED (us)", "ERR (%)", "MEAS KERNEL PASS (us)", "ERR (%)", "FUSED EDGES",
			"MODEL KERNELS", "ERR", "MODEL DRAM FLUSHED (MB)", "ERR (%)", "MODEL DRAM WARM (MB)", "ERR (%)", "MODEL TIME (us)", "ERR (%)", "MODEL FUSES", "NOTE"}
	}
	f := func(v float64, scale float64, prec int) string {
		if human {
			return strconv.FormatFloat(v/scale, 'f', prec, 64)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	dash := func(s string) string {
		if human && s == "" {
			return "-"
		}
		return s
	}
	for _, c := range cs {
		pd, fd, md, ed, mk, ek, pw, ew := "", "", "", "", "", "", "", ""
		if c.DRAMKnown {
			pw, ew = f(c.PredDRAMWarm, 1e6, 2), f(c.ErrDRAMWarmPct, 1, 0)
			pd, md, ed = f(c.PredDRAMBytes, 1e6, 2), f(c.MeasDRAMBytes, 1e6, 2), f(c.ErrDRAMPct, 1, 0)
			if c.MeasDRAMKernelBytes != 0 {
				mk, ek = f(c.MeasDRAMKernelBytes, 1e6, 2), f(c.ErrDRAMKernelPct, 1, 0)
			}
		}
		kt, kte := dash(""), dash("")
		if c.MeasKernelTimeNs != 0 {
			kt, kte = f(c.MeasKernelTimeNs, 1e3, 1), f(c.ErrKernelTimePct, 1, 0)
		}
		pt, pte := dash(""), dash("")
		if c.PredTimeKnown {
			pt, pte = f(c.PredTimeNs, 1e3, 1), f(c.ErrPredTimePct, 1, 0)
		}
		fk, ft := "", ""
		if c.FusedKnown {
			fk, ft = strconv.Itoa(c.FusedKernels), f(c.FusedFoldedNs, 1e3, 1)
			if c.DRAMKnown {
				fd = f(c.FusedDRAMBytes, 1e6, 2)
			}
		}
		m := make([]string, 9)
		if c.ModelKnown {
			m[0], m[1], m[6], m[7], m[8] = strconv.Itoa(c.ModelKernels), strconv.Itoa(c.ErrModelKernels), f(c.ModelTimeNs, 1e3, 1), f(c.ErrModelTimePct, 1, 0), c.ModelFused
			if human {
				m[8] = suggestTrim(m[8], 60)
			}
			if c.DRAMKnown {
				m[4], m[5] = f(c.ModelDRAMWarmBytes, 1e6, 2), f(c.ErrModelWarmPct, 1, 0)
				if c.MeasDRAMKernelBytes != 0 {
					m[2], m[3] = f(c.ModelDRAMFlushedBytes, 1e6, 2), f(c.ErrModelFlushedPct, 1, 0)
				}
			}
		}
		for i := range m {
			m[i] = dash(m[i])
		}
		row := []string{c.Experiment, c.Shape, c.Baseline, c.Candidate, c.Basis, strconv.Itoa(c.Chains),
			strconv.Itoa(c.PredKernels), dash(fk), strconv.Itoa(c.MeasKernels), strconv.Itoa(c.ErrKernels),
			dash(pd), dash(fd), dash(md), dash(ed), dash(mk), dash(ek), dash(pw), dash(ew),
			f(c.PredFoldedNs, 1e3, 1), dash(ft), f(c.MeasTimeNs, 1e3, 1), f(c.ErrTimePct, 1, 0), pt, pte, kt, kte, dash(c.Fused)}
		t.Rows = append(t.Rows, append(append(row, m...), dash(c.Note)))
	}
	return t
}

// suggestTrim shortens s to at most n runes, eliding the middle.
func suggestTrim(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	h := (n - 1) / 2
	return string(r[:h]) + "…" + string(r[len(r)-(n-1-h):])
}
