package diff

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/spec"
	"github.com/rooftool/rooftool/verdict"
)

// JSONVersion is the value of the "rooftool_diff" key of `rooftool
// diff --format json`. It changes when a key is renamed or removed or a
// value changes meaning; added keys leave it as it is.
const JSONVersion = 1

// Status of a cell or a kernel in a diff.
const (
	Both    = "both"     // in both runs
	OldOnly = "old_only" // a cell only in the old run (A)
	NewOnly = "new_only" // a cell only in the new run (B)
	Added   = "added"    // a kernel the new run launches in a cell and the old one does not
	Removed = "removed"  // a kernel the old run launches in a cell and the new one does not
)

// Result is the comparison of two runs: old (A) against new (B). As
// JSON (WriteJSON; keys sorted at every level) it reads:
//
//	{
//	  "rooftool_diff": 1,                      // JSONVersion
//	  "old_run": "2026-11-22-h100-003504", "old_gpu": "NVIDIA H100 80GB HBM3",
//	  "new_run": "2026-11-23-h100-140505", "new_gpu": "NVIDIA H100 80GB HBM3",
//	  "alpha": 0.05, "confidence": 0.95,       // of the test and of the intervals
//	  "only_old": 0, "only_new": 12,           // cells with wall times in one run only
//	  "cells": [Row, ...],                     // wall time per cell, both runs' cells first
//	  "geomean": Geomean,                      // absent when no cell has wall times in both runs
//	  "kernel_cells": [KernelCell, ...],       // per cell of both runs: kernel totals, added and removed names
//	  "kernels": [KernelRow, ...]              // per cell of both runs and kernel name
//	}
//
// Times of "cells" and "geomean" are in ms; kernel times in ns; DRAM in
// bytes; deltas are fractions (new/old - 1). Empty lists are [], never null.
type Result struct {
	Version    int      `json:"rooftool_diff"`
	A          string   `json:"old_run"` // run names
	B          string   `json:"new_run"`
	GPUA       string   `json:"old_gpu"` // devices, from the manifests or the timing files
	GPUB       string   `json:"new_gpu"`
	Alpha      float64  `json:"alpha"`
	Confidence float64  `json:"confidence"`
	Rows       []Row    `json:"cells"`
	OnlyA      int      `json:"only_old"` // cells in one run only
	OnlyB      int      `json:"only_new"`
	Geomean    *Geomean `json:"geomean,omitempty"`
	// KernelCells and Kernels cover the cells whose kernels both runs
	// recorded, in the order of Rows.
	KernelCells []KernelCell `json:"kernel_cells"`
	Kernels     []KernelRow  `json:"kernels"`
}

// Row compares one cell's wall time between two runs, benchstat style:
// medians with their 95% intervals, and a Mann-Whitney U test. As JSON:
//
//	{"experiment": "swiglu", "variant": "dual-acc", "shape": "M=512,N=4096,K=7168",
//	 "status": "both",                                    // both | old_only | new_only
//	 "old_ms": {"center": 0.1, "lo": 0.0996, "hi": 0.1004, "n": 30},  // absent: not in the old run
//	 "new_ms": {...},                                     // absent: not in the new run
//	 "delta": -0.2,                                       // new/old - 1 of the medians; both runs only
//	 "p": 2.9e-11, "significant": true,                   // p absent unless both runs
//	 "warnings": ["..."]}                                 // absent when none
type Row struct {
	Experiment  string         `json:"experiment"`
	Variant     string         `json:"variant"`
	Shape       string         `json:"shape"`
	Status      string         `json:"status"`           // Both, OldOnly or NewOnly
	Old         *verdict.Value `json:"old_ms,omitempty"` // nil: the cell is not in run A
	New         *verdict.Value `json:"new_ms,omitempty"` // nil: the cell is not in run B
	Delta       *float64       `json:"delta,omitempty"`  // new/old - 1 of the medians
	P           *float64       `json:"p,omitempty"`
	Significant bool           `json:"significant"` // P < alpha
	Warnings    []string       `json:"warnings,omitempty"`
}

// Key is the row's cell.
func (r Row) Key() cellkey.Key {
	return cellkey.New(r.Experiment, r.Variant, r.Shape)
}

