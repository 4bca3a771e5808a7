package nsys

import (
	"math/rand"
	"testing"
)

// streamOrder counts the rows that do not start after their stream's
// previous row as a plain map from stream to latest start does, whether
// the export has a few streams (held inline) or more than streamsInline.
func TestStreamOrderMatchesMap(t *testing.T) {
	for _, streams := range []int{1, 3, 16, 40} {
		rng := rand.New(rand.NewSource(int64(streams)))
		var got streamOrder
		last := map[[3]int64]int64{}
		want := 0
		clock := int64(0)
		for i := 0; i < 20000; i++ {
			k := [3]int64{int64(rng.Intn(2)), 1, int64(rng.Intn(streams))}
			clock += int64(rng.Intn(5))
			start := clock
			if rng.Intn(50) == 0 {
				start -= int64(rng.Intn(40)) // out of order, or a repeat of a start
			}
			if prev, ok := last[k]; ok && start <= prev {
				want++
			} else {
				last[k] = start
			}
			got.add(k[0], k[1], k[2], start)
		}
		if got.n != want {
			t.Errorf("%d streams: %d rows not after their stream's previous, want %d", streams, got.n, want)
		}
		if want == 0 {
			t.Errorf("%d streams: the sequence has no row out of order; the test checks nothing", streams)
		}
	}
}

// BenchmarkStreamOrder is the repeated-row check's cost a kernel row (4
// streams, rows round-robin as a multi-stream trace interleaves them),
// against the map lookup a row it replaced: at 10M rows, ns/row x 10M is
// its share of an ingest.
func BenchmarkStreamOrder(b *testing.B) {
	const rows = 1 << 20
	b.Run("inline", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var s streamOrder
			for r := int64(0); r < rows; r++ {
				s.add(0, 1, r&3, r)
			}
			if s.n != 0 {
				b.Fatal(s.n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
	})
	b.Run("map", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			last, n := map[[3]int64]int64{}, 0
			for r := int64(0); r < rows; r++ {
				k := [3]int64{0, 1, r & 3}
				if prev, ok := last[k]; ok && r <= prev {
					n++
					continue
				}
				last[k] = r
			}
			if n != 0 {
				b.Fatal(n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
	})
}
