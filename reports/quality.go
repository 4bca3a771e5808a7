package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/kernels"
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
func (x *index) quality(e *kernels.Experiment) []QualityRow {
	var out []QualityRow
	for _, s := range x.shapesOf(e) {
		for _, v := range e.Variants {
			if v.Role != kernels.RoleCandidate {
				continue
			}
			ck := x.kernels[key(e.Name, v.Name, s)]
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
			var total float64
			var slow *analysis.KernelFact
			for _, k := range ck {
				total += k.DurationNs
				if slow == nil || k.DurationNs > slow.DurationNs {
					slow = k
				}
				if k.Elementwise {
					if p, ok := k.PctOfRoof[analysis.CeilDRAM]; ok && (row.ElementwisePctDRAM == 0 || p < row.ElementwisePctDRAM) {
						row.ElementwisePctDRAM = p
					}
				}
			}
			if slow != nil && total > 0 {
				row.Slowest, row.SlowestShare = slow.ShortName, slow.DurationNs/total
				row.ComputeSOL, row.MemorySOL, row.DRAMSOL = slow.SOL["compute"], slow.SOL["memory"], slow.SOL["dram"]
				row.SlowestLimits = slow.Limits
			}
			if lib := longestGEMM(x.kernels[key(e.Name, base, s)]); lib != nil && row.SlowestLimits != nil {
				row.LibraryGEMM, row.LibraryLimits = lib.ShortName, lib.Limits
			}
			out = append(out, row)
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

// writeQuality writes the kernel quality table of an experiment.
func writeQuality(p func(string, ...any), rows []QualityRow) {
	if len(rows) == 0 {
		return
	}
	p("\n### Kernel quality\n\n")
	t := Table{Header: []string{"Variant", "Shape", "GEMM speed of library", "GEMM DRAM of library", "Slowest kernel (share)", "Compute / memory / DRAM SOL", "Elementwise % of DRAM roof", "Quality"},
		Align: []Align{Left, Left, Right, Right, Left, Right, Right, Left}}
	sorted := append([]QualityRow(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Variant < sorted[j].Variant })
	for _, r := range sorted {
		sol := "—"
		if r.ComputeSOL > 0 || r.MemorySOL > 0 {
			sol = fmt.Sprintf("%.0f / %.0f / %.0f %%", r.ComputeSOL, r.MemorySOL, r.DRAMSOL)
		}
		ew := "—"
		if r.ElementwisePctDRAM > 0 {
			ew = fmt.Sprintf("%.0f%%", r.ElementwisePctDRAM)
		}
		dram := "—"
		if r.GEMMDRAM > 0 {
			dram = Ratio(r.GEMMDRAM)
		}
		slow := "—"
		if r.Slowest != "" {
			slow = fmt.Sprintf("`%s` (%.0f%%)", shorten(shortKernelName(r.Slowest), 40), 100*r.SlowestShare)
		}
		t.Rows = append(t.Rows, []string{r.Variant, "`" + r.Shape + "`", pctOrDash(100 * r.GEMMSpeed), dram, slow, sol, ew, r.Verdict})
	}
	pTable(p, t)
	p("\nFrom the ncu kernel pass of this run. GEMM speed of library: the baseline's GEMM SM cycles over\n")
	p("this variant's for the same products (its fused epilogues included); below 90%% or above 1.10x\n")
	p("the library's DRAM bytes is below library quality. SOL: ncu's own speed-of-light percentages of\n")
	p("the slowest kernel.\n")
	writeLimits(p, sorted)
}

// writeLimits writes, for the rows whose run collected them, what ncu says
// limits each candidate's slowest kernel beside the library GEMM it is set
// against.
func writeLimits(p func(string, ...any), rows []QualityRow) {
	t := Table{Header: []string{"Variant", "Shape", "Kernel", "L2 hit", "Tensor pipe", "Issue slots", "Top stalls (warps per issue)"},
		Align: []Align{Left, Left, Left, Right, Right, Right, Left}}
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
		t.Rows = append(t.Rows, []string{variant, shape, kernel, pctOrDash(l.L2HitPct), pctOrDash(l.TensorActivePct), pctOrDash(l.IssueActivePct), stalls})
	}
	for _, r := range rows {
		if r.SlowestLimits == nil {
			continue
		}
		add(r.Variant, "`"+r.Shape+"`", "`"+shorten(shortKernelName(r.Slowest), 40)+"`", r.SlowestLimits)
		if r.LibraryLimits != nil {
			add("", "", "library: `"+shorten(shortKernelName(r.LibraryGEMM), 40)+"`", r.LibraryLimits)
		}
	}
	if len(t.Rows) == 0 {
		return
	}
	p("\nWhat limits the slowest kernel, from the same pass, beside the baseline's longest GEMM:\n\n")
	pTable(p, t)
	p("\nL2 hit: `lts__t_sector_hit_rate`. Tensor pipe and issue slots: %% of peak while the SM is active.\n")
	p("Stalls: ncu's warp states, warps stalled for that reason per issued instruction, of the warps\n")
	p("resident per issued instruction in all (`smsp__average_warps_issue_stalled_*_per_issue_active`).\n")
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
