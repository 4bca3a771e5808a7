package figure

import (
	"fmt"
	"math"
	"strings"
)

// siPrefixes for decimal SI formatting, smallest first.
var siPrefixes = []struct {
	exp    int
	prefix string
}{{-9, "n"}, {-6, "µ"}, {-3, "m"}, {0, ""}, {3, "k"}, {6, "M"}, {9, "G"}, {12, "T"}, {15, "P"}}

// SI formats v with a decimal SI prefix and unit and four significant digits
// (fixed, so output is stable): SI(1.748e9, "B") = "1.748 GB",
// SI(0.000012345, "s") = "12.35 µs". Zero is "0 <unit>".
func SI(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == 0:
		return "0 " + unit
	}
	p := siPrefixOf(v)
	m := v / math.Pow10(p.exp)
	return sig4(m) + " " + p.prefix + unit
}

// siPrefixOf is the SI prefix SI writes v with.
func siPrefixOf(v float64) struct {
	exp    int
	prefix string
} {
	a := math.Abs(v)
	p := siPrefixes[0]
	for _, c := range siPrefixes {
		if a >= math.Pow10(c.exp)*0.9995 {
			p = c
		}
	}
	return p
}

// sig4 formats a mantissa in [1, 1000) with four significant digits.
func sig4(m float64) string {
	a := math.Abs(m)
	switch {
	case a >= 99.995:
		return fmt.Sprintf("%.1f", m)
	case a >= 9.9995:
		return fmt.Sprintf("%.2f", m)
	default:
		return fmt.Sprintf("%.3f", m)
	}
}

// Bytes formats a byte count: "129.0 MB". Zero means not measured: "—".
func Bytes(v float64) string {
	if v == 0 {
		return "—"
	}
	return SI(v, "B")
}

// FLOPs formats a FLOP count: "60.13 GFLOP". Zero: "—".
func FLOPs(v float64) string {
	if v == 0 {
		return "—"
	}
	return SI(v, "FLOP")
}

// Ms formats milliseconds as seconds with an SI prefix: "12.35 µs".
func Ms(ms float64) string { return SI(ms/1e3, "s") }

// Ratio formats a dimensionless factor: "1.234x".
func Ratio(v float64) string { return fmt.Sprintf("%.3fx", v) }

// Pct formats a fraction as a percentage: 0.615 -> "61.5%".
func Pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// Num formats a plain number compactly and deterministically.
func Num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e6 {
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
	}
	return fmt.Sprintf("%.3g", v)
}

// Unbounded reports an interval end that too few samples cannot bound:
// benchmath's ±Inf, or analysis.Unbounded (math.MaxFloat64), taken as
// anything beyond half of it.
func Unbounded(b float64) bool { return math.IsInf(b, 0) || math.Abs(b) >= math.MaxFloat64/2 }

// Seconds formats a time and its interval with one SI prefix:
// "12.35 µs [12.30, 12.41]". Each bound is formatted from its own value in
// the centre's unit (never rescaled through the rounded centre).
func Seconds(c, lo, hi float64) string {
	s := SI(c, "s")
	if lo == c && hi == c {
		return s
	}
	f := strings.Fields(s)
	unit := f[len(f)-1]
	scale := math.Pow10(siPrefixOf(c).exp)
	b := func(x float64) string {
		if Unbounded(x) {
			if x > 0 {
				return "+∞"
			}
			return "-∞"
		}
		return sig4(x / scale)
	}
	return fmt.Sprintf("%s %s [%s, %s]", f[0], unit, b(lo), b(hi))
}

// PValue formats a p-value with three decimals, "<0.001" below that.
func PValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// Plural is "1 cell", "2 cells".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// OneLine joins s onto one line, each run of white space one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Shorten cuts s (a kernel name, a reason) to n characters with an
// ellipsis.
func Shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
