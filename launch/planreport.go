package launch

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/shard"
)

// PlanRow is one cell of `rooftool plan --format csv|json`.
type PlanRow struct {
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

// PlanJSONVersion is the "rooftool_plan" key of PlanReport's JSON.
const PlanJSONVersion = 1

// PlanReport is what `rooftool plan` prints: its JSON output, and
// WriteText its table.
type PlanReport struct {
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
	Cells         []PlanRow `json:"cells"`
}

// PlanCostsError is an earlier run (Config.CostsFrom) whose costs or
// warm stage do not read: bad usage of --costs-from.
type PlanCostsError struct{ Err error }

func (e *PlanCostsError) Error() string { return e.Err.Error() }
func (e *PlanCostsError) Unwrap() error { return e.Err }

// NewPlanReport plans cfg (PlanFor) split into shardCount parts (0: not
// split) and predicts each cell's seconds, each part's and the wall time
// from the earlier runs cfg.CostsFrom; costsNote says where those came
// from. PlanFor's errors are returned as they are (*plan.ConfigError for
// a bad selection); earlier runs that do not read are *PlanCostsError.
func NewPlanReport(cfg Config, shardCount int, costsNote string) (*PlanReport, error) {
	if shardCount > 0 {
		cfg.Shard = shard.Part{Index: 1, Count: shardCount}
	}
	cells, parts, costs, hash, err := PlanFor(cfg)
	if err != nil {
		return nil, err
	}
	prior, err := shard.PriorCosts(cfg.CostsFrom)
	if err != nil {
		return nil, &PlanCostsError{err}
	}
	n := max(shardCount, 1)
	out := PlanReport{Version: PlanJSONVersion, PlanHash: hash, ShardCount: shardCount, ShardCosts: make([]float64, n),
		CostUnit: shard.CostUnit(cells, prior), PredictedFrom: append([]string{}, cfg.CostsFrom...),
		PassSeconds: map[string]float64{}, ShardSeconds: make([]float64, n), CostsNote: costsNote}
	pred := shard.PredictSeconds(cells, prior)
	for i, c := range cells {
		row := PlanRow{Cell: c.Key().String(), Passes: c.Passes, Cost: costs[i], Shard: parts[i], PassSeconds: map[string]float64{}}
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
	warm, err := PriorWarm(cfg.CostsFrom)
	if err != nil {
		return nil, &PlanCostsError{err}
	}
	out.WarmSeconds = PredictWarm(cells, warm)
	var total, slowest float64
	for _, s := range out.ShardSeconds {
		total += s
		slowest = max(slowest, s)
	}
	if total > 0 {
		out.Balance = Round2(slowest / (total / float64(n)))
	}
	out.OneGPUSeconds = Round2(out.WarmSeconds + total)
	out.Seconds = Round2(out.WarmSeconds + slowest)
	return &out, nil
}

// WriteText prints the cells with their predicted seconds, then the
// seconds per pass, each shard's count, cost and seconds, and the plan hash.
func (out PlanReport) WriteText(w io.Writer) error {
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
	if err := out.ShardTable().WriteText(w, tableout.Columns); err != nil {
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
func warmBasis(out PlanReport) string {
	if out.WarmSeconds == DefaultWarmSeconds {
		return "the default: one round of nvcc, the kernels side by side"
	}
	return "as the earlier run's"
}

// Round2 rounds f to two decimals.
func Round2(f float64) float64 { return math.Round(f*100) / 100 }

// ShardTable has a row per shard: its cells, its predicted seconds and,
// where the split was not by seconds, the cost it was split by, SI-scaled
// with its unit in the header (5.63 P: 5.63e15 shape size x passes).
func (out PlanReport) ShardTable() tableout.Table {
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

// PredictShards plans cfg (PlanFor) and predicts the seconds of each of
// its cfg.Shard.Count parts from the earlier runs cfg.CostsFrom, rounded
// to two decimals. Its errors are NewPlanReport's.
func PredictShards(cfg Config) ([]plan.Cell, []float64, error) {
	cells, parts, _, _, err := PlanFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	prior, err := shard.PriorCosts(cfg.CostsFrom)
	if err != nil {
		return nil, nil, &PlanCostsError{err}
	}
	pred := make([]float64, cfg.Shard.Count)
	for i, ps := range shard.PredictSeconds(cells, prior) {
		for _, p := range cells[i].Passes {
			pred[parts[i]-1] += ps[p].Seconds
		}
	}
	for i := range pred {
		pred[i] = Round2(pred[i])
	}
	return cells, pred, nil
}

// RecordHostRun completes a --gpus run's merged manifest in out: created
// when the parent began (so created to finished spans the warm stage, the
// shards and the merge; a resumed run's from its first invocation), the
// warm stage, and per shard the seconds the plan
// predicted beside its launches' measured seconds.
func RecordHostRun(out string, m *rundir.Manifest, shards []GPUShard, start time.Time, pred []float64, warm *rundir.Warm) error {
	m.Created = start.UTC()
	for _, p := range m.MergedFrom { // a --resume: the run began with its first invocation
		if !p.Created.IsZero() && p.Created.Before(m.Created) {
			m.Created = p.Created
		}
	}
	if warm != nil || m.Warm == nil {
		m.Warm = warm
	}
	for i := range m.MergedFrom {
		if i < len(pred) {
			m.MergedFrom[i].PredictedSeconds = pred[i]
		}
		if i < len(shards) {
			if sm, err := rundir.ReadManifest(shards[i].Dir); err == nil {
				var s float64
				for _, l := range sm.Launches {
					s += l.Seconds
				}
				m.MergedFrom[i].Seconds = Round2(s)
			}
		}
	}
	if now := time.Now().UTC(); now.After(m.Finished) {
		m.Finished = now
	}
	return m.Write(out)
}

// HostRun is what MergeHostRun records of a --gpus run beside its
// shards: whether it resumes an earlier one, the command line and
// version, when it began, each shard's predicted seconds and the warm
// stage's record (nil where none ran).
type HostRun struct {
	Resume    bool
	Command   []string
	Version   string
	Start     time.Time
	Predicted []float64
	Warm      *rundir.Warm
}

// MergeHostRun merges a --gpus run's shards into out (shard.Merge; a
// resumed run's earlier merge is removed first) and completes its
// manifest (RecordHostRun). It returns the merged manifest and the
// merge's warnings; where the merge fails its error says the shards are
// kept.
func MergeHostRun(out string, shards []GPUShard, h HostRun) (*rundir.Manifest, []string, error) {
	dirs := make([]string, len(shards))
	for i, s := range shards {
		dirs[i] = s.Dir
	}
	if h.Resume {
		// A resumed --gpus run merges its shards again.
		if m, err := rundir.ReadManifest(out); err == nil && len(m.MergedFrom) > 0 {
			if err := os.RemoveAll(out); err != nil {
				return nil, nil, err
			}
		}
	}
	m, warns, err := shard.Merge(out, dirs, shard.MergeOptions{Command: h.Command, Version: h.Version})
	if err != nil {
		return nil, warns, fmt.Errorf("merge of %v: %w (the shards are kept)", dirs, err)
	}
	if err := RecordHostRun(out, m, shards, h.Start, h.Predicted, h.Warm); err != nil {
		return nil, warns, err
	}
	return m, warns, nil
}
