package analysis

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
)

// StreamSummary over a directory of tables, read batch by batch, gives the
// summary that KernelSummary computes over the same tables read whole: on
// every real export in testdata ingested alone and all of them ingested
// together (ncu, nsys and Kineto rows in one table), under each option.
func TestStreamSummaryMatchesKernelSummary(t *testing.T) {
	var all []ingest.Input
	err := filepath.WalkDir(realdata, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) != ".tsv" {
			if _, perr := ingest.File(p, ingest.Options{}, nil); perr == nil {
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
	opts := []SummaryOptions{
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
		if _, err := ingest.WriteFiles(set, dir, ingest.FormatParquet, nil); err != nil {
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
