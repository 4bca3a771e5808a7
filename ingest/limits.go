package ingest

import "fmt"

// Size limits of what one export may hold. Past them an export is refused
// (bad input) as soon as the limit is crossed, so that a hostile or broken
// export (a kernel name of a gigabyte, a gzip that expands a thousandfold)
// costs bounded memory and time instead of the machine's memory.
const (
	// MaxFieldBytes is the longest string rooftool keeps: a kernel name,
	// an NVTX or annotation text, a StringIds value, an ncu CSV field. The
	// longest demangled C++ kernel names seen are tens of kilobytes.
	MaxFieldBytes = 1 << 20
	// MaxLineBytes is the longest ncu CSV record (one line, or the lines
	// of a quoted field that spans several) and the longest JSON value
	// read at once from a Kineto trace (one event of traceEvents, or one
	// other top-level member).
	MaxLineBytes = 64 << 20
	// MaxNestDepth is the deepest nesting of NVTX ranges or Kineto
	// annotations: a range's path holds every range outside it, so the
	// paths of a chain of N nested ranges hold N*(N+1)/2 components;
	// with the depth bounded they cost memory linear in the ranges.
	MaxNestDepth = 1000
)

// MaxKernelNs bounds a kernel's duration in every source: 2^62 ns (146
// years) leaves room to sum many of them in int64 without a wrap.
const MaxKernelNs = 1 << 62

// SizeMiB prints a byte limit ("64 MiB").
func SizeMiB(n int) string { return fmt.Sprintf("%d MiB", n>>20) }
