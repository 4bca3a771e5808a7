package verdict

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/pipeline"
)

// Small goldens, one per situation a verdict meets: each starts from the
// gated_ssm cells of the synthetic run, changes one thing, and keeps the
// decisions of the claims that situation bears on (testdata/situations/).
func TestSituations(t *testing.T) {
	const gs = "B=16,T=512,d=768,H=12,dk=64,n=16"
	cell := func(in *pipeline.Result, variant string) *analysis.CellFact {
		for i := range in.Run.Cells {
			if c := &in.Run.Cells[i]; c.Experiment == "gated_ssm" && c.Variant == variant && c.Shape == gs {
				return c
			}
		}
		t.Fatalf("no cell %s", variant)
		return nil
	}
	many := func(in *pipeline.Result) { // 50 samples on the baseline: no few-samples warning
		b := cell(in, "eager")
		b.Wall.N, b.Warnings = 50, nil
		in.Run.Comparisons[3].Speedup.N = 50
	}
	cases := []struct {
		name   string
		claims []string
		edit   func(in *pipeline.Result)
	}{
		{"range-partial", []string{"hbm-traffic"}, func(in *pipeline.Result) {
			many(in)
			c := cell(in, "eager")
			c.RangePartial = true
			c.Warnings = append(c.Warnings, analysis.Warning{Code: analysis.WarnRangePartial, Metric: "dram_bytes",
				Msg: "the ncu range pass covers 33% of the kernel pass's GPU time (668 us of 2052 us) and 16% of its L2 bytes"})
		}},
		{"passes-differ", []string{"hbm-traffic", "kernel-launches", "rel-error"}, func(in *pipeline.Result) {
			many(in)
			c := cell(in, "triton-epilogue")
			c.Warnings = append(c.Warnings, analysis.Warning{Code: analysis.WarnPassesDiffer,
				Msg: "the ncu kernel pass (2 kernels) and nsys (2 kernels) ran different code: only in ncu: _mm_epi_kernel; only in nsys: _mm_epi_tma_kernel"})
		}},
		{"host-bound", []string{"speedup-d768", "latency"}, func(in *pipeline.Result) {
			many(in)
			c := cell(in, "triton-epilogue")
			setDevice(c, 0.119, 0.121)
			setDevice(cell(in, "eager"), 0.159, 0.161)
			c.Warnings = append(c.Warnings, analysis.Warning{Code: analysis.WarnHostBound, Metric: "speedup",
				Msg: "triton-epilogue: wall time 300.0 us is 2.50x the device time 120.0 us"})
		}},
		{"bimodal", []string{"speedup-d768"}, func(in *pipeline.Result) {
			many(in)
			cell(in, "eager").Warnings = []analysis.Warning{{Code: analysis.WarnBimodal, Metric: "speedup",
				Msg: "eager: wall-time samples fall into two groups: 8 at 74.3-96.0 us and 42 at 116.9-173.7 us"}}
		}},
		{"clocks-differ", []string{"speedup-d768"}, func(in *pipeline.Result) {
			many(in)
			in.CellSMClocks = map[cellkey.Key]float64{cellkey.New("gated_ssm", "eager", gs): 1530, cellkey.New("gated_ssm", "triton-epilogue", gs): 1365}
		}},
		{"rel-error-reference-only", []string{"rel-error"}, func(in *pipeline.Result) {
			for i := range in.Checks {
				in.Checks[i].VsBaseline = nil
			}
		}},
		{"limited-by-implementation", []string{"hbm-traffic", "speedup-d768"}, func(in *pipeline.Result) {
			many(in)
			k := func(v string, flops, cycles, dram float64) analysis.KernelFact {
				return analysis.KernelFact{Experiment: "gated_ssm", Variant: v, Shape: gs, Name: v + "-gemm", TensorFLOPs: flops, SMCycles: cycles, SMClockHz: 1.8e9, DRAMBytes: dram, DRAMReadBytes: dram}
			}
			in.Run.Kernels = []analysis.KernelFact{k("eager", 30e9, 150e3, 60e6), k("triton-epilogue", 30.3e9, 210e3, 66e6)}
		}},
		// A fused kernel that is mostly other work than its GEMM (a sequential scan inside,
		// say): 13x the baseline GEMM's cycles for the same products.
		{"main-loops-not-a-gemm", []string{"speedup-d768"}, func(in *pipeline.Result) {
			many(in)
			k := func(v string, flops, cycles, dram float64) analysis.KernelFact {
				return analysis.KernelFact{Experiment: "gated_ssm", Variant: v, Shape: gs, Name: v + "-gemm", TensorFLOPs: flops, SMCycles: cycles, SMClockHz: 1.8e9, DRAMBytes: dram, DRAMReadBytes: dram}
			}
			in.Run.Kernels = []analysis.KernelFact{k("eager", 30e9, 150e3, 60e6), k("triton-epilogue", 30.3e9, 1950e3, 66e6)}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := syntheticJudged(t)
			tc.edit(&in)
			rep := Build(&in)
			var b strings.Builder
			for _, d := range rep.Decisions {
				if d.Experiment != "gated_ssm" || d.Shape != gs || !contains(tc.claims, d.Claim) {
					continue
				}
				fmt.Fprintf(&b, "%s %s: %s\n  %s\n  answer's why: %s\n", d.Claim, d.Metric, d.Verdict, d.Reason, cmp.Or(whyOf(d), "—"))
				if d.LimitedBy != "" {
					fmt.Fprintf(&b, "  limited_by %s", d.LimitedBy)
					if cf := d.Counterfactual; cf != nil {
						fmt.Fprintf(&b, ", counterfactual at best %s\n    assumes: %s", FormatMetric(d.Metric, cf.AtBest), strings.Join(cf.Assumptions, "\n    assumes: "))
					}
					b.WriteString("\n")
				}
			}
			golden(t, filepath.Join("situations", tc.name+".txt"), []byte(b.String()))
		})
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// setDevice gives a cell 50 device-time samples evenly spaced over [lo, hi]
// ms and their median with its interval, as the pipeline derives them.
func setDevice(c *analysis.CellFact, lo, hi float64) {
	c.DeviceSamplesMs = make([]float64, 50)
	for i := range c.DeviceSamplesMs {
		c.DeviceSamplesMs[i] = lo + (hi-lo)*float64(i)/49
	}
	c.Device, _ = analysis.SummarizeMs(c.DeviceSamplesMs, 0.95)
}
