package verdict

import (
	"maps"
	"slices"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/spec"
)

// QualityRow is how well one candidate's own kernels do at one shape,
// from the ncu kernel pass of the run: its GEMMs against the baseline's
// library GEMMs for the same products, and what limits its slowest kernel.
type QualityRow struct {
	Variant string `json:"variant"`
	Shape   string `json:"shape"`
	// GEMMSpeed is the baseline's GEMM SM cycles over the candidate's: the
	// candidate's GEMMs run at this fraction of the library's speed (their
	// fused epilogues included). 0: not comparable (no GEMMs, or other
	// products).
	GEMMSpeed float64 `json:"gemm_speed_of_library,omitempty"`
	// GEMMDRAM is the candidate's GEMM DRAM bytes over the baseline's.
	GEMMDRAM float64 `json:"gemm_dram_of_library,omitempty"`
	// EpilogueOperandBytes is what the candidate's fused epilogues must
	// read and write by its dataflow (claims.yaml epilogue_bytes: the
	// auxiliary operands read, the extra outputs written), at the shape;
	// nil where claims.yaml states none. DRAMBeyondEpilogue is the
	// candidate's GEMM DRAM bytes less those, over the DRAM bytes of the
	// library GEMMs of the same products (LibraryVariant's, kernel pass):
	// 1 where the fused GEMMs move what the library's do plus their
	// epilogues' own operands.
	EpilogueOperandBytes *float64 `json:"epilogue_operand_bytes,omitempty"`
	DRAMBeyondEpilogue   float64  `json:"dram_beyond_epilogue_of_library,omitempty"`
	LibraryVariant       string   `json:"library_variant,omitempty"`
	// Slowest names the candidate's longest kernel and ncu's own
	// speed-of-light figures for it: what limits it.
	Slowest      string  `json:"slowest_kernel,omitempty"`
	SlowestShare float64 `json:"slowest_share,omitempty"` // of the candidate's kernel time
	ComputeSOL   float64 `json:"compute_sol_pct,omitempty"`
	MemorySOL    float64 `json:"memory_sol_pct,omitempty"`
	DRAMSOL      float64 `json:"dram_sol_pct,omitempty"`
	// Elementwise is the DRAM bandwidth its kernels without tensor work
	// reach, as % of the DRAM roof (the lowest; 0: none).
	ElementwisePctDRAM float64 `json:"elementwise_pct_of_dram_roof,omitempty"`
	Verdict            string  `json:"verdict"` // "at library quality" | "below library quality" | "not comparable"
	// SlowestLimits is what ncu says holds the slowest kernel back, and
	// LibraryLimits the same for the baseline's longest GEMM (the library
	// kernel it is set against); nil where the run did not collect them.
	SlowestLimits *analysis.Limits `json:"slowest_limits,omitempty"`
	LibraryGEMM   string           `json:"library_gemm,omitempty"`
	LibraryLimits *analysis.Limits `json:"library_limits,omitempty"`
}

// quality lists a row per candidate and shape that has ncu kernel facts.
func (x *index) quality(e *spec.Experiment) []QualityRow {
	var out []QualityRow
	for _, s := range x.shapesOf(e) {
		for _, v := range e.Variants {
			if v.Role != spec.RoleCandidate {
				continue
			}
			ck := x.kernels[cellkey.New(e.Name, v.Name, s)]
			if len(ck) == 0 {
				continue
			}
			row := QualityRow{Variant: v.Name, Shape: s, Verdict: "not comparable"}
			base := e.BaselineFor(v.Name)
			if ml, ok := x.mainLoops(e.Name, v.Name, base, s); ok {
				row.GEMMSpeed, row.GEMMDRAM = 1/ml.CyclesRatio, ml.DRAMRatio
				row.Verdict = "at library quality"
				if ml.Worse {
					row.Verdict = "below library quality"
				}
			}
			x.dramBeyondEpilogue(e, &row, base)
			var total float64
			var slow *analysis.KernelFact
			for _, k := range ck {
				total += k.DurationNs
				if slow == nil || k.DurationNs > slow.DurationNs {
					slow = k
				}
				if k.Elementwise {
					if p, ok := k.PctOfRoof[gpu.CeilDRAM]; ok && (row.ElementwisePctDRAM == 0 || p < row.ElementwisePctDRAM) {
						row.ElementwisePctDRAM = p
					}
				}
			}
			if slow != nil && total > 0 {
				row.Slowest, row.SlowestShare = slow.ShortName, slow.DurationNs/total
				row.ComputeSOL, row.MemorySOL, row.DRAMSOL = slow.SOL["compute"], slow.SOL["memory"], slow.SOL["dram"]
				row.SlowestLimits = slow.Limits
			}
			if lib := longestGEMM(x.kernels[cellkey.New(e.Name, base, s)]); lib != nil && row.SlowestLimits != nil {
				row.LibraryGEMM, row.LibraryLimits = lib.ShortName, lib.Limits
			}
			out = append(out, row)
		}
	}
	return out
}

