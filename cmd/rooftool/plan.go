package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/shard"
)

// PlanOptions are the flags of `rooftool plan`.
type PlanOptions struct {
	IO          *IO
	Experiments []string
	ExpDirs     []string
	Variants    []string
	Shapes      []string
	Passes      []string
	Kernels     string
	DefaultOnly bool
	Sweeps      bool
	ShardCount  int
	CostsFrom   []string
	GPU         string // --gpu: the kind whose newest committed run predicts, where --costs-from is not given
	Format      string
	costsGiven  bool
}

func newPlanCmd(io *IO) *cobra.Command {
	opts := &PlanOptions{IO: io}
	c := &cobra.Command{
		Use:   "plan [profile selection flags] [--shard-count N]",
		Short: "List the cells rooftool profile would run, their estimated cost and their shard",
		Long: `Plan prints the cells a rooftool profile with the same selection flags
would run, with their passes, an estimated cost and, with --shard-count N,
the part of N each falls in (rooftool profile --shard I/N runs part I). It
runs nothing. SECONDS is each cell's predicted time: the seconds an
earlier run measured for it (or that run's seconds per unit of shape size
for its pass), else a default per pass and cell. The earlier run is
--costs-from, else the newest committed run (testdata/runs) on the --gpu
kind, else the newest of another kind (unscaled; the output says which);
--costs-from none splits by shape size instead. The parts minimise the
slowest part's predicted seconds (the costliest cell or range-decided
pair first, to the least loaded part); the output gives each part's
seconds, how balanced they are (slowest over mean), the compile stage
before the passes (warm) and the predicted wall time on one GPU and on N.
The split is deterministic: the same planned cells and costs always give
the same parts, and the plan hash printed last is the one each shard's
manifest records.`,
		Example: `  rooftool plan --shard-count 4
  rooftool plan --experiment swiglu --shard-count 2 --format csv
  rooftool plan --shard-count 4 --costs-from runs/2026-11-20-h100-101112`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.DefaultOnly && opts.Sweeps {
				return usageErrorf("plan: --default-only and --sweeps exclude each other")
			}
			if _, err := gpu.Find(opts.GPU); opts.GPU != "" && err != nil {
				return usageErrorf("plan: --gpu %s: %v", opts.GPU, err)
			}
			opts.costsGiven = c.Flags().Changed("costs-from")
			return runPlan(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&opts.Experiments, "experiment", nil, "experiment to plan (repeatable; default all)")
	f.StringArrayVar(&opts.ExpDirs, "experiments", nil, "experiment folder outside the repository, or a folder of them (repeatable)")
	f.StringArrayVar(&opts.Variants, "variant", nil, "variant to plan (repeatable; default all)")
	f.StringArrayVar(&opts.Shapes, "shape", nil, "canonical shape to plan (repeatable; default all)")
	f.StringSliceVar(&opts.Passes, "passes", rundir.AllPasses, "passes: "+strings.Join(rundir.AllPasses, ","))
	f.StringVar(&opts.Kernels, "kernels", "", kernelsFlagHelp)
	f.BoolVar(&opts.DefaultOnly, "default-only", false, "the default grid only, no sweep shapes")
	f.BoolVar(&opts.Sweeps, "sweeps", false, "sweep shapes under every pass, not only check and timing")
	f.IntVar(&opts.ShardCount, "shard-count", 0, "split the cells into N parts (as rooftool profile --shard I/N does)")
	f.StringArrayVar(&opts.CostsFrom, "costs-from", nil, "earlier run directory whose pass seconds predict each cell (repeatable; default: the newest committed run on the --gpu kind; none: split by shape size)")
	f.StringVar(&opts.GPU, "gpu", "", "the GPU kind to plan for (h100, h200, ...): picks the committed run that predicts the seconds")
	f.StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	mustRegisterCompletion(c, "gpu", completeGPU)
	mustRegisterCompletion(c, "experiment", completeExperiments)
	mustRegisterCompletion(c, "variant", completeVariants)
	mustRegisterCompletion(c, "passes", completeListOf(rundir.AllPasses...))
	mustRegisterCompletion(c, "kernels", completeDirs)
	mustRegisterCompletion(c, "experiments", completeDirs)
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	return c
}

// planRow is one cell of `rooftool plan --format csv|json`.
type planRow struct {
	Cell    string   `json:"cell"` // experiment/variant/shape
	Passes  []string `json:"passes"`
	Cost    float64  `json:"cost"`
	Seconds float64  `json:"seconds"` // predicted, its passes together
	// Basis says where each pass's prediction came from, in pass order:
	// shard.BasisMeasured, BasisRate or BasisDefault.
	Basis []string `json:"basis"`
	Shard int      `json:"shard"`
	// PassSeconds is the predicted seconds per pass.
	PassSeconds map[string]float64 `json:"pass_seconds"`
}

const planJSONVersion = 1

// planJSON is the JSON output of `rooftool plan --format json`.
type planJSON struct {
	Version    int       `json:"rooftool_plan"`
	PlanHash   string    `json:"plan_hash"`
	ShardCount int       `json:"shard_count"` // 0: not split
	ShardCosts []float64 `json:"shard_costs"` // the cost of each part
	CostUnit   string    `json:"cost_unit"`   // shard.CostSeconds or shard.CostShapeUnits
	// PredictedFrom are the runs (--costs-from) the predicted seconds come
	// from; none: every pass takes shard.DefaultPassSeconds.
	PredictedFrom []string           `json:"predicted_from"`
	PassSeconds   map[string]float64 `json:"pass_seconds"`  // predicted, per pass over every cell
	ShardSeconds  []float64          `json:"shard_seconds"` // predicted, per part
	// CostsNote says where PredictedFrom came from (--costs-from, or the
	// committed run picked for the GPU kind).
	CostsNote string `json:"costs_note"`
	// Balance is the slowest part's predicted seconds over the parts' mean
	// (1: even).
	Balance float64 `json:"balance"`
	// WarmSeconds is the compile stage before the passes, predicted (0:
	// nothing planned that it compiles); OneGPUSeconds the warm stage and
	// every pass on one GPU; Seconds the warm stage and the slowest part,
	// the wall time on ShardCount GPUs of one host.
	WarmSeconds   float64   `json:"warm_seconds"`
	OneGPUSeconds float64   `json:"one_gpu_seconds"`
	Seconds       float64   `json:"seconds"`
	Cells         []planRow `json:"cells"`
}

func runPlan(ctx context.Context, opts *PlanOptions) error {
	if err := checkDataFormat("plan", opts.Format); err != nil {
		return err
	}
	if opts.ShardCount < 0 {
		return usageErrorf("plan: --shard-count %d: want a positive count", opts.ShardCount)
	}
	var costsNote string
	opts.CostsFrom, costsNote = costsFrom(opts.CostsFrom, opts.costsGiven, opts.GPU)
	cfg := launch.Config{
		KernelsDir:     opts.Kernels,
		Experiments:    opts.Experiments,
		ExperimentDirs: opts.ExpDirs,
		Variants:       opts.Variants,
		Shapes:         opts.Shapes,
		Passes:         opts.Passes,
		Sweeps:         sweepsMode(opts.DefaultOnly, opts.Sweeps),
		CostsFrom:      opts.CostsFrom,
	}
	if opts.ShardCount > 0 {
		cfg.Shard = shard.Part{Index: 1, Count: opts.ShardCount}
	}
	cells, parts, costs, hash, err := launch.PlanFor(cfg)
	var ce *plan.ConfigError
	if errors.As(err, &ce) {
		return usageErrorf("plan: %v", ce.Err)
	}
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	prior, err := shard.PriorCosts(opts.CostsFrom)
	if err != nil {
		return usageErrorf("plan: %v", err)
	}
	n := max(opts.ShardCount, 1)
	out := planJSON{Version: planJSONVersion, PlanHash: hash, ShardCount: opts.ShardCount, ShardCosts: make([]float64, n),
		CostUnit: shard.CostUnit(cells, prior), PredictedFrom: append([]string{}, opts.CostsFrom...),
		PassSeconds: map[string]float64{}, ShardSeconds: make([]float64, n), CostsNote: costsNote}
	pred := shard.PredictSeconds(cells, prior)
	for i, c := range cells {
		row := planRow{Cell: c.Key().String(), Passes: c.Passes, Cost: costs[i], Shard: parts[i], PassSeconds: map[string]float64{}}
		for _, p := range c.Passes {
			pp := pred[i][p]
			row.Seconds += pp.Seconds
			row.Basis = append(row.Basis, pp.Basis)
			row.PassSeconds[p] = pp.Seconds
			out.PassSeconds[p] += pp.Seconds
		}
		out.Cells = append(out.Cells, row)
		out.ShardCosts[parts[i]-1] += costs[i]
		out.ShardSeconds[parts[i]-1] += row.Seconds
	}
	warm, err := launch.PriorWarm(opts.CostsFrom)
	if err != nil {
		return usageErrorf("plan: %v", err)
	}
	out.WarmSeconds = launch.PredictWarm(cells, warm)
	var total, slowest float64
	for _, s := range out.ShardSeconds {
		total += s
		slowest = max(slowest, s)
	}
	if total > 0 {
		out.Balance = round2(slowest / (total / float64(n)))
	}
	out.OneGPUSeconds = round2(out.WarmSeconds + total)
	out.Seconds = round2(out.WarmSeconds + slowest)
	csv, err := tableout.Records(out.Cells)
	if err != nil {
		return err
	}
	return writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  csv,
		JSON: out,
		Text: func(w io.Writer) error { return writePlanTable(w, out) },
	})
}

