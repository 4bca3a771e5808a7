package ncu

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unit conversion for Nsight Compute exports.
//
// ncu prints metric values either in base units (--print-units base: "ns",
// "byte", "byte/block", ...) or auto-scaled ("usecond", "Mbyte", "Gbyte/s",
// "Ghz", ...). convertUnit maps a printed unit to the base unit that the
// metrics table stores and the factor that takes a printed value there.
//
// Byte prefixes are SI decimal (Kbyte = 1000 byte, not 1024). The Nsight
// Compute documentation found through the search tool (the CLI manual's
// "Metrics and Units" section and --print-units auto|base, e.g.
// https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html) does
// not spell the factor out, so it was settled on real data: in
// testdata/realdata/llm-perf-opt/kernel_0001.ncu.details.csv ncu reports
// dram__bytes_read.sum = 2.33 Mbyte, dram__bytes_write.sum = 0,
// Duration = 6.75 us and Memory Throughput = 345.14 Gbyte/s for the same
// kernel. Decimal prefixes give 2.33e6 / 6.75e-6 = 345.19e9 byte/s (0.01%
// from ncu's own figure, the rest is the 3-digit rounding); binary prefixes
// would give 2.33*2^20 / 6.75e-6 = 361.9 GiB-based vs 345.14*2^30 = 370.6e9
// byte/s, 2.4% apart. Binary spellings (KiB, MiB, ...) are honoured as
// binary should a future ncu print them.

// unitConv converts a printed unit to its base unit.
type unitConv struct {
	base  string  // unit stored in the metrics table
	scale float64 // base value = printed value * scale
	known bool    // false: unit not recognised, kept verbatim with scale 1
}

var ncuSIPrefix = map[string]float64{
	"": 1, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
	"m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12,
}

var ncuBinPrefix = map[string]float64{
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50,
}

// ncuByteSIPrefix are the prefixes of the short byte spellings (B, KB, MB,
// ...): decimal, as ncu's Kbyte, Mbyte are.
var ncuByteSIPrefix = map[string]float64{"": 1, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}

// ncuTimeUnits maps a printed time unit to nanoseconds.
var ncuTimeUnits = map[string]float64{
	"ps": 1e-3, "psecond": 1e-3,
	"ns": 1, "nsecond": 1,
	"us": 1e3, "usecond": 1e3,
	"ms": 1e6, "msecond": 1e6,
	"s": 1e9, "second": 1e9, "sec": 1e9,
}

// ncuCountUnits are dimensionless counting units that ncu may print with an
// SI prefix when auto-scaling (e.g. "Kcycle"). They stay as they are.
var ncuCountUnits = map[string]bool{
	"cycle": true, "inst": true, "warp": true, "block": true, "thread": true,
	"sector": true, "request": true, "register": true, "pass": true, "SM": true,
	"cluster": true, "byte": true, "bit": true, "transaction": true, "wavefront": true,
	"instruction": true, "op": true, "flop": true, "packet": true, "access": true,
	"load": true, "store": true, "event": true, "kernel": true,
}

// convertUnit maps a unit as printed by ncu to its base unit. Unknown units
// come back verbatim with scale 1 and known=false; the parsers refuse them
// (ncuUnit), so that no value is taken in a unit it was not printed in.
func convertUnit(u string) unitConv {
	u = strings.TrimSpace(u)
	switch u {
	case "", "%", "n/a":
		if u == "n/a" {
			u = ""
		}
		return unitConv{base: u, scale: 1, known: true}
	}
	if c, ok := ncuSimpleUnit(u); ok {
		return c
	}
	// Rates and ratios: numerator/denominator, e.g. Gbyte/s, cycle/usecond,
	// inst/cycle, byte/block, register/thread.
	if i := strings.IndexByte(u, '/'); i > 0 && i < len(u)-1 && strings.Count(u, "/") == 1 {
		num, den := u[:i], u[i+1:]
		n, okN := ncuSimpleUnit(num)
		if !okN {
			return unitConv{base: u, scale: 1}
		}
		if ns, ok := ncuTimeUnits[den]; ok {
			secs := ns * 1e-9
			switch n.base {
			case "ns": // time per time: a ratio
				return unitConv{base: "", scale: n.scale * 1e-9 / secs, known: true}
			case "cycle": // cycles per second is a clock rate
				return unitConv{base: "Hz", scale: n.scale / secs, known: true}
			}
			return unitConv{base: n.base + "/s", scale: n.scale / secs, known: true}
		}
		d, okD := ncuSimpleUnit(den)
		if !okD {
			return unitConv{base: u, scale: 1}
		}
		return unitConv{base: n.base + "/" + d.base, scale: n.scale / d.scale, known: true}
	}
	return unitConv{base: u, scale: 1}
}

