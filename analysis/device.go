package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
)

// DeviceCeilings derives the roofs the export itself states: for every ncu
// kernel-pass row with a *.peak_sustained metric and the clock it runs on,
// peak per cycle x cycles per second, and the median over rows (clocks move a
// little from kernel to kernel). Without ncu peaks, the DRAM bandwidth a
// device row states (nsys TARGET_INFO_GPU) is used. Each Ceiling's Source
// says which metrics it comes from. L2Bytes and GPU come from the gpus table.
func DeviceCeilings(t *ingest.Tables) gpu.Ceilings {
	return deviceCeilings(t, metricsByKernel(t))
}

// deviceCeilings is DeviceCeilings on the metrics of t indexed by kernel.
func deviceCeilings(t *ingest.Tables, byKernel metricIndex) gpu.Ceilings {
	var c gpu.Ceilings
	for _, g := range t.GPUs() {
		if c.GPU == "" && g.Name != "" {
			c.GPU = g.Name
		}
		if c.L2Bytes == 0 && g.L2Bytes > 0 {
			c.L2Bytes = g.L2Bytes
		}
	}
	if c.GPU == "" {
		// A timing-only run names its device in the timings table.
		for _, tm := range t.Timings() {
			if tm.Device != "" {
				c.GPU = tm.Device
				break
			}
		}
	}
	var ids []int64
	for _, k := range t.Kernels() {
		if k.Source == ingest.SourceNCU && k.Pass != ingest.PassRange {
			ids = append(ids, k.ID)
		}
	}
	type spec struct {
		name, kind           string
		peaks                []string // first present wins
		clock, fallbackClock string
		factor               float64
	}
	inst := func(op string) []string {
		return []string{metric.InstPrefix + op + "_pred_on.sum" + metric.PeakSuffix, metric.InstPrefixSMSP + op + "_pred_on.sum" + metric.PeakSuffix}
	}
	// L2 and L1 run in their own clock domains; where the export lacks
	// their cycle rates the SM clock stands in, and the Source says so.
	specs := []spec{
		{gpu.CeilDRAM, gpu.KindBandwidth, []string{metric.DRAMPeak}, metric.DRAMClock, "", 1},
		{gpu.CeilL2, gpu.KindBandwidth, []string{metric.L2Peak}, metric.L2Clock, metric.SMClock, 1},
		{gpu.CeilL1, gpu.KindBandwidth, []string{metric.L1Peak}, metric.L1Clock, metric.SMClock, 1},
		{gpu.CeilFP64, gpu.KindCompute, inst("dfma"), metric.SMClock, "", 2},
		{gpu.CeilFP32, gpu.KindCompute, inst("ffma"), metric.SMClock, "", 2},
		{gpu.CeilFP16, gpu.KindCompute, inst("hfma"), metric.SMClock, "", 2},
	}
	// Tensor peaks: every sm__ops_path_tensor_src_*.sum.peak_sustained seen.
	tensorPeaks := map[string]string{} // class -> metric (first in name order)
	for _, id := range ids {
		for _, name := range sortedKeys(byKernel[id]) {
			if !strings.HasPrefix(name, metric.TensorPrefix) || !strings.HasSuffix(name, metric.PeakSuffix) {
				continue
			}
			g := tensorRE.FindStringSubmatch(strings.TrimSuffix(name, metric.PeakSuffix))
			if g == nil || g[3] != "" {
				continue
			}
			cl := tensorClass(g[1])
			if _, ok := tensorPeaks[cl]; !ok {
				tensorPeaks[cl] = name
			}
		}
	}
	for _, cl := range sortedKeys(tensorPeaks) {
		// sm__ops_path_tensor_*.peak_sustained is the 2:4-sparse rate: on an
		// H100 it reads 8192 FLOP/cycle/SM for bf16, twice the dense 4096,
		// and only half of it reproduces ncu's own sm__throughput for a dense
		// GEMM (testdata/runs/2026-11-22-h100-003504). Dense roofs use half.
		specs = append(specs, spec{gpu.CeilingFor(cl), gpu.KindCompute, []string{tensorPeaks[cl]}, metric.SMClock, "", 0.5})
	}
	for _, s := range specs {
		var vals []float64
		peakUsed, clockUsed, fellBack := "", s.clock, false
		// A compute roof is drawn at the clock of the kernels that use its
		// pipe (GEMMs throttle below the clock elementwise kernels hold):
		// those with a non-zero counter for it, else every kernel.
		users := ids
		if s.kind == gpu.KindCompute {
			if u := pipeUsers(byKernel, ids, s.peaks); len(u) > 0 {
				users = u
			}
		}
		for _, id := range users {
			m := byKernel[id]
			p, ok := 0.0, false
			for _, name := range s.peaks {
				if p, ok = m.get(name); ok {
					peakUsed = name
					break
				}
			}
			if !ok || p <= 0 {
				continue
			}
			clk, ok := m.get(s.clock)
			if !ok && s.fallbackClock != "" {
				clk, ok = m.get(s.fallbackClock)
				clockUsed, fellBack = s.fallbackClock, true
			}
			if !ok || clk <= 0 {
				continue
			}
			vals = append(vals, p*clk*s.factor)
		}
		if len(vals) == 0 {
			continue
		}
		factor := ""
		if s.factor != 1 {
			factor = fmt.Sprintf(" x %g", s.factor)
		}
		if strings.HasPrefix(peakUsed, metric.TensorPrefix) {
			factor += " (dense: the peak counts 2:4 sparsity)"
		}
		note := ""
		if fellBack {
			note = fmt.Sprintf("; %s not in the export, SM clock used", s.clock)
		}
		who := "kernels"
		if s.kind == gpu.KindCompute && len(users) < len(ids) {
			who = "kernels that use this pipe"
		}
		clk := medianClock(byKernel, users, clockUsed)
		c.Items = append(c.Items, gpu.Ceiling{
			Name: s.name, Kind: s.kind, Value: Median(vals),
			Source: fmt.Sprintf("device: ncu %s%s x %s (median of %d %s, %.0f MHz%s)", peakUsed, factor, clockUsed, len(vals), who, clk/1e6, note),
		})
	}
	if _, ok := c.Get(gpu.CeilDRAM, ""); !ok {
		for _, g := range t.GPUs() {
			if g.MemoryBandwidth > 0 {
				c.Items = append(c.Items, gpu.Ceiling{Name: gpu.CeilDRAM, Kind: gpu.KindBandwidth, Value: g.MemoryBandwidth,
					Source: fmt.Sprintf("device: %s %s memory bandwidth (%s)", g.Source, g.File, g.Name)})
				break
			}
		}
	}
	return c
}

// Median is the median of xs (the mean of the middle two for an even
// count; 0 for none); xs is left as it is.
func Median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// pipeUsers are the kernels of ids with a non-zero counter for the pipe
// whose peak metrics are peaks (the counter is the peak's name without
// ".peak_sustained").
func pipeUsers(byKernel metricIndex, ids []int64, peaks []string) []int64 {
	var out []int64
	for _, id := range ids {
		for _, p := range peaks {
			if v, ok := byKernel[id].get(strings.TrimSuffix(p, metric.PeakSuffix)); ok && v > 0 {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// medianClock is the median of a clock metric (Hz) over kernels.
func medianClock(byKernel metricIndex, ids []int64, metric string) float64 {
	var vs []float64
	for _, id := range ids {
		if v, ok := byKernel[id].get(metric); ok && v > 0 {
			vs = append(vs, v)
		}
	}
	return Median(vs)
}
