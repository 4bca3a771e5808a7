package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/verdict"
)

// fusionBestRows are the best-of-fusion table's rows; code marks a shape as
// code in the format.
func fusionBestRows(rows []verdict.FusionBestRow, code func(string) string) [][]string {
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
func writeFusionBest(p func(string, ...any), rows []verdict.FusionBestRow) {
	if len(rows) == 0 {
		return
	}
	p("\nBest implementation of each fusion (claims.yaml fusions), per shape: the member whose GEMMs come closest to the library's speed in the same pass; its wall-time speedup against its baseline beside:\n\n")
	pTable(p, Table{Header: fusionBestHeader, Align: []Align{Left, Left, Left, Right, Right, Right, Left},
		Rows: fusionBestRows(rows, func(s string) string { return "`" + s + "`" })})
}

// qualityText is a quality row's figures as both report formats print them
// ("—" where not known; Kernel "" when there is no slowest kernel).
type qualityText struct {
	GEMMSpeed, GEMMDRAM, Kernel, Share, SOL, Elementwise string
}

func textOf(r verdict.QualityRow) qualityText {
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
func byVariant(rows []verdict.QualityRow) []verdict.QualityRow {
	sorted := append([]verdict.QualityRow(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Variant < sorted[j].Variant })
	return sorted
}

// writeQuality writes the kernel quality table of an experiment.
func writeQuality(p func(string, ...any), rows []verdict.QualityRow) {
	if len(rows) == 0 {
		return
	}
	p("\n### Kernel quality\n\n")
	t := Table{Header: []string{"Variant", "Shape", "GEMM speed of library", "GEMM DRAM of library", "Epilogue operands", "DRAM beyond epilogue, of library", "Slowest kernel (share)", "Compute / memory / DRAM SOL", "Elementwise % of DRAM roof", "Quality"},
		Align: []Align{Left, Left, Right, Right, Right, Right, Left, Right, Right, Left}}
	sorted := byVariant(rows)
	for _, r := range sorted {
		q := textOf(r)
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
func limitsRows(rows []verdict.QualityRow, code func(string) string) [][]string {
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
func writeLimits(p func(string, ...any), rows []verdict.QualityRow) {
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