// ncuSimpleUnit converts a unit without a '/'.
func ncuSimpleUnit(u string) (unitConv, bool) {
	if ns, ok := ncuTimeUnits[u]; ok {
		return unitConv{base: "ns", scale: ns, known: true}, true
	}
	// Frequencies: ncu prints "hz", "Khz", "Mhz", "Ghz".
	for _, hz := range []string{"hz", "Hz"} {
		if p, ok := strings.CutSuffix(u, hz); ok {
			if f, ok := ncuSIPrefix[p]; ok {
				return unitConv{base: "Hz", scale: f, known: true}, true
			}
		}
	}
	if p, ok := strings.CutSuffix(u, "B"); ok { // B, KB, MB (decimal); KiB, MiB (binary)
		if f, ok := ncuBinPrefix[p]; ok {
			return unitConv{base: "byte", scale: f, known: true}, true
		}
		if f, ok := ncuByteSIPrefix[p]; ok {
			return unitConv{base: "byte", scale: f, known: true}, true
		}
	}
	if ncuCountUnits[u] {
		return unitConv{base: u, scale: 1, known: true}, true
	}
	// SI prefix on a counting unit: Kbyte, Mbyte, Gbyte, Tbyte, Kcycle, Minst.
	// Only upper-case multiplying prefixes are taken here: "msecond" is a time
	// and handled above, and a lower-case m on a count is not something ncu
	// prints.
	if len(u) > 1 {
		if f, ok := map[byte]float64{'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12, 'P': 1e15}[u[0]]; ok && ncuCountUnits[u[1:]] {
			return unitConv{base: u[1:], scale: f, known: true}, true
		}
		if len(u) > 2 {
			if f, ok := ncuBinPrefix[u[:2]]; ok && ncuCountUnits[u[2:]] {
				return unitConv{base: u[2:], scale: f, known: true}, true
			}
		}
	}
	return unitConv{}, false
}

// ncuPow10 holds the powers of ten that are exact in a float64.
var ncuPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ncuParseNumber parses a value as ncu prints it: optional sign, digits with
// optional thousands separators ("176,064", "1,209,826.20"), an optional
// fraction and exponent. ok is false for anything else, including "n/a",
// "" and text such as "(128, 1, 1)". Thousands separators must group
// exactly three digits.
func ncuParseNumber(s string) (v float64, ok bool) {
	// Fastest path, for what ncu prints most: [-]digits[.digits] with at
	// most 15 digits in all (leading zeros included, to stay simple).
	n := len(s)
	i := 0
	if n > 0 && s[0] == '-' {
		i = 1
	}
	start := i
	var m uint64
	for ; i < n; i++ {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		m = m*10 + uint64(c)
	}
	digits := i - start
	frac := 0
	if i < n && s[i] == '.' {
		i++
		f0 := i
		for ; i < n; i++ {
			c := s[i] - '0'
			if c > 9 {
				break
			}
			m = m*10 + uint64(c)
		}
		frac = i - f0
	}
	if i == n && digits+frac > 0 && digits+frac <= 15 {
		v = float64(m) / ncuPow10[frac]
		if start == 1 {
			v = -v
		}
		return v, true
	}
	return ncuParseNumberGeneral(s)
}

// ncuParseNumberGeneral is ncuParseNumber for thousands separators, a
// leading '+', exponents and long mantissas.
func ncuParseNumberGeneral(s string) (v float64, ok bool) {
	if len(s) == 0 {
		return 0, false
	}
	// Fast path: [-]digits[.digits] with at most 15 significant digits and
	// optional 3-digit groups. m and 10^k are then exact, and m/10^k is
	// the correctly rounded result (Clinger's fast path), equal to what
	// strconv.ParseFloat returns.
	i := 0
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		i = 1
	}
	var m uint64
	nd := 0   // significant digits accumulated
	frac := 0 // digits after the point
	sawDigit := false
	lastComma := -1 // index of the last ',' seen
	digitsSinceComma := 0
	point := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if nd > 0 || c != '0' {
				nd++
			}
			m = m*10 + uint64(c-'0')
			if point {
				frac++
			} else if lastComma >= 0 {
				digitsSinceComma++
			}
		case c == ',':
			if point || !sawDigit || (lastComma >= 0 && digitsSinceComma != 3) {
				return 0, false
			}
			if lastComma < 0 {
				// digits before the first separator: 1 to 3
				start := 0
				if s[0] == '-' || s[0] == '+' {
					start = 1
				}
				if i-start > 3 {
					return 0, false
				}
			}
			lastComma = i
			digitsSinceComma = 0
		case c == '.':
			if point {
				return 0, false
			}
			if lastComma >= 0 && digitsSinceComma != 3 {
				return 0, false
			}
			point = true
		default:
			// exponent or anything else: the slow path decides.
			return ncuParseNumberSlow(s)
		}
	}
	if !sawDigit || (lastComma >= 0 && !point && digitsSinceComma != 3) {
		return 0, false
	}
	if nd <= 15 && frac < len(ncuPow10) {
		v = float64(m) / ncuPow10[frac]
		if neg {
			v = -v
		}
		return v, true
	}
	return ncuParseNumberSlow(s)
}

// ncuParseNumberSlow handles exponents and long mantissas through strconv,
// after dropping thousands separators (validated by ncuParseNumber's caller
// for the common forms; here only digits, signs, '.', 'e', 'E' and ',' pass).
func ncuParseNumberSlow(s string) (float64, bool) {
	c0 := s[0]
	if !(c0 >= '0' && c0 <= '9') && c0 != '-' && c0 != '+' && c0 != '.' {
		return 0, false // keeps "inf", "nan", "0x..." style text out
	}
	if strings.IndexByte(s, ',') >= 0 && strings.ContainsAny(s, "eE") {
		return 0, false // ncu never groups digits of a number in exponent form
	}
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ',':
			continue
		case c >= '0' && c <= '9', c == '.', c == '-', c == '+', c == 'e', c == 'E':
			b = append(b, c)
		default:
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// ncuUnit converts a unit of an ncu export, or says why it cannot: a unit
// that is not known has no base unit to take its values to.
func ncuUnit(u string) (unitConv, error) {
	c := convertUnit(u)
	if !c.known {
		return c, fmt.Errorf("unknown unit %q: want a time (ns, us, ms, s, nsecond, ...), bytes (byte, KB, Kbyte, KiB, ...), a rate (Gbyte/s, hz, cycle/nsecond, ...), a count (cycle, inst, ...), %% or none", strings.TrimSpace(u))
	}
	return c, nil
}