// Geomean is benchstat's geomean row: the geometric means of the
// median wall times of the cells in both runs, and their ratio less one
// (the geometric mean of the cells' new/old ratios, less one). As JSON:
//
//	{"cells": 13, "old_ms": 0.212, "new_ms": 0.205, "delta": -0.033}
type Geomean struct {
	Cells int     `json:"cells"` // cells behind it
	Old   float64 `json:"old_ms"`
	New   float64 `json:"new_ms"`
	Delta float64 `json:"delta"`
}

// KernelSide is what one run launched in one cell: of one kernel name
// (KernelRow) or of all of them (KernelCell). As JSON:
//
//	{"count": 2, "time_ns": 124835, "dram_bytes": 99716608, "ncu_count": 2, "source": "nsys"}
//
// count and time_ns are launches and summed durations per iteration, from
// the timeline named by source (nsys or kineto), else from the ncu kernel
// pass (source "ncu"). dram_bytes is the ncu kernel pass's dram__bytes_read.sum
// + dram__bytes_write.sum summed over its ncu_count launches (the L2 is
// flushed before each kernel); absent where the ncu kernel pass lacks the
// kernel or its DRAM counters. ncu_count differs from count where the ncu
// and timeline passes ran different code (KernelCell's warnings say so).
type KernelSide struct {
	Count     int      `json:"count"`
	TimeNs    float64  `json:"time_ns"`
	DRAMBytes *float64 `json:"dram_bytes,omitempty"`
	NCUCount  int      `json:"ncu_count"`
	Source    string   `json:"source"`
}

// KernelRow compares one kernel of one cell between two runs, HTA
// TraceDiff style. Kernel is the name as analysis.NormalizeKernelName spells
// it, so that nsys's and ncu's spellings of one kernel meet. As JSON:
//
//	{"experiment": "gated_ssm", "variant": "triton-epilogue", "shape": "B=16,...",
//	 "kernel": "_mm_epi_tma_persistent_kernel",
//	 "status": "added",             // both | added | removed
//	 "old": KernelSide,             // absent when added
//	 "new": KernelSide,             // absent when removed
//	 "time_delta": -0.32,           // new/old - 1 of time_ns; both runs only
//	 "dram_delta": -0.44}           // new/old - 1 of dram_bytes; where both runs have it over count launches
type KernelRow struct {
	Experiment string      `json:"experiment"`
	Variant    string      `json:"variant"`
	Shape      string      `json:"shape"`
	Kernel     string      `json:"kernel"`
	Status     string      `json:"status"` // Both, Added or Removed
	Old        *KernelSide `json:"old,omitempty"`
	New        *KernelSide `json:"new,omitempty"`
	TimeDelta  *float64    `json:"time_delta,omitempty"`
	DRAMDelta  *float64    `json:"dram_delta,omitempty"`
}

// Key is the row's cell.
func (r KernelRow) Key() cellkey.Key {
	return cellkey.New(r.Experiment, r.Variant, r.Shape)
}

// KernelCell sums the kernels of one cell in each run and names those
// added and removed. As JSON:
//
//	{"experiment": "gated_ssm", "variant": "triton-epilogue", "shape": "B=16,...",
//	 "old": KernelSide, "new": KernelSide,   // all the cell's kernels
//	 "time_delta": 0.007, "dram_delta": 0.01,
//	 "added": ["_mm_epi_tma_persistent_kernel"], "removed": [],
//	 "warnings": ["old: the ncu kernel pass (2 kernels) and nsys (2 kernels) ran different code: ..."]}
//
// warnings (absent when none) are analysis's passes-differ warnings of the
// cell in either run, prefixed "old: " or "new: ". A cell one run has
// kernels for and the other has none for carries "note" instead of a
// comparison (old or new absent; no kernel rows).
type KernelCell struct {
	Experiment string      `json:"experiment"`
	Variant    string      `json:"variant"`
	Shape      string      `json:"shape"`
	Old        *KernelSide `json:"old,omitempty"`
	New        *KernelSide `json:"new,omitempty"`
	TimeDelta  *float64    `json:"time_delta,omitempty"`
	DRAMDelta  *float64    `json:"dram_delta,omitempty"`
	Added      []string    `json:"added"`
	Removed    []string    `json:"removed"`
	Warnings   []string    `json:"warnings,omitempty"`
	Note       string      `json:"note,omitempty"`
}

// Key is the cell compared.
func (d KernelCell) Key() cellkey.Key {
	return cellkey.New(d.Experiment, d.Variant, d.Shape)
}