// writePlanTable prints the cells with their predicted seconds, then the
// seconds per pass, each shard's count, cost and seconds, and the plan hash.
func writePlanTable(w io.Writer, out planJSON) error {
	n := len(out.ShardCosts)
	t := tableout.Table{Header: []string{"CELL", "PASSES", "SECONDS", "FROM", "SHARD"}}
	for _, r := range out.Cells {
		t.Rows = append(t.Rows, []string{r.Cell, strings.Join(r.Passes, ","), fmt.Sprintf("%.1f", r.Seconds), basisWord(r.Basis), fmt.Sprintf("%d/%d", r.Shard, n)})
	}
	if err := t.WriteText(w, tableout.Columns); err != nil {
		return err
	}
	from := "no earlier run: every pass takes its default seconds per cell (" + defaultsLine() + ")"
	if len(out.PredictedFrom) > 0 {
		from = "predicted from " + strings.Join(out.PredictedFrom, ", ") + " (measured: the cell's own seconds there; rate: the pass's seconds per unit of shape size there; default: " + defaultsLine() + ")"
	}
	if out.CostsNote != "" && len(out.PredictedFrom) > 0 {
		from += "; " + out.CostsNote
	}
	fmt.Fprintf(w, "seconds: %s\n", from)
	var total float64
	var per []string
	for _, p := range rundir.AllPasses {
		if s, ok := out.PassSeconds[p]; ok {
			per = append(per, fmt.Sprintf("%s %.0f", p, s))
			total += s
		}
	}
	fmt.Fprintf(w, "predicted: %.0f s (%s)\n\n", total, strings.Join(per, ", "))
	if err := shardTable(out).WriteText(w, tableout.Columns); err != nil {
		return err
	}
	if n > 1 {
		fmt.Fprintf(w, "balance: the slowest part %.2fx the mean\n", out.Balance)
	}
	warm := "no warm stage (nothing planned that it compiles)"
	if out.WarmSeconds > 0 {
		warm = fmt.Sprintf("warm stage %.0f s (%s)", out.WarmSeconds, warmBasis(out))
	}
	if n > 1 {
		fmt.Fprintf(w, "wall: one GPU %.0f s; %d GPUs of one host %.0f s (%s, then the passes)\n", out.OneGPUSeconds, n, out.Seconds, warm)
	} else {
		fmt.Fprintf(w, "wall: one GPU %.0f s (%s, then the passes)\n", out.OneGPUSeconds, warm)
	}
	_, err := fmt.Fprintf(w, "plan hash: %s\n", out.PlanHash)
	return err
}

