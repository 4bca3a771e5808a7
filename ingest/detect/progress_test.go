package detect

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// TestProgress: Options.Progress hears 0 when an export's parse starts, the
// kernel rows read every knob.ProgressEvery of them, and all of them at its
// end; each input its own count, whether in memory or streamed.
func TestProgress(t *testing.T) {
	defer func(n int64) { knob.ProgressEvery = n }(knob.ProgressEvery)
	knob.ProgressEvery = 7
	wb := filepath.Join(ingesttest.Realdata, "DLProf", "nsys_profile.sqlite")
	gpu4 := filepath.Join(ingesttest.Realdata, "gpu4", "report.sqlite")
	var calls [2][]int64
	in := []ingest.Input{
		{Path: wb, Options: ingest.Options{Progress: func(n int64) { calls[0] = append(calls[0], n) }}},
		{Path: gpu4, Options: ingest.Options{Progress: func(n int64) { calls[1] = append(calls[1], n) }}},
	}
	check := func(how string, kernels map[string]int64) {
		t.Helper()
		for i, p := range []string{wb, gpu4} {
			c, n := calls[i], kernels[filepath.Base(p)]
			if len(c) < 2 || c[0] != 0 || c[len(c)-1] != n {
				t.Fatalf("%s %s: calls %v; want 0 first and %d last", how, p, c, n)
			}
			want := []int64{0}
			for k := knob.ProgressEvery; k <= n; k += knob.ProgressEvery {
				want = append(want, k)
			}
			want = append(want, n)
			if !slices.Equal(c, want) {
				t.Errorf("%s %s: calls %v, want %v", how, p, c, want)
			}
		}
		calls = [2][]int64{}
	}
	tab, err := Files(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	kernels := map[string]int64{}
	for _, k := range tab.Kernels() {
		kernels[k.File]++
	}
	tab.Release()
	check("Files", kernels)
	if _, err := WriteFiles(in, t.TempDir(), ingest.FormatParquet, nil); err != nil {
		t.Fatal(err)
	}
	check("WriteFiles", kernels)
}
