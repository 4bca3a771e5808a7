package ingest

import (
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ReadDirExcept reads the tables under dir as ReadDir does, leaving out the
// tables named in skip: their row readers (Metrics, say) return no rows. A
// caller that scans a large table batch by batch (ScanMetrics) reads the
// others with it.
func ReadDirExcept(dir string, skip []string, mem memory.Allocator) (*Tables, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	t := &Tables{recs: map[string]arrow.RecordBatch{}}
	for _, n := range TableNames {
		if slices.Contains(skip, n) {
			continue
		}
		rec, err := readTable(os.DirFS(dir), ".", dir, n, mem)
		if err != nil {
			t.Release()
			return nil, err
		}
		t.recs[n] = rec
	}
	return t, nil
}
