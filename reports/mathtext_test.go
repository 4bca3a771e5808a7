package reports

import (
	"strings"
	"testing"
)

func TestMathText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`Fused layer achieves $> 1.1\times$ speedup over unfused at $d = 768$`, `Fused layer achieves > 1.1× speedup over unfused at d = 768`},
		{`$> 1.2\times$ at $d = 2048$`, `> 1.2× at d = 2048`},
		{`relative error $< 10^{-3}$`, `relative error < 10⁻³`},
		{`$< 0.8\times$ the DRAM bytes`, `< 0.8× the DRAM bytes`},
		{`$x^2 + y_1$`, `x² + y₁`},
		{`$2^{k}$ and $W_{in}$`, `2^k and W_(in)`},
		{`$\approx 2.75\times$ less HBM traffic`, `≈ 2.75× less HBM traffic`},
		{`$\le 5\,\mu s$`, `≤ 5 μs`},
		{`$\frac{a}{b}$`, `a/b`},
		{`$\text{speedup} \geq 1.15$`, `speedup ≥ 1.15`},
		{`$O(n \log n)$`, `O(n log n)`},
		{`$50\%$ of peak`, `50% of peak`},
		{`costs \$5, not $5\times$`, `costs $5, not 5×`},
		{`no math here`, `no math here`},
		{`a lone $ stays`, `a lone $ stays`},
		{`$$a \cdot b$$ block`, `a · b block`},
		{`$\alpha\beta$`, `αβ`},
		{`$ünïcode^2$`, `ünïcode²`},
		{``, ``},
	} {
		if got := mathText(tc.in); got != tc.want {
			t.Errorf("mathText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReasonSummary(t *testing.T) {
	long := "would be NO-GO (0.913x and its whole 95% interval [0.886, 0.966] miss > 1.100x; wall time, p<0.001, n=50; device-time speedup 1.018x), but voided by host-bound: triton-epilogue: wall time 189.1 us"
	for _, tc := range []struct{ in, want string }{
		{"6 clears >= 4; 8 -> 2 kernels", "6 clears >= 4; 8 -> 2 kernels"},
		{long, "would be NO-GO (0.913x and its whole 95% interval [0.886, 0.966] miss > 1.100x; wall ti… voided by host-bound"},
		{strings.Repeat("x", 120) + " voided by ", strings.Repeat("x", 109) + "…"},
	} {
		if got := reasonSummary(tc.in); got != tc.want {
			t.Errorf("reasonSummary(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
