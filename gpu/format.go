package gpu

import (
	"fmt"
	"math"
)

// FormatRate prints a rate with an SI prefix: "3.35 TB/s" for kind
// "bandwidth" (byte/s), "989 TFLOP/s" for "compute" (FLOP/s).
func FormatRate(v float64, kind string) string {
	unit := "FLOP/s"
	if kind == "bandwidth" {
		unit = "B/s"
	}
	return FormatSI(v) + unit
}

// FormatSI prints v with three significant digits and an SI prefix and a
// trailing space: "3.35 T", "512 G", "0 ".
func FormatSI(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprintf("%g ", v)
	}
	prefixes := []string{"", "k", "M", "G", "T", "P", "E"}
	i := 0
	a := math.Abs(v)
	for a >= 999.5 && i < len(prefixes)-1 {
		a /= 1000
		v /= 1000
		i++
	}
	var s string
	switch {
	case a >= 99.95:
		s = fmt.Sprintf("%.0f", v)
	case a >= 9.995:
		s = fmt.Sprintf("%.1f", v)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	return s + " " + prefixes[i]
}
