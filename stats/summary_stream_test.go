package stats

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
)

// realdata holds the real exports the summaries are checked on.
const realdata = "../testdata/realdata/"

// StreamSummary over a directory of tables, read batch by batch, gives the
// summary that KernelSummary computes over the same tables read whole: on
// every real export in testdata ingested alone and all of them ingested
// together (ncu, nsys and Kineto rows in one table), under each option.
func TestStreamSummaryMatchesKernelSummary(t *testing.T) {
	var all []ingest.Input
	err := filepath.WalkDir(realdata, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) != ".tsv" {
			if _, perr := detect.File(p, ingest.Options{}, nil); perr == nil {
				all = append(all, ingest.Input{Path: p})
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 9 {
		t.Fatalf("only %d readable exports under %s", len(all), realdata)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	sets := [][]ingest.Input{all}
	for _, in := range all {
		sets = append(sets, []ingest.Input{in})
	}
	opts := []Options{
		{},
		{Names: NamesBase},
		{Names: NamesMangled, Sort: SortName},
		{RangedOnly: true, Sort: SortInstances},
		{Flat: true},
		{Range: "*/*", Top: 2},
		{Range: "-"},
	}
	compared := 0
	for _, set := range sets {
		dir := filepath.Join(t.TempDir(), "tables")
		if _, err := detect.WriteFiles(set, dir, ingest.FormatParquet, nil); err != nil {
			t.Fatal(err)
		}
		tb, err := ingest.ReadDir(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		kernels := tb.Kernels()
		tb.Release()
		name := set[0].Path
		if len(set) > 1 {
			name = "all exports"
		}
		for _, source := range []string{"", ingest.SourceNCU, ingest.SourceNsys, ingest.SourceKineto} {
			for _, so := range opts {
				want, err := KernelSummary(SummarySource(kernels, source), so)
				if err != nil {
					t.Fatal(err)
				}
				got, err := StreamSummary(dir, source, so)
				if err != nil {
					t.Fatal(err)
				}
				compared += len(want.Rows)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s, source %q, %+v (-whole +streamed):\n%s", name, source, so, d)
				}
			}
		}
	}
	if compared < 1000 {
		t.Errorf("only %d summary rows compared", compared)
	}
}

// StreamSummary's medians (two scans, durations counted by bucket) and
// other figures are KernelSummary's (every duration sorted) on random
// durations: groups of one to a few thousand kernels, even and odd counts,
// all equal, few distinct values (ties), spread over many octaves, two
// modes far apart; with the thresholds as they are and lowered so that
// every group takes the second scan and many a dense histogram.
func TestStreamSummaryExactMedian(t *testing.T) {
	kv, hs := keepVals, histSparse
	t.Cleanup(func() { keepVals, histSparse = kv, hs })
	rnd := rand.New(rand.NewSource(7))
	var ks []ingest.Kernel
	for g := 0; g < 120; g++ {
		n := 1 + rnd.Intn(3000)
		if g%10 == 0 {
			n = 2 * (1 + rnd.Intn(40)) // small and even
		}
		rng := fmt.Sprintf("r%d", g%7)
		name := fmt.Sprintf("k%d", g)
		for i := 0; i < n; i++ {
			var d int64
			switch g % 6 {
			case 0:
				d = 3648 // all equal
			case 1:
				d = 1000 + int64(rnd.Intn(4)) // ties
			case 2:
				d = int64(math.Exp(rnd.Float64() * 30)) // many octaves
			case 3:
				d = 100 + int64(rnd.Intn(50)) // near a bucket's size
				if i%2 == 0 {
					d = 1_000_000_000 + int64(rnd.Intn(1000)) // a mode far above
				}
			case 4:
				d = int64(rnd.Intn(40)) // single-value buckets, 0 included
			default:
				d = int64(rnd.NormFloat64()*500) + 50_000
			}
			ks = append(ks, ingest.Kernel{Source: ingest.SourceNsys, Pass: ingest.PassTimeline, Range: rng, Name: name, DurationNs: d})
		}
	}
	rnd.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
	b := ingest.NewBuilder(nil)
	for _, k := range ks {
		b.AddKernel(k)
	}
	tb := b.Finish()
	dir := filepath.Join(t.TempDir(), "tables")
	if err := tb.Write(dir, ingest.FormatParquet); err != nil {
		t.Fatal(err)
	}
	tb.Release()
	want, err := KernelSummary(ks, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Rows) != 120 {
		t.Fatalf("%d rows, want 120", len(want.Rows))
	}
	for _, th := range [][2]int{{kv, hs}, {4, 3}, {1, 1}} {
		keepVals, histSparse = th[0], th[1]
		got, err := StreamSummary(dir, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("keepVals %d, histSparse %d (-sorted +streamed):\n%s", th[0], th[1], d)
		}
	}
}

// durBucket is monotonic and bucketSpan gives each bucket's bounds.
func TestDurBucket(t *testing.T) {
	for k := 0; k < nBuckets; k++ {
		lo, hi := bucketSpan(k)
		if lo > hi || durBucket(lo) != k || durBucket(hi) != k {
			t.Fatalf("bucket %d: span [%d, %d], buckets of its ends %d, %d", k, lo, hi, durBucket(lo), durBucket(hi))
		}
		if k+1 < nBuckets {
			if nlo, _ := bucketSpan(k + 1); nlo != hi+1 {
				t.Fatalf("bucket %d ends at %d, bucket %d starts at %d", k, hi, k+1, nlo)
			}
		}
	}
	if _, hi := bucketSpan(nBuckets - 1); hi != math.MaxInt64 {
		t.Fatalf("last bucket ends at %d", hi)
	}
}

// durSpill gives back every pair written, in order, across its buffers.
func TestDurSpill(t *testing.T) {
	sp, err := newDurSpill()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.remove()
	rnd := rand.New(rand.NewSource(3))
	type pair struct {
		g int32
		v int64
	}
	var want []pair
	for i := 0; i < 700_000; i++ {
		p := pair{int32(rnd.Intn(1 << uint(rnd.Intn(31)))), rnd.Int63() >> uint(rnd.Intn(63))}
		want = append(want, p)
		sp.put(p.g, p.v)
	}
	i := 0
	if err := sp.replay(func(g int32, v int64) {
		if i < len(want) && (want[i] != pair{g, v}) {
			t.Fatalf("pair %d: (%d, %d), want %v", i, g, v, want[i])
		}
		i++
	}); err != nil {
		t.Fatal(err)
	}
	if i != len(want) {
		t.Fatalf("%d pairs back, want %d", i, len(want))
	}
}
