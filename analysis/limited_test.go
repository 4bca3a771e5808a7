package analysis

import (
	"math"
	"testing"
)

// TestEpilogueAllowance: figures worked by hand. GEMMs of 1.2e6 cycles
// against the library's 1.0e6 at 1.5 GHz, moving 300 MB more DRAM bytes at
// 3 TB/s: the allowance is 300e6/3e12 = 100 us = 150,000 cycles, so the
// limit at a 10% margin is (1.0e6 + 1.5e5) * 1.1 = 1.265e6 cycles.
func TestEpilogueAllowance(t *testing.T) {
	m := MainLoops{BaseCycles: 1.0e6, CandClockHz: 1.5e9, BaseDRAM: 1e9, CandDRAM: 1.3e9}
	if got := m.AllowanceCycles(3e12); math.Abs(got-150000) > 1e-6 {
		t.Fatalf("allowance %.6g cycles, want 150000", got)
	}
	for _, c := range []struct {
		cycles  float64
		notGEMM bool
		want    bool
	}{
		{1.2e6, false, false}, {1.264e6, false, false}, {1.266e6, false, true}, {5e6, true, false},
	} {
		m.CandCycles, m.NotAGEMM = c.cycles, c.notGEMM
		if got := m.SlowerThanAllowed(m.AllowanceCycles(3e12), 0.10); got != c.want {
			t.Errorf("%.4g cycles (not a GEMM %v): slower than allowed %v, want %v", c.cycles, c.notGEMM, got, c.want)
		}
	}
	// DRAM: 1.3 GB against the library's 1.0 GB plus 0.2 GB of epilogue
	// operands: (1.0 + 0.2) * 1.1 = 1.32 GB, not exceeded; with 0.1 GB of
	// operands the limit is (1.0 + 0.1) * 1.1 = 1.21 GB, exceeded.
	if m.MoreDRAMThanEpilogue(0.2e9, 0.10) || !m.MoreDRAMThanEpilogue(0.1e9, 0.10) {
		t.Errorf("MoreDRAMThanEpilogue: 1.3 GB vs 1.32 GB limit (0.2 GB) and 1.21 GB limit (0.1 GB)")
	}
	if (MainLoops{CandDRAM: 2, BaseDRAM: 1}).AllowanceCycles(1e12) != 0 {
		t.Error("no clock: allowance should be 0")
	}
}