// InputError says a run cannot be compared: it has no tables, or its
// tables hold nothing to compare. The command exits 2 on it.
type InputError struct {
	Run string // the run's name
	Msg string
}

func (e *InputError) Error() string { return fmt.Sprintf("run %s: %s", e.Run, e.Msg) }

// Timings compares the timing samples of two runs cell by cell.
func Timings(a, b []ingest.Timing) *Result {
	st := analysis.DefaultStats()
	d := &Result{Version: JSONVersion, Alpha: st.Alpha, Confidence: st.Confidence}
	group := func(ts []ingest.Timing) map[cellkey.Key][]float64 {
		m := map[cellkey.Key][]float64{}
		for _, t := range ts {
			k := t.Key()
			m[k] = append(m[k], t.Ms)
		}
		return m
	}
	ga, gb := group(a), group(b)
	keys := map[cellkey.Key]bool{}
	for k := range ga {
		keys[k] = true
	}
	for k := range gb {
		keys[k] = true
	}
	var ks []cellkey.Key
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].Less(ks[j]) })
	for _, k := range ks {
		row := Row{Experiment: k.Experiment, Variant: k.Variant, Shape: k.Shape, Status: Both}
		xa, okA := ga[k]
		xb, okB := gb[k]
		if !okA {
			d.OnlyB++
			row.Status = NewOnly
		}
		if !okB {
			d.OnlyA++
			row.Status = OldOnly
		}
		sc := st.Compare(xa, xb) // old as the base: Speedup = old / new
		val := func(iv analysis.Interval) *verdict.Value {
			return &verdict.Value{Center: iv.Center, Lo: iv.Lo, Hi: iv.Hi, N: iv.N}
		}
		if okA {
			row.Old = val(sc.Base)
		}
		if okB {
			row.New = val(sc.Cand)
		}
		for _, w := range sc.Warnings {
			row.Warnings = append(row.Warnings, w.Msg)
		}
		if okA && okB {
			row.P = finite(sc.P)
			row.Significant = sc.Significant
			if row.Old.Center > 0 {
				row.Delta = finite(row.New.Center/row.Old.Center - 1)
			}
		}
		d.Rows = append(d.Rows, row)
	}
	sortRows(d.Rows)
	d.Geomean = geomean(d.Rows)
	return d
}

// finite returns &v, or nil where v is NaN or infinite.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// ratio returns new/old - 1, or nil where old is not positive.
func ratio(old, new float64) *float64 {
	if old <= 0 {
		return nil
	}
	return finite(new/old - 1)
}

// geomean is benchstat's geomean row over the cells both runs timed; nil
// when there is none.
func geomean(rows []Row) *Geomean {
	var la, lb float64
	n := 0
	for _, r := range rows {
		if r.Old == nil || r.New == nil || r.Old.Center <= 0 || r.New.Center <= 0 {
			continue
		}
		la += math.Log(r.Old.Center)
		lb += math.Log(r.New.Center)
		n++
	}
	if n == 0 {
		return nil
	}
	g := &Geomean{Cells: n, Old: math.Exp(la / float64(n)), New: math.Exp(lb / float64(n))}
	g.Delta = math.Exp((lb-la)/float64(n)) - 1
	return g
}

// cellOrder orders cells as the specs built into rooftool list them:
// experiment by name, then variant and shape (default grid, then sweeps)
// in spec order; names the specs lack sort after, by name.
func cellOrder() func(a, b cellkey.Key) bool {
	exps, _ := spec.Load()
	vi, si := map[string]int{}, map[string]int{}
	for _, e := range exps {
		for i, v := range e.Variants {
			vi[e.Name+"/"+v.Name] = i
		}
		for i, sh := range e.AllShapes() {
			si[e.Name+"/"+sh] = i
		}
	}
	idx := func(m map[string]int, k string) int {
		if i, ok := m[k]; ok {
			return i
		}
		return 1 << 30
	}
	return func(a, b cellkey.Key) bool {
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if x, y := idx(vi, a.Experiment+"/"+a.Variant), idx(vi, b.Experiment+"/"+b.Variant); x != y {
			return x < y
		}
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		if x, y := idx(si, a.Experiment+"/"+a.Shape), idx(si, b.Experiment+"/"+b.Shape); x != y {
			return x < y
		}
		return a.Shape < b.Shape
	}
}