// warmBasis says where the warm stage's prediction came from.
func warmBasis(out planJSON) string {
	if out.WarmSeconds == launch.DefaultWarmSeconds {
		return "the default: one round of nvcc, the kernels side by side"
	}
	return "as the earlier run's"
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// shardTable has a row per shard: its cells, its predicted seconds and,
// where the split was not by seconds, the cost it was split by, SI-scaled
// with its unit in the header (5.63 P: 5.63e15 shape size x passes).
func shardTable(out planJSON) tableout.Table {
	n := len(out.ShardCosts)
	bySeconds := out.CostUnit == shard.CostSeconds
	t := tableout.Table{Header: []string{"SHARD", "CELLS", "PREDICTED (s)"}}
	if !bySeconds {
		t.Header = append(t.Header, "SPLIT BY COST ("+out.CostUnit+")")
	}
	for i, c := range out.ShardCosts {
		cnt := 0
		for _, r := range out.Cells {
			if r.Shard == i+1 {
				cnt++
			}
		}
		row := []string{fmt.Sprintf("%d/%d", i+1, n), strconv.Itoa(cnt), fmt.Sprintf("%.0f", out.ShardSeconds[i])}
		if !bySeconds {
			row = append(row, strings.TrimSpace(gpu.FormatSI(c)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// basisWord names where a cell's prediction came from: the one basis of
// all its passes, else "mixed".
func basisWord(bs []string) string {
	for _, b := range bs[1:] {
		if b != bs[0] {
			return "mixed"
		}
	}
	if len(bs) == 0 {
		return ""
	}
	return bs[0]
}

// defaultsLine lists shard.DefaultPassSeconds in pass order.
func defaultsLine() string {
	var ds []string
	for _, p := range rundir.AllPasses {
		ds = append(ds, fmt.Sprintf("%s %g s", p, shard.DefaultPassSeconds[p]))
	}
	return strings.Join(ds, ", ")
}
