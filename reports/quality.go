package reports

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/figure"
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

// fusionBestRows are the best-of-fusion table's rows; code marks a shape as
// code in the format.
func fusionBestRows(rows []FusionBestRow, code func(string) string) [][]string {
	var out [][]string
	for _, r := range rows {
		dram, sp := "—", "—"
		if r.GEMMDRAM > 0 {
			dram = figure.Ratio(r.GEMMDRAM)
		}
		if r.Speedup != nil {
			sp = figure.Ratio(r.Speedup.Center)
		}
		of := strings.Join(r.Measured, ", ")
		if len(r.Absent) > 0 {
			of += " (not measured: " + strings.Join(r.Absent, ", ") + ")"
		}
		out = append(out, []string{r.Fusion, code(r.Shape), r.Best, pctOrDash(100 * r.GEMMSpeed), dram, sp, of})
	}
	return out
}

// fusionBestHeader heads the best-of-fusion table.
var fusionBestHeader = []string{"Fusion", "Shape", "Best", "GEMM speed of library", "GEMM DRAM of library", "Speedup", "Of"}

// writeFusionBest writes the best implementation of each fusion per shape.
func writeFusionBest(p func(string, ...any), rows []FusionBestRow) {
	if len(rows) == 0 {
		return
	}
	p("\nBest implementation of each fusion (claims.yaml fusions), per shape: the member whose GEMMs come closest to the library's speed in the same pass; its wall-time speedup against its baseline beside:\n\n")
	pTable(p, Table{Header: fusionBestHeader, Align: []Align{Left, Left, Left, Right, Right, Right, Left},
		Rows: fusionBestRows(rows, func(s string) string { return "`" + s + "`" })})
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

// qualityText is a quality row's figures as both report formats print them
// ("—" where not known; Kernel "" when there is no slowest kernel).
type qualityText struct {
	GEMMSpeed, GEMMDRAM, Kernel, Share, SOL, Elementwise string
}

func (r QualityRow) text() qualityText {
	q := qualityText{GEMMSpeed: pctOrDash(100 * r.GEMMSpeed), GEMMDRAM: "—", SOL: "—", Elementwise: pctOrDash(r.ElementwisePctDRAM)}
	if r.GEMMDRAM > 0 {
		q.GEMMDRAM = figure.Ratio(r.GEMMDRAM)
	}
	if r.Slowest != "" {
		q.Kernel, q.Share = figure.Shorten(shortKernelName(r.Slowest), 40), fmt.Sprintf("%.0f%%", 100*r.SlowestShare)
	}
	if r.ComputeSOL > 0 || r.MemorySOL > 0 {
		q.SOL = fmt.Sprintf("%.0f / %.0f / %.0f %%", r.ComputeSOL, r.MemorySOL, r.DRAMSOL)
	}
	return q
}

// byVariant is rows in the order both report formats list them.
func byVariant(rows []QualityRow) []QualityRow {
	sorted := append([]QualityRow(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Variant < sorted[j].Variant })
	return sorted
}

// writeQuality writes the kernel quality table of an experiment.
func writeQuality(p func(string, ...any), rows []QualityRow) {
	if len(rows) == 0 {
		return
	}
	p("\n### Kernel quality\n\n")
	t := Table{Header: []string{"Variant", "Shape", "GEMM speed of library", "GEMM DRAM of library", "Epilogue operands", "DRAM beyond epilogue, of library", "Slowest kernel (share)", "Compute / memory / DRAM SOL", "Elementwise % of DRAM roof", "Quality"},
		Align: []Align{Left, Left, Right, Right, Right, Right, Left, Right, Right, Left}}
	sorted := byVariant(rows)
	for _, r := range sorted {
		q := r.text()
		slow := "—"
		if q.Kernel != "" {
			slow = fmt.Sprintf("`%s` (%s)", q.Kernel, q.Share)
		}
		epi, beyond := "—", "—"
		if r.EpilogueOperandBytes != nil {
			epi = "0 B"
			if *r.EpilogueOperandBytes > 0 {
				epi = figure.Bytes(*r.EpilogueOperandBytes)
			}
		}
		if r.DRAMBeyondEpilogue > 0 {
			beyond = figure.Ratio(r.DRAMBeyondEpilogue)
			if r.LibraryVariant != "" {
				beyond += " (" + r.LibraryVariant + ")"
			}
		}
		t.Rows = append(t.Rows, []string{r.Variant, "`" + r.Shape + "`", q.GEMMSpeed, q.GEMMDRAM, epi, beyond, slow, q.SOL, q.Elementwise, r.Verdict})
	}
	pTable(p, t)
	p("\n%s\n", legendMarkdown.render(qualityLegend))
	writeLimits(p, sorted)
}

// limitsHeader heads the table of what limits each candidate's slowest
// kernel beside the library GEMM it is set against.
var limitsHeader = []string{"Variant", "Shape", "Kernel", "L2 hit", "Tensor pipe", "Issue slots", "Top stalls (warps per issue)"}

// limitsRows are that table's rows, for the quality rows whose run collected
// the counters; code marks a shape or kernel name as code in the format.
func limitsRows(rows []QualityRow, code func(string) string) [][]string {
	var out [][]string
	add := func(variant, shape, kernel string, l *analysis.Limits) {
		var st []string
		for _, s := range l.TopStalls(3) {
			st = append(st, fmt.Sprintf("%s %.2f", s.Reason, s.Warps))
		}
		stalls := "—"
		if len(st) > 0 {
			stalls = strings.Join(st, ", ")
			if l.WarpsPerIssue > 0 {
				stalls += fmt.Sprintf(" of %.2f", l.WarpsPerIssue)
			}
		}
		out = append(out, []string{variant, shape, kernel, pctOrDash(l.L2HitPct), pctOrDash(l.TensorActivePct), pctOrDash(l.IssueActivePct), stalls})
	}
	for _, r := range rows {
		if r.SlowestLimits == nil {
			continue
		}
		add(r.Variant, code(r.Shape), code(figure.Shorten(shortKernelName(r.Slowest), 40)), r.SlowestLimits)
		if r.LibraryLimits != nil {
			add("", "", "library: "+code(figure.Shorten(shortKernelName(r.LibraryGEMM), 40)), r.LibraryLimits)
		}
	}
	return out
}

// writeLimits writes the limits table of rows, if any has its counters.
func writeLimits(p func(string, ...any), rows []QualityRow) {
	t := Table{Header: limitsHeader, Align: []Align{Left, Left, Left, Right, Right, Right, Left},
		Rows: limitsRows(rows, func(s string) string { return "`" + s + "`" })}
	if len(t.Rows) == 0 {
		return
	}
	p("\nWhat limits the slowest kernel, from the same pass, beside the baseline's longest GEMM:\n\n")
	pTable(p, t)
	p("\n%s\n", legendMarkdown.render(limitsLegend))
}

// pctOrDash prints a percentage, or "—" for 0 (not known).
func pctOrDash(v float64) string {
	if v == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", v)
}

// pTable writes a table through p.
func pTable(p func(string, ...any), t Table) {
	var b strings.Builder
	t.Write(&b)
	p("%s", b.String())
}
