package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/spec"
)

// Part is one of Count disjoint parts of a planned sweep (Index 1-based);
// the zero Part is the whole sweep.
type Part struct{ Index, Count int }

// String is "I/N", "" for the whole sweep.
func (p Part) String() string {
	if p.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.Index, p.Count)
}

// Parse reads "I/N" with 1 <= I <= N.
func Parse(s string) (Part, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Part{}, plan.ConfigErrorf("--shard %q: want I/N with 1 <= I <= N, e.g. 1/4", s)
	}
	return Part{Index: i, Count: n}, nil
}

// PriorCosts reads the pass seconds that earlier runs recorded, per cell key
// and pass (the last run listed wins where several measured a cell).
func PriorCosts(dirs []string) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	for _, d := range dirs {
		m, err := rundir.ReadManifest(d)
		if err != nil {
			return nil, plan.ConfigErrorf("--costs-from %s: %v", d, err)
		}
		for _, c := range m.Cells {
			for p, st := range c.Passes {
				if st.Seconds <= 0 {
					continue
				}
				k := c.Key().String()
				if out[k] == nil {
					out[k] = map[string]float64{}
				}
				out[k][p] = st.Seconds
			}
		}
	}
	return out, nil
}

// ShapeSize is the product of a canonical shape's numeric variables
// ("M=512,N=4096" : 2097152); 1 when it has none.
func ShapeSize(shape string) float64 {
	size := 1.0
	for _, kv := range strings.Split(shape, ",") {
		_, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f > 0 {
			size *= f
		}
	}
	return size
}

// DefaultPassSeconds are a cell's seconds per pass where no earlier run
// measured the pass: the means over the 22 cells of the committed run
// testdata/runs/2026-11-26-h100-065510 (one H100; check 299.4 s, timing
// 48.6 s, ncu 150.2 s, range 616.4 s, nsys 52.4 s), rounded.
var DefaultPassSeconds = map[string]float64{
	rundir.PassCheck: 13.6, rundir.PassTiming: 2.2, rundir.PassNCU: 6.8, rundir.PassRange: 28.0, rundir.PassNsys: 2.4,
}

// Bases of a predicted pass (PassPrediction.Basis).
const (
	BasisMeasured = "measured" // the cell's own seconds in an earlier run
	BasisRate     = "rate"     // the pass's seconds per unit of shape size over the cells earlier runs measured
	BasisDefault  = "default"  // DefaultPassSeconds
)

// PassPrediction is the seconds one pass of a cell is predicted to take.
type PassPrediction struct {
	Seconds float64
	Basis   string // BasisMeasured, BasisRate or BasisDefault
}

// PredictSeconds predicts each planned cell's seconds per pass from the
// seconds earlier runs recorded (PriorCosts): a cell they measured takes
// what it took; a pass they measured for other cells takes that pass's
// seconds per unit of shape size over those cells times the cell's shape
// size; a pass they never measured takes DefaultPassSeconds.
func PredictSeconds(cells []plan.Cell, prior map[string]map[string]float64) []map[string]PassPrediction {
	perSize := map[string][2]float64{} // pass : seconds, sizes
	for _, c := range cells {
		for _, p := range c.Passes {
			if s, ok := prior[c.Key().String()][p]; ok {
				v := perSize[p]
				v[0] += s
				v[1] += ShapeSize(c.Shape)
				perSize[p] = v
			}
		}
	}
	out := make([]map[string]PassPrediction, len(cells))
	for i, c := range cells {
		out[i] = map[string]PassPrediction{}
		for _, p := range c.Passes {
			switch s, ok := prior[c.Key().String()][p]; {
			case ok:
				out[i][p] = PassPrediction{s, BasisMeasured}
			case perSize[p][1] > 0:
				out[i][p] = PassPrediction{perSize[p][0] / perSize[p][1] * ShapeSize(c.Shape), BasisRate}
			default:
				out[i][p] = PassPrediction{DefaultPassSeconds[p], BasisDefault}
			}
		}
	}
	return out
}

// CellCosts estimates each planned cell's cost for the shard split.
// Where the prior runs measured no pass of any planned cell (none given, or
// a committed run of other experiments) it is the shape size times the
// number of passes. Else it is the cell's predicted seconds
// (PredictSeconds).
func CellCosts(cells []plan.Cell, prior map[string]map[string]float64) []float64 {
	out := make([]float64, len(cells))
	if CostUnit(cells, prior) != CostSeconds {
		for i, c := range cells {
			out[i] = ShapeSize(c.Shape) * float64(len(c.Passes))
		}
		return out
	}
	for i, ps := range PredictSeconds(cells, prior) {
		for _, p := range cells[i].Passes {
			out[i] += ps[p].Seconds
		}
	}
	return out
}

// Units of CellCosts.
const (
	CostSeconds    = "s"                   // seconds, from the passes earlier runs measured
	CostShapeUnits = "shape size x passes" // the product of the shape's variables times the passes
)

