package analysis

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/metric"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// realRunTables opens the tables of the committed real runs (testdata/runs).
func realRunTables(t *testing.T, mem memory.Allocator) map[string]*ingest.Tables {
	t.Helper()
	dirs, _ := filepath.Glob("../testdata/runs/*/tables")
	if len(dirs) == 0 {
		t.Skip("no committed run under testdata/runs")
	}
	out := map[string]*ingest.Tables{}
	for _, d := range dirs {
		tb, err := ingest.ReadDir(d, mem)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		out[filepath.Base(filepath.Dir(d))] = tb
	}
	return out
}

// On the real H100 run, the DRAM roof the export states (peak_sustained x
// clock) puts every kernel within 2 points of ncu's own dram__throughput,
// and a dense bf16 GEMM's % of the tensor roof matches ncu's sm__throughput
// where the tensor pipe is what limits it.
func TestRealRunAgreesWithNCU(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	runs := realRunTables(t, mem)
	defer func() {
		for _, tb := range runs {
			tb.Release()
		}
	}()
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for name, tb := range runs {
		run, err := Analyze(tb, exps, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range run.Kernels {
			sol, ok := f.SOL["dram"]
			pct, ok2 := f.PctOfRoof[gpu.CeilDRAM]
			if !ok || !ok2 {
				continue
			}
			checked++
			if math.Abs(sol-pct) > 2 {
				t.Errorf("%s kernel %d %s: %.2f%% of the DRAM roof, ncu says %.2f%%", name, f.KernelID, f.ShortName, pct, sol)
			}
		}
		if strings.Contains(name, "h100") {
			bf, ok := run.Ceilings.Get("tensor bf16", "device:")
			// Dense bf16 on an H100 SXM: 4096 FLOP/cycle/SM x 132 SMs at the
			// clock the kernels ran at: 0.85 PFLOP/s at 1.57 GHz up to 1.07
			// at the 1.98 GHz maximum (the datasheet's 989.5 T is at 1.83 GHz).
			// The sparse rate would be twice that.
			if !ok || bf.Value < 0.85e15 || bf.Value > 1.08e15 {
				t.Errorf("%s: device tensor bf16 roof %+v, want the dense rate", name, bf)
			}
			// sm__throughput is the busiest SM unit, the tensor pipe among
			// them: a GEMM's % of the dense tensor roof cannot exceed it, and
			// where the tensor pipe is the busiest unit the two agree. Both
			// are compared at the kernel's own clock: the roof is at the
			// median clock of the run's kernels, and a throttled GPU runs its
			// long GEMMs slower than its short kernels (run 034455: GEMMs at
			// about 1.6 GHz, the median 1.96 GHz). A kernel's own dense roof
			// is its peak per cycle x 0.5 (the peak counts 2:4 sparsity) x
			// its clock, from its own metrics.
			ownRoof := map[int64]float64{}
			for id, m := range metricsByKernel(tb) {
				peak, ok := m.get(metric.TensorPrefix + "bf16_dst_fp32.sum" + metric.PeakSuffix)
				clk, ok2 := m.get(metric.SMClock)
				if ok && ok2 && peak > 0 && clk > 0 {
					ownRoof[id] = peak * 0.5 * clk
				}
			}
			close := 0
			for _, f := range run.Kernels {
				tp, ok := f.PctOfRoof["tensor bf16"]
				comp, ok2 := f.SOL["compute"]
				if !ok || !ok2 || tp == 0 || ownRoof[f.KernelID] == 0 {
					continue
				}
				own := tp * bf.Value / ownRoof[f.KernelID]
				if own > comp+2 {
					t.Errorf("%s kernel %d %s: %.1f%% of the tensor roof at its own clock, above ncu's sm__throughput %.1f%%", name, f.KernelID, f.ShortName, own, comp)
				}
				if math.Abs(own-comp) <= 2 {
					close++
				}
			}
			if close == 0 {
				t.Errorf("%s: no GEMM within 2 points of sm__throughput at its own clock: the tensor roof is off", name)
			}
			for _, c := range run.Cells {
				if c.Status == "ok" && (c.Variant == "" || c.Shape == "") {
					t.Errorf("%s: cell without variant or shape: %+v", name, c)
				}
			}
		}
	}
	if checked == 0 {
		t.Skip("no kernel in the committed runs states dram__throughput")
	}
}
