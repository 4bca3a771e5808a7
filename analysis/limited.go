package analysis

import (
	"fmt"
	"math"
)

// Implementation-limited verdicts (METHOD.md, "Implementation-limited
// verdicts"). A fusion changes the epilogue and elementwise work of a
// layer; the GEMM main loops compute the same products either way. Where a
// candidate's GEMMs are slower than the baseline's (library) GEMMs for the
// same products by more than the time its epilogue's own extra DRAM bytes
// take, or move more bytes than the baseline's plus those its epilogue
// must move, a NO-GO may be about that code, not about the fusion idea,
// and the report says so with the counterfactual.

// DefaultMainLoopMargin: the noise margin of a kernel-pass comparison.
// Candidate GEMMs that take more than this much longer (in SM cycles) than
// the baseline's plus the epilogue allowance, or move more than this much
// more DRAM bytes than the baseline's plus the epilogue's, limit the
// verdict (10%).
const DefaultMainLoopMargin = 0.10

// MaxComparableCycles: candidate GEMM kernels that take more than this many
// times the baseline's SM cycles for the same products (below a quarter of
// the library's speed) are not compared on time. Fused GEMMs with epilogues
// measured 1.1-1.9x on the H100 (the Triton and CUTLASS variants, the
// rooftool new template's naive GEMM); a GEMM + sequential scan megakernel
// 13x.
const MaxComparableCycles = 4.0

// sameProductsTol: GEMM kernels whose tensor FLOPs agree within this share
// compute the same products (tile padding adds a little).
const sameProductsTol = 0.02

// MainLoops compares the GEMM kernels (the kernels with tensor work) of a
// candidate cell with the baseline's at the same shape, from the ncu kernel
// pass. Time is compared in SM cycles (sm__cycles_elapsed.avg), which the
// clock each kernel happened to run at does not change.
type MainLoops struct {
	CandKernels int     `json:"candidate_kernels"`
	BaseKernels int     `json:"baseline_kernels"`
	CandFLOPs   float64 `json:"candidate_flops"`
	BaseFLOPs   float64 `json:"baseline_flops"`
	CandCycles  float64 `json:"candidate_cycles"`
	BaseCycles  float64 `json:"baseline_cycles"`
	CandDRAM    float64 `json:"candidate_dram_bytes"` // kernel pass (L2 flushed before each kernel)
	BaseDRAM    float64 `json:"baseline_dram_bytes"`
	CandClockHz float64 `json:"candidate_sm_clock_hz"` // median SM clock of the candidate's GEMMs
	CyclesRatio float64 `json:"cycles_ratio"`          // candidate / baseline
	DRAMRatio   float64 `json:"dram_ratio"`            // candidate / baseline
	Worse       bool    `json:"worse"`                 // either ratio above 1 + margin
	Limited     bool    `json:"limited"`               // SlowerLoops or MoreDRAM
	SlowerLoops bool    `json:"slower"`                // cycles ratio above 1 + margin (and comparable)
	MoreDRAM    bool    `json:"more_dram"`             // DRAM ratio above 1 + margin
	// NotAGEMM: the candidate's GEMM kernels take more than
	// MaxComparableCycles times the baseline's cycles for the same products:
	// they spend most of their time on other work than the products (a scan,
	// a second phase), which kernel counters cannot tell from their main
	// loops, so no time is charged to the main loops.
	NotAGEMM bool `json:"not_a_gemm,omitempty"`
}

// CompareMainLoops compares the GEMM kernels of cand with base; ok is false
// when either has none with tensor FLOPs or their products differ (tensor
// FLOPs more than 2% apart): the fusion changed the GEMMs themselves.
func CompareMainLoops(cand, base []*KernelFact, margin float64) (MainLoops, bool) {
	if margin <= 0 {
		margin = DefaultMainLoopMargin
	}
	var m MainLoops
	c, b := sumGEMMs(cand), sumGEMMs(base)
	m.CandKernels, m.CandFLOPs, m.CandCycles, m.CandDRAM = c.kernels, c.flops, c.cycles, c.dram
	m.BaseKernels, m.BaseFLOPs, m.BaseCycles, m.BaseDRAM = b.kernels, b.flops, b.cycles, b.dram
	if m.CandKernels == 0 || m.BaseKernels == 0 || m.CandCycles <= 0 || m.BaseCycles <= 0 {
		return m, false
	}
	if math.Abs(m.CandFLOPs/m.BaseFLOPs-1) > sameProductsTol {
		return m, false
	}
	m.CandClockHz = Median(c.clocks)
	m.CyclesRatio = m.CandCycles / m.BaseCycles
	if m.BaseDRAM > 0 {
		m.DRAMRatio = m.CandDRAM / m.BaseDRAM
	}
	slower := m.CyclesRatio > 1+margin
	m.NotAGEMM = m.CyclesRatio > MaxComparableCycles
	m.SlowerLoops = slower && !m.NotAGEMM
	m.MoreDRAM = m.DRAMRatio > 1+margin
	m.Worse = slower || m.MoreDRAM
	m.Limited = m.SlowerLoops || m.MoreDRAM
	return m, true
}

