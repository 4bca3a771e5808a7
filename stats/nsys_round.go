package stats

import (
	"math"
	"strconv"
)

// NsysRound1 is v rounded to one decimal as the queries of nsys's stats
// reports round their figures (SQLite's round(v, 1), SQLite 3.43 and
// later): the exact binary value of v to the nearest tenth, and a value
// exactly halfway between two tenths away from zero. Python then prints
// that double with one decimal. The only float64 values exactly halfway
// are those ending in .25 or .75, so:
//
//   - 328962 / 40, whose nearest double lies just below 8224.05, is 8224.0
//     (rounding the decimal 8224.05 half up would give 8224.1);
//   - 23646 / 40, the double just below 591.15, is 591.1;
//   - 33749 / 4 = 8437.25 is 8437.3 (Python's own format, half to even,
//     would print 8437.2).
//
// nsys 2025.3.1 prints all three so (the goldens under
// cmd/rooftool/testdata/nsys-goldens).
func NsysRound1(v float64) float64 {
	if q := v * 4; q == math.Trunc(q) && math.Abs(math.Mod(q, 2)) == 1 && math.Abs(v) < 1<<48 {
		return math.Round(v*10) / 10 // exactly halfway: away from zero (v*10 is exact below 2^48)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 1, 64), 64)
	if err != nil {
		return v // NaN, ±Inf
	}
	return r
}

// FormatNsys1 prints v as nsys prints a rounded figure: NsysRound1, one
// decimal.
func FormatNsys1(v float64) string {
	return strconv.FormatFloat(NsysRound1(v), 'f', 1, 64)
}
