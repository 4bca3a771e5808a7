package roofline

import (
	"strings"
	"testing"
)

// Axis labels and plot file names.
func TestLabels(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     string
	}{{0.9894, 1.1862, "1.00 1.05 1.10 1.15"}, {0, 1.35, "0.0 0.2 0.4 0.6 0.8 1.0 1.2"}, {0.8, 1.43, "0.8 0.9 1.0 1.1 1.2 1.3 1.4"}} {
		var labels []string
		for _, tk := range (linTicks{}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("linTicks(%v, %v) = %q, want %q", c.min, c.max, got, c.want)
		}
	}
	for e, want := range map[int]string{-2: "0.01", 0: "1", 2: "100", 3: "1k", 7: "10M", 15: "1P"} {
		if got := decadeLabel(e); got != want {
			t.Errorf("decadeLabel(%d) = %q, want %q", e, got, want)
		}
	}
	for _, c := range [][4]string{{"swiglu", "M=512,N=4096,K=7168", "roofline", "swiglu-M=512,N=4096,K=7168-roofline"},
		{"swiglu", "M", "sweep", "swiglu-M-sweep"}, {"", "", "roofline", "export-roofline"}, {"a b", "x/y", "kernels", "a_b-x_y-kernels"}} {
		if got := FileName(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("FileName(%q, %q, %q) = %q, want %q", c[0], c[1], c[2], got, c[3])
		}
	}
}