// gemmSums are the sums over the kernels with tensor work of a cell.
type gemmSums struct {
	kernels             int
	flops, cycles, dram float64
	clocks              []float64 // SM clock of each, where known
}

func sumGEMMs(ks []*KernelFact) gemmSums {
	var g gemmSums
	for _, k := range ks {
		if k.TensorFLOPs <= 0 {
			continue
		}
		g.kernels++
		g.flops += k.TensorFLOPs
		g.cycles += k.SMCycles
		g.dram += k.DRAMBytes
		if k.SMClockHz > 0 {
			g.clocks = append(g.clocks, k.SMClockHz)
		}
	}
	return g
}

// Summary states the comparison with its figures.
func (m MainLoops) Summary() string {
	return fmt.Sprintf("the candidate's %d GEMM kernels take %.2fx the SM cycles (%.3g vs %.3g) and move %.2fx the DRAM bytes (%.3g GB vs %.3g GB, kernel pass) of the baseline's %d for the same products (%.3g vs %.3g tensor FLOPs)",
		m.CandKernels, m.CyclesRatio, m.CandCycles, m.BaseCycles, m.DRAMRatio, m.CandDRAM/1e9, m.BaseDRAM/1e9, m.BaseKernels, m.CandFLOPs, m.BaseFLOPs)
}

// ExtraTimeMs is the time the candidate's GEMMs take beyond the baseline's,
// at the candidate's GEMM clock, in ms (0 when they are not slower).
func (m MainLoops) ExtraTimeMs() float64 {
	if m.CandClockHz <= 0 || m.CandCycles <= m.BaseCycles {
		return 0
	}
	return (m.CandCycles - m.BaseCycles) / m.CandClockHz * 1e3
}

// ExtraDRAM is the DRAM bytes the candidate's GEMMs move beyond the
// baseline's (0 when they move no more).
func (m MainLoops) ExtraDRAM() float64 { return math.Max(0, m.CandDRAM-m.BaseDRAM) }

// AllowanceCycles is the epilogue allowance in SM cycles of the candidate's
// GEMMs: the DRAM bytes they move beyond the baseline's (kernel pass) at
// bandwidth bw (byte/s), at the median clock of the candidate's GEMMs. A
// fused epilogue reads and writes operands the library GEMM does not; the
// time those bytes take at the DRAM bandwidth is the fusion's own cost. 0
// where bw or the clock is unknown or the candidate moves no more bytes.
func (m MainLoops) AllowanceCycles(bw float64) float64 {
	if bw <= 0 || m.CandClockHz <= 0 {
		return 0
	}
	return m.ExtraDRAM() / bw * m.CandClockHz
}

// SlowerThanAllowed reports whether the candidate's GEMM cycles exceed the
// baseline's plus allow cycles by more than margin. GEMM kernels that are
// mostly other work (NotAGEMM) are never charged.
func (m MainLoops) SlowerThanAllowed(allow, margin float64) bool {
	return !m.NotAGEMM && m.CandCycles > 0 && m.CandCycles > (m.BaseCycles+allow)*(1+margin)
}

// MoreDRAMThanEpilogue reports whether the candidate's GEMMs move more DRAM
// bytes than the baseline's plus epilogue (the bytes its fused epilogues
// must move) by more than margin.
func (m MainLoops) MoreDRAMThanEpilogue(epilogue, margin float64) bool {
	return m.CandDRAM > (m.BaseDRAM+epilogue)*(1+margin)
}