// sortRows puts the cells both runs have first, then those of one run,
// each in cellOrder.
func sortRows(rows []Row) {
	less := cellOrder()
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		ba, bb := a.Old != nil && a.New != nil, b.Old != nil && b.New != nil
		if ba != bb {
			return ba
		}
		return less(a.Key(), b.Key())
	})
}

// wallTimings keeps a run's wall-time samples: diff compares wall times,
// not the CUDA-graph device times of the timing pass. The samples of a cell
// whose timing pass mask leaves out (a pass the manifest marks failed or
// skipped) are left out too.
func wallTimings(t *ingest.Tables, mask analysis.PassMask) []ingest.Timing {
	var ts []ingest.Timing
	for _, x := range t.Timings() {
		if !ingest.IsDeviceTiming(x.Method) && !ingest.IsPairedTiming(x.Method) && !mask.Masked(x.Key(), rundir.PassTiming) {
			ts = append(ts, x)
		}
	}
	return ts
}

// Tables compares two runs' tables: the wall times of the timing pass
// cell by cell (Timings) and, in every cell whose kernels both runs
// recorded, the kernels by name (analysis.Analyze of each). Rows of the
// passes a run's manifest marks failed or skipped are left out, as the
// analysis of the run leaves them out. The tables' names name the runs in
// messages. It fails with a *InputError where a run's tables hold
// neither timings nor kernels of any cell.
func Tables(a, b *pipeline.Tables) (*Result, error) {
	type side struct {
		ts  []ingest.Timing
		rk  runKernels
		err error
	}
	read := func(t *pipeline.Tables) side {
		an, err := analysis.Analyze(t.Tables, nil, analysis.Options{Manifest: t.Manifest})
		if err != nil {
			return side{err: fmt.Errorf("run %s: %w", t.Name, err)}
		}
		mask := analysis.MaskOf(t.Manifest)
		s := side{ts: wallTimings(t.Tables, mask), rk: kernelsOf(an, timelineSources(t.Tables, mask))}
		if len(s.ts) == 0 && len(s.rk.cells) == 0 {
			s.err = &InputError{Run: t.Name, Msg: "its tables hold no wall-time samples and no kernel of any cell: nothing to compare"}
		}
		return s
	}
	sa := read(a)
	if sa.err != nil {
		return nil, sa.err
	}
	sb := read(b)
	if sb.err != nil {
		return nil, sb.err
	}
	d := Timings(sa.ts, sb.ts)
	d.A, d.B = a.Name, b.Name
	// The cells both runs timed, in the order of Rows, then the other
	// cells both runs have kernels for, in cellOrder.
	var order []cellkey.Key
	listed := map[cellkey.Key]bool{}
	for _, r := range d.Rows {
		if r.Status == Both {
			k := r.Key()
			listed[k] = true
			order = append(order, k)
		}
	}
	var extra []cellkey.Key
	for k := range sa.rk.cells {
		if _, ok := sb.rk.cells[k]; ok && !listed[k] {
			extra = append(extra, k)
		}
	}
	less := cellOrder()
	sort.Slice(extra, func(i, j int) bool { return less(extra[i], extra[j]) })
	order = append(order, extra...)
	d.KernelCells, d.Kernels = diffKernels(sa.rk, sb.rk, order, a.Name, b.Name)
	return d, nil
}

// runGPU names a run's device: the manifest's, else the timing files'.
func runGPU(m *rundir.Manifest, ts []ingest.Timing) string {
	if m != nil && m.GPU.Name != "" {
		return m.GPU.Name
	}
	seen := map[string]bool{}
	var devs []string
	for _, x := range ts {
		if x.Device != "" && !seen[x.Device] {
			seen[x.Device] = true
			devs = append(devs, x.Device)
		}
	}
	sort.Strings(devs)
	return strings.Join(devs, ", ")
}

// Runs compares the tables of two runs (pipeline.OpenTables; the
// caller opens and releases them) with Tables, and names each run's
// GPU: its manifest's, else the devices its wall-time rows name.
func Runs(a, b *pipeline.Tables) (*Result, error) {
	d, err := Tables(a, b)
	if err != nil {
		return nil, err
	}
	d.GPUA = runGPU(a.Manifest, wallTimings(a.Tables, analysis.MaskOf(a.Manifest)))
	d.GPUB = runGPU(b.Manifest, wallTimings(b.Tables, analysis.MaskOf(b.Manifest)))
	return d, nil
}
