package ingest

import "slices"

// rowHashes finds rows that repeat another row exactly, in bounded memory
// for exports of any size: one 64-bit hash per row, sorted once at the
// end (8 bytes a row, 80 MB for 10M kernels). Equal hashes of different
// rows are possible (about n^2/2^65: 3e-6 for 10M rows), so a count is
// "rows that repeat another", never a reason to drop one.
type rowHashes struct{ h []uint64 }

// add records one row, given as the values that identify it.
func (r *rowHashes) add(vals ...int64) {
	h := uint64(14695981039346656037)
	for _, v := range vals {
		h = (h ^ mix64(uint64(v))) * 1099511628211
	}
	r.h = append(r.h, h)
}

// mix64 is splitmix64's finaliser: every bit of v moves every bit of the
// result, so nearby values (timestamps, ids) do not collide.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// repeats is the number of rows whose values an earlier row already had.
func (r *rowHashes) repeats() int {
	slices.Sort(r.h)
	n := 0
	for i := 1; i < len(r.h); i++ {
		if r.h[i] == r.h[i-1] {
			n++
		}
	}
	r.h = nil
	return n
}
