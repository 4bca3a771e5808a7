package nsys

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sweepKernels.find, galloping from where the last search ended, finds
// what a scan from the start finds, for keys asked in any order: present,
// absent, before the first and past the last, repeated.
func TestSweepKernelsFind(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		var ks []sweepKernel
		for range rng.IntN(300) {
			ks = append(ks, sweepKernel{key: callKey{int64(rng.IntN(3)), int64(rng.IntN(400))}})
		}
		slices.SortFunc(ks, func(a, b sweepKernel) int {
			if keyLess(a.key, b.key) {
				return -1
			}
			if keyLess(b.key, a.key) {
				return 1
			}
			return 0
		})
		k := &sweepKernels{ks: ks}
		for q := range 500 {
			key := callKey{int64(rng.IntN(4)) - 1, int64(rng.IntN(420)) - 10}
			if q%3 == 0 && len(ks) > 0 { // nearly in order, as calls come
				key = ks[min(len(ks)-1, q*len(ks)/500)].key
			}
			want, wantOK := int32(0), false
			for i := range ks {
				if ks[i].key == key {
					want, wantOK = int32(i), true
					break
				}
			}
			if got, ok := k.find(key); ok != wantOK || ok && got != want {
				t.Fatalf("trial %d, query %d: find(%v) = %d, %v; want %d, %v", trial, q, key, got, ok, want, wantOK)
			}
		}
	}
}