// CostUnit is the unit of CellCosts(cells, prior): seconds where prior
// measured a pass of one of the cells, else shape size times passes.
func CostUnit(cells []plan.Cell, prior map[string]map[string]float64) string {
	for _, c := range cells {
		for _, p := range c.Passes {
			if _, ok := prior[c.Key().String()][p]; ok {
				return CostSeconds
			}
		}
	}
	return CostShapeUnits
}

// Assign splits the cells into n parts of about equal cost (longest
// processing time first). Cells with the same group number go to one part together (groups nil: each
// cell alone). The costliest group first (ties by its least key) goes to
// the part with the least cost so far (ties to the lowest part). It returns
// each cell's part, 1-based. The same cells, costs and groups always give
// the same split.
func Assign(cells []plan.Cell, costs []float64, groups []int, n int) []int {
	if groups == nil {
		groups = make([]int, len(cells))
		for i := range groups {
			groups[i] = i
		}
	}
	type unit struct {
		cost    float64
		least   int // the member with the least key
		members []int
	}
	byGroup := map[int]*unit{}
	var units []*unit
	for i, g := range groups {
		u := byGroup[g]
		if u == nil {
			u = &unit{least: i}
			byGroup[g] = u
			units = append(units, u)
		}
		u.cost += costs[i]
		u.members = append(u.members, i)
		if cells[i].Key().Less(cells[u.least].Key()) {
			u.least = i
		}
	}
	sort.SliceStable(units, func(a, b int) bool {
		if units[a].cost != units[b].cost {
			return units[a].cost > units[b].cost
		}
		return cells[units[a].least].Key().Less(cells[units[b].least].Key())
	})
	load := make([]float64, n)
	out := make([]int, len(cells))
	for _, u := range units {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += u.cost
		for _, i := range u.members {
			out[i] = best + 1
		}
	}
	return out
}

// RangeGroups numbers the cells so that the two cells of each range-decided
// claim at a shape share a number, transitively: the replay rule
// (rangerule.ReplayRound) judges a claim from both cells' replays, so a
// sharded sweep keeps them in one part. Only cells with the range pass are
// linked.
func RangeGroups(cells []plan.Cell) []int {
	parent := make([]int, len(cells))
	index := map[string]int{}
	for i, c := range cells {
		parent[i] = i
		index[c.Key().String()] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	done := map[*spec.Experiment]bool{}
	for _, c := range cells {
		if done[c.Exp] {
			continue
		}
		done[c.Exp] = true
		var shapes []string
		for _, o := range cells {
			if o.Exp == c.Exp && !slices.Contains(shapes, o.Shape) {
				shapes = append(shapes, o.Shape)
			}
		}
		for _, d := range c.Exp.RangeDecisions(shapes) {
			first := -1
			for _, vs := range d.Cells() {
				i, ok := index[c.Exp.Name+"/"+vs]
				if !ok || !slices.Contains(cells[i].Passes, rundir.PassRange) {
					continue
				}
				if first < 0 {
					first = i
					continue
				}
				parent[find(i)] = find(first)
			}
		}
	}
	out := make([]int, len(cells))
	for i := range cells {
		out[i] = find(i)
	}
	return out
}

// PlanHash identifies a full plan: its cells, their passes and, for a
// sharded sweep, the part each cell is in. Shards of one sweep share it.
func PlanHash(cells []plan.Cell, shards []int, count int) string {
	lines := make([]string, len(cells))
	for i, c := range cells {
		l := c.Key().String() + " " + strings.Join(c.Passes, ",")
		if shards != nil {
			l += fmt.Sprintf(" %d/%d", shards[i], count)
		}
		lines[i] = l
	}
	slices.Sort(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:])[:16]
}

// Split assigns the cells to count parts (count 0: one part, no sharding
// recorded) and returns each cell's part, its cost and the plan hash. With
// keepRange (the range pass's replay rule, rangerule.ReplaysForDecisions)
// the cells of a range-decided claim stay in one part (RangeGroups).
func Split(cells []plan.Cell, prior map[string]map[string]float64, count int, keepRange bool) (parts []int, costs []float64, hash string, err error) {
	costs = CellCosts(cells, prior)
	if count == 0 {
		parts = make([]int, len(cells))
		for i := range parts {
			parts[i] = 1
		}
		return parts, costs, PlanHash(cells, nil, 0), nil
	}
	if count > len(cells) {
		return nil, nil, "", plan.ConfigErrorf("--shard .../%d: the plan has only %d cells", count, len(cells))
	}
	var groups []int
	if keepRange {
		groups = RangeGroups(cells)
		if n := len(distinct(groups)); count > n {
			return nil, nil, "", plan.ConfigErrorf("--shard .../%d: the plan's %d cells make only %d groups that must run together (the two cells of each range-decided claim; --range-replays-for all lifts it)", count, len(cells), n)
		}
	}
	parts = Assign(cells, costs, groups, count)
	return parts, costs, PlanHash(cells, parts, count), nil
}

// distinct lists the different values of xs.
func distinct(xs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