// dramBeyondEpilogue fills row's epilogue operand bytes and the DRAM its
// GEMMs move beyond them, over the library GEMMs of the same products: the
// variant claims.yaml names as the candidate's library (theory library:,
// e.g. one cuBLAS GEMM over the same wide product), else the baseline.
func (x *index) dramBeyondEpilogue(e *spec.Experiment, row *QualityRow, base string) {
	lib := base
	if th, ok := e.Theory[row.Variant]; ok && th.Library != "" {
		lib = th.Library
	}
	ml, ok := x.mainLoops(e.Name, row.Variant, lib, row.Shape)
	if th, has := e.Theory[row.Variant]; has && th.EpilogueBytes != "" {
		if b, err := analysis.EvalFormula(th.EpilogueBytes, row.Shape); err == nil {
			row.EpilogueOperandBytes = &b
		}
	}
	if !ok || ml.BaseDRAM <= 0 || row.EpilogueOperandBytes == nil {
		return
	}
	row.LibraryVariant = lib
	row.DRAMBeyondEpilogue = (ml.CandDRAM - *row.EpilogueOperandBytes) / ml.BaseDRAM
}

// FusionBestRow is the best implementation of one fusion (claims.yaml
// fusions) at one shape, by the kernel quality table: the member whose
// GEMMs come closest to the library's speed, with its figures and its
// wall-time speedup against its baseline.
type FusionBestRow struct {
	Fusion    string   `json:"fusion"`
	Shape     string   `json:"shape"`
	Best      string   `json:"best"`
	GEMMSpeed float64  `json:"gemm_speed_of_library"`
	GEMMDRAM  float64  `json:"gemm_dram_of_library,omitempty"`
	Speedup   *Value   `json:"speedup,omitempty"` // wall time, against its baseline
	Measured  []string `json:"members_measured"`  // members with a comparable quality row at the shape
	Absent    []string `json:"members_absent,omitempty"`
}

// fusionBest lists, per shape and fusion, the member of rows with the
// highest GEMM speed of library (ties: the first in the fusion's order).
func (x *index) fusionBest(e *spec.Experiment, rows []QualityRow) []FusionBestRow {
	var out []FusionBestRow
	for _, s := range x.shapesOf(e) {
		for _, g := range slices.Sorted(maps.Keys(e.Fusions)) {
			r := FusionBestRow{Fusion: g, Shape: s}
			var best *QualityRow
			for _, v := range e.Fusions[g] {
				i := slices.IndexFunc(rows, func(q QualityRow) bool { return q.Variant == v && q.Shape == s && q.GEMMSpeed > 0 })
				if i < 0 {
					r.Absent = append(r.Absent, v)
					continue
				}
				r.Measured = append(r.Measured, v)
				if best == nil || rows[i].GEMMSpeed > best.GEMMSpeed {
					best = &rows[i]
				}
			}
			if best == nil {
				continue
			}
			r.Best, r.GEMMSpeed, r.GEMMDRAM = best.Variant, best.GEMMSpeed, best.GEMMDRAM
			if cmp := x.comparison(e.Name, s, e.BaselineFor(best.Variant), best.Variant); cmp != nil && cmp.Speedup.N > 0 {
				r.Speedup = &Value{Center: cmp.Speedup.Center, Lo: cmp.Speedup.Lo, Hi: cmp.Speedup.Hi, N: cmp.Speedup.N}
			}
			out = append(out, r)
		}
	}
	return out
}

// longestGEMM is the longest of ks with tensor work (nil: none).
func longestGEMM(ks []*analysis.KernelFact) *analysis.KernelFact {
	var g *analysis.KernelFact
	for _, k := range ks {
		if k.TensorFLOPs > 0 && (g == nil || k.DurationNs > g.DurationNs) {
			g = k
		}
	}
	return g
}
