package analysis

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// BenchmarkAnalyzeRealRun analyzes a committed H100 run, once with the
// device's own ceilings (Analyze derives them) and once with ceilings given.
func BenchmarkAnalyzeRealRun(b *testing.B) {
	tb, err := ingest.ReadDir("../testdata/runs/2026-11-22-h100-003504/tables", memory.DefaultAllocator)
	if err != nil {
		b.Skip(err)
	}
	defer tb.Release()
	exps, err := spec.Load()
	if err != nil {
		b.Fatal(err)
	}
	given := DeviceCeilings(tb)
	for _, bc := range []struct {
		name string
		opts Options
	}{{"device", Options{}}, {"given", Options{Ceilings: given}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Analyze(tb, exps, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
