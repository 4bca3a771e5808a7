package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
)

func sampleTables(t *testing.T, mem memory.Allocator) *Tables {
	t.Helper()
	b := NewBuilder(mem)
	defer b.Release()
	g := int64(7)
	id := b.AddKernel(Kernel{Source: SourceNsys, File: "a.sqlite", Pass: PassTimeline, Experiment: "e", Variant: "v", Shape: "M=1",
		Range: "M=1", RangePath: "e/v/M=1", Name: "void k<int>(float*)", ShortName: "k", Device: 0, Stream: 7,
		GridX: 1, GridY: 2, GridZ: 3, BlockX: 128, BlockY: 1, BlockZ: 1, Registers: 32, StartNs: 10, DurationNs: 5, GraphNodeID: &g})
	b.AddKernel(Kernel{Source: SourceNCU, File: "b.csv", Pass: PassKernel, Name: "k2", ShortName: "k2", DurationNs: 9})
	b.AddMetric(Metric{KernelID: id, Name: "dram__bytes_read.sum", Unit: "byte", Value: 1024, Valid: true})
	b.AddMetric(Metric{KernelID: id, Name: "launch__cache", Text: "n/a"})
	p := int64(0)
	b.AddRange(Range{Source: SourceNsys, File: "a.sqlite", Kind: "push_pop", Text: "e", Path: "e", StartNs: 1, EndNs: 100})
	b.AddRange(Range{Source: SourceNsys, File: "a.sqlite", Kind: "push_pop", Text: "v", Path: "e/v", Depth: 1, ParentID: &p, StartNs: 2, EndNs: 99})
	b.AddGPU(GPU{Source: SourceNsys, File: "a.sqlite", Name: "NVIDIA H100 80GB HBM3", CCMajor: 9, SMCount: 132, L2Bytes: 50 << 20})
	b.AddMeta(Meta{Source: SourceNsys, File: "a.sqlite", Key: "EXPORT_SCHEMA_VERSION", Value: "3.20.3"})
	b.AddTiming(Timing{Experiment: "e", Variant: "v", Shape: "M=1", Method: "cuda-graph", Rep: 0, Ms: 0.5})
	return b.Finish()
}

func TestTablesRoundTrip(t *testing.T) {
	for _, format := range []string{FormatParquet, FormatArrow} {
		t.Run(format, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tb := sampleTables(t, mem)
			defer tb.Release()
			dir := t.TempDir()
			if err := tb.Write(dir, format); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != len(TableNames) {
				t.Fatalf("wrote %d files, want %d", len(ents), len(TableNames))
			}
			got, err := ReadDir(dir, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if d := cmp.Diff(tb.Kernels(), got.Kernels()); d != "" {
				t.Errorf("kernels differ (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tb.Metrics(), got.Metrics()); d != "" {
				t.Errorf("metrics differ:\n%s", d)
			}
			if d := cmp.Diff(tb.Ranges(), got.Ranges()); d != "" {
				t.Errorf("ranges differ:\n%s", d)
			}
			for _, f := range []func(*Tables) any{
				func(x *Tables) any { return x.GPUs() }, func(x *Tables) any { return x.Metas() }, func(x *Tables) any { return x.Timings() },
			} {
				if d := cmp.Diff(f(tb), f(got)); d != "" {
					t.Errorf("table differs:\n%s", d)
				}
			}
		})
	}
}

func TestReadDirMissingTable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := sampleTables(t, mem)
	defer tb.Release()
	dir := t.TempDir()
	if err := tb.Write(dir, FormatParquet); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "ranges.parquet"))
	if _, err := ReadDir(dir, mem); err == nil {
		t.Fatal("ReadDir succeeded without ranges.parquet")
	}
}
