package ncu

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func TestConvertUnit(t *testing.T) {
	// Byte prefixes are decimal (see units.go for how that was settled on
	// the llm-perf-opt details page); KiB-style spellings are binary.
	cases := []struct {
		in    string
		base  string
		scale float64
		known bool
	}{
		{"", "", 1, true},
		{"%", "%", 1, true},
		{"ns", "ns", 1, true},
		{"nsecond", "ns", 1, true},
		{"us", "ns", 1e3, true},
		{"usecond", "ns", 1e3, true},
		{"msecond", "ns", 1e6, true},
		{"ms", "ns", 1e6, true},
		{"second", "ns", 1e9, true},
		{"byte", "byte", 1, true},
		{"Kbyte", "byte", 1e3, true},
		{"Mbyte", "byte", 1e6, true},
		{"Gbyte", "byte", 1e9, true},
		{"Tbyte", "byte", 1e12, true},
		{"KiB", "byte", 1024, true},
		{"MiB", "byte", 1 << 20, true},
		{"byte/second", "byte/s", 1, true},
		{"Kbyte/s", "byte/s", 1e3, true},
		{"Mbyte/s", "byte/s", 1e6, true},
		{"Gbyte/s", "byte/s", 1e9, true},
		{"Tbyte/s", "byte/s", 1e12, true},
		{"Gbyte/second", "byte/s", 1e9, true},
		{"byte/usecond", "byte/s", 1e6, true},
		{"hz", "Hz", 1, true},
		{"Khz", "Hz", 1e3, true},
		{"Mhz", "Hz", 1e6, true},
		{"Ghz", "Hz", 1e9, true},
		{"cycle/second", "Hz", 1, true},
		{"cycle/nsecond", "Hz", 1e9, true},
		{"cycle/usecond", "Hz", 1e6, true},
		{"cycle", "cycle", 1, true},
		{"Kcycle", "cycle", 1e3, true},
		{"Mcycle", "cycle", 1e6, true},
		{"inst", "inst", 1, true},
		{"Ginst", "inst", 1e9, true},
		{"inst/cycle", "inst/cycle", 1, true},
		{"inst/second", "inst/s", 1, true},
		{"Ginst/second", "inst/s", 1e9, true},
		{"register/thread", "register/thread", 1, true},
		{"byte/block", "byte/block", 1, true},
		{"Kbyte/block", "byte/block", 1e3, true},
		{"warp", "warp", 1, true},
		{"block", "block", 1, true},
		{"sector", "sector", 1, true},
		{"Msector", "sector", 1e6, true},
		{"pass", "pass", 1, true},
		{"SM", "SM", 1, true},
		{"cluster", "cluster", 1, true},
		{"thread", "thread", 1, true},
		{"nsecond/second", "", 1e-9, true},
		{"n/a", "", 1, true},
		{" Mbyte ", "byte", 1e6, true},
		{"furlong", "furlong", 1, false},
		{"furlong/second", "furlong/second", 1, false},
		{"byte/furlong", "byte/furlong", 1, false},
		{"a/b/c", "a/b/c", 1, false},
		{"/", "/", 1, false},
	}
	for _, c := range cases {
		got := convertUnit(c.in)
		if got.base != c.base || math.Abs(got.scale-c.scale) > 1e-12*c.scale || got.known != c.known {
			t.Errorf("convertUnit(%q) = {%q, %g, %v}, want {%q, %g, %v}", c.in, got.base, got.scale, got.known, c.base, c.scale, c.known)
		}
	}
}

func TestParseNumber(t *testing.T) {
	cases := []struct {
		in string
		v  float64
		ok bool
	}{
		{"0", 0, true},
		{"176,064", 176064, true},
		{"1,209,826.20", 1209826.20, true},
		{"1,073,741,824", 1073741824, true},
		{"11928907078", 11928907078, true},
		{"49064297103360", 49064297103360, true},
		{"19.66", 19.66, true},
		{"0.00", 0, true},
		{"-3.5", -3.5, true},
		{"+2", 2, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"1e3", 1000, true},
		{"1.5E-02", 0.015, true},
		{"12345678901234567890", 12345678901234567890, true},
		{"0.1234567890123456789", 0.1234567890123456789, true},
		{"123,456,789,012,345,678", 123456789012345678, true},
		{"", 0, false},
		{"n/a", 0, false},
		{"-", 0, false},
		{".", 0, false},
		{"1,2", 0, false},
		{"1,2345", 0, false},
		{"1234,567", 0, false},
		{",123", 0, false},
		{"1,234.5,6", 0, false},
		{"1.2.3", 0, false},
		{"(128, 1, 1)", 0, false},
		{"SIMT", 0, false},
		{"inf", 0, false},
		{"NaN", 0, false},
		{"1e999", 0, false},
		{"0x10", 0, false},
		{"1,000e3", 0, false},
		{"12abc", 0, false},
	}
	for _, c := range cases {
		v, ok := ncuParseNumber(c.in)
		if ok != c.ok || (ok && v != c.v) {
			t.Errorf("ncuParseNumber(%q) = %v, %v; want %v, %v", c.in, v, ok, c.v, c.ok)
		}
	}
	// The fast path agrees bit for bit with strconv on plain decimals.
	for _, s := range []string{"0.1", "0.3", "2.675", "9007199254740.991", "123456789012345", "0.000001", "65.93", "1309471763.30", "999999999999999.9"} {
		want, _ := strconv.ParseFloat(s, 64)
		if got, ok := ncuParseNumber(s); !ok || got != want {
			t.Errorf("ncuParseNumber(%q) = %v, strconv says %v", s, got, want)
		}
	}
}

// Random plain decimals parse to the same float64 as strconv.ParseFloat.
func TestParseNumberMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 200000; i++ {
		intPart := strconv.FormatUint(rng.Uint64()>>uint(rng.Intn(64)), 10)
		s := intPart
		if rng.Intn(2) == 0 {
			f := strconv.FormatUint(rng.Uint64()>>uint(rng.Intn(64)), 10)
			s += "." + f[:min(len(f), 1+rng.Intn(8))]
		}
		if rng.Intn(4) == 0 {
			s = "-" + s
		}
		want, err := strconv.ParseFloat(s, 64)
		got, ok := ncuParseNumber(s)
		if err != nil || !ok || got != want {
			t.Fatalf("ncuParseNumber(%q) = %v, %v; strconv: %v, %v", s, got, ok, want, err)
		}
	}
}
