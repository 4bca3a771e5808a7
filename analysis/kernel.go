package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// byteLevels are the memory levels of a kernel fact, outermost first.
var byteLevels = []struct{ key, ceiling string }{{"dram", gpu.CeilDRAM}, {"l2", gpu.CeilL2}, {"l1", gpu.CeilL1}}

// KernelFacts derives a KernelFact for every ncu kernel-pass row of t,
// measured against the roofs c (gpu.CeilingsFor, or DeviceCeilings).
// Rows come in kernel id (launch) order. It works on any ingested export:
// experiment, variant and shape are "" where the rows have none. Rows of a
// cell whose ncu pass opts.Manifest marks failed or skipped are left out.
func KernelFacts(t *ingest.Tables, c gpu.Ceilings, opts Options) []KernelFact {
	return kernelFacts(t, metricsByKernel(t), c, opts)
}

// kernelFacts is KernelFacts on the metrics of t indexed by kernel.
func kernelFacts(t *ingest.Tables, byKernel metricIndex, c gpu.Ceilings, opts Options) []KernelFact {
	opts = opts.withDefaults()
	roofs := c.Primary()
	mask := MaskOf(opts.Manifest)
	var out []KernelFact
	for _, k := range t.Kernels() {
		if k.Source != ingest.SourceNCU || k.Pass == ingest.PassRange || k.Pass == ingest.PassTimeline {
			continue
		}
		if mask.Masked(k.Key(), rundir.PassNCU) {
			continue
		}
		out = append(out, kernelFact(k, byKernel[k.ID], roofs, opts))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].KernelID < out[j].KernelID })
	return out
}

func kernelFact(k ingest.Kernel, m kernelMetrics, roofs map[string]gpu.Ceiling, opts Options) KernelFact {
	f := KernelFact{
		KernelID: k.ID, Experiment: k.Experiment, Variant: k.Variant, Shape: k.Shape,
		Name: k.Name, ShortName: k.ShortName,
		FLOPs: map[string]float64{}, AI: map[string]float64{}, ByteRate: map[string]float64{},
		PctOfRoof: map[string]float64{}, SOL: map[string]float64{},
	}
	if f.ShortName == "" {
		f.ShortName = k.Name
	}
	f.Launch = launchOf(k)
	var missing missingMetrics
	f.setDuration(k, m, &missing)
	hasTensor, hasSIMT := f.setFLOPs(m, &missing)
	bytes := f.setBytes(m, &missing)
	f.FLOPsKnown = hasTensor || hasSIMT
	f.setRates(bytes, roofs)
	f.setSOL(m)
	if l := limitsOf(m); l.Known() {
		f.Limits = &l
	}
	f.Class = classify(f, opts.BoundPct)
	f.Elementwise = f.TensorFLOPs == 0
	if !hasTensor {
		f.Elementwise = !looksLikeMatmul(f.Name)
	}
	f.warn(k.ID, missing, opts)
	f.dropNonFinite()
	return f
}

// missingMetrics lists the metrics a kernel lacks, each entry naming the
// alternatives that would have served.
type missingMetrics []string

// add records that none of names is there.
func (ms *missingMetrics) add(names ...string) { *ms = append(*ms, strings.Join(names, " or ")) }

// setDuration sets the kernel's duration: the row's, else ncu's metric, else
// cycles / clock; and its SM cycles and clock where ncu has them.
func (f *KernelFact) setDuration(k ingest.Kernel, m kernelMetrics, missing *missingMetrics) {
	f.DurationNs = float64(k.DurationNs)
	f.SMCycles, _ = m.get(metric.SMCycles)
	f.SMClockHz, _ = m.get(metric.SMClock)
	if f.DurationNs <= 0 {
		if v, ok := m.get(metric.Duration); ok {
			f.DurationNs = v
		} else if cyc, ok := m.get(metric.SMCycles); ok {
			if clk, ok := m.get(metric.SMClock); ok && clk > 0 {
				f.DurationNs = cyc / clk * 1e9
			}
		}
	}
	if f.DurationNs <= 0 {
		missing.add(metric.Duration, metric.SMCycles+" with "+metric.SMClock)
	}
}

// setFLOPs sets the kernel's FLOPs by class (tensor and SIMT), their sum and
// the tensor part; classes with zero FLOPs are dropped so that maps list
// only the work the kernel does. It says whether the export has tensor and
// SIMT counters.
func (f *KernelFact) setFLOPs(m kernelMetrics, missing *missingMetrics) (hasTensor, hasSIMT bool) {
	tensor, hasTensor := tensorFLOPs(m)
	for cl, v := range tensor {
		f.FLOPs[cl] = v
		f.TensorFLOPs += v
	}
	for _, p := range []struct{ prefix, class string }{{"f", "fp32"}, {"h", "fp16"}, {"d", "fp64"}} {
		if v, ok := simtFLOPs(m, p.prefix); ok {
			hasSIMT = true
			f.FLOPs[p.class] = v
		}
	}
	if !hasTensor {
		missing.add(metric.TensorAll)
	}
	if _, ok := f.FLOPs["fp32"]; !ok {
		missing.add("sm[sp]__sass_thread_inst_executed_op_{fadd,fmul,ffma}_pred_on.sum")
	}
	for _, v := range f.FLOPs {
		f.TotalFLOPs += v
	}
	for cl, v := range f.FLOPs {
		if v == 0 {
			delete(f.FLOPs, cl)
		}
	}
	return hasTensor, hasSIMT
}

// setBytes sets the kernel's DRAM (read and write, else total), L2 and L1
// (with TMA) bytes, and returns the bytes of each level the export has.
func (f *KernelFact) setBytes(m kernelMetrics, missing *missingMetrics) map[string]float64 {
	r, okR := m.get(metric.DRAMRead)
	w, okW := m.get(metric.DRAMWrite)
	hasDRAM := okR || okW
	if hasDRAM {
		f.DRAMReadBytes, f.DRAMWriteBytes, f.DRAMBytes = r, w, r+w
	} else if tot, ok := m.get(metric.DRAMBytes); ok {
		f.DRAMBytes, hasDRAM = tot, true
	} else {
		missing.add(metric.DRAMRead+" + "+metric.DRAMWrite, metric.DRAMBytes)
	}
	l2, hasL2 := m.get(metric.L2Bytes)
	f.L2Bytes = l2
	if !hasL2 {
		missing.add(metric.L2Bytes)
	}
	l1, hasL1 := m.get(metric.L1Bytes)
	if tma, ok := m.get(metric.L1TMABytes); ok {
		l1 += tma
		hasL1 = true
	}
	f.L1Bytes = l1
	if !hasL1 {
		missing.add(metric.L1Bytes)
	}
	bytes := map[string]float64{}
	if hasDRAM {
		bytes["dram"] = f.DRAMBytes
	}
	if hasL2 {
		bytes["l2"] = f.L2Bytes
	}
	if hasL1 {
		bytes["l1"] = f.L1Bytes
	}
	return bytes
}

// setRates sets the kernel's FLOP rate, its arithmetic intensity and byte
// rate at each level of bytes, and its % of each roof in roofs.
func (f *KernelFact) setRates(bytes map[string]float64, roofs map[string]gpu.Ceiling) {
	secs := f.DurationNs / 1e9
	if secs > 0 && f.FLOPsKnown {
		f.FLOPRate = f.TotalFLOPs / secs
	}
	for _, lv := range byteLevels {
		b, ok := bytes[lv.key]
		if !ok {
			continue
		}
		if f.FLOPsKnown && b > 0 {
			f.AI[lv.key] = f.TotalFLOPs / b
		}
		if secs > 0 {
			f.ByteRate[lv.key] = b / secs
			if roof, ok := roofs[lv.ceiling]; ok && roof.Value > 0 {
				f.PctOfRoof[lv.ceiling] = 100 * f.ByteRate[lv.key] / roof.Value
			}
		}
	}
	if secs > 0 {
		for cl, v := range f.FLOPs {
			if roof, ok := roofs[gpu.CeilingFor(cl)]; ok && roof.Value > 0 {
				f.PctOfRoof[roof.Name] = 100 * v / secs / roof.Value
			}
		}
	}
}

// solMetrics are ncu's own speed-of-light percentages: the first of names
// the export has gives the key's figure.
var solMetrics = []struct {
	key   string
	names []string
}{
	{"dram", []string{metric.SOLDRAM, metric.DetailDRAM}},
	{"memory", []string{metric.SOLMemory, metric.DetailMemory}},
	{"l2", []string{metric.SOLL2, metric.DetailL2}},
	{"l1", []string{metric.SOLL1, metric.DetailL1}},
	{"compute", []string{metric.SOLSM, metric.DetailCompute, metric.SOLSMInst}},
	{"tensor", []string{metric.SOLTensorPipe}},
}

// setSOL sets ncu's own speed-of-light percentages, where the export has
// them.
func (f *KernelFact) setSOL(m kernelMetrics) {
	for _, s := range solMetrics {
		for _, n := range s.names {
			if v, ok := m.get(n); ok {
				f.SOL[s.key] = v
				break
			}
		}
	}
}

// warn adds the kernel's warnings: the metrics it lacks, and a duration
// under opts.LaunchBoundNs.
func (f *KernelFact) warn(id int64, missing missingMetrics, opts Options) {
	if len(missing) > 0 {
		f.Warnings = append(f.Warnings, Warning{Code: WarnMissing, Metric: "kernel",
			Msg: fmt.Sprintf("kernel %d (%s) lacks %s", id, f.ShortName, strings.Join(missing, "; "))})
	}
	if f.DurationNs > 0 && f.DurationNs < opts.LaunchBoundNs {
		f.Warnings = append(f.Warnings, Warning{Code: WarnLaunchBound, Metric: "",
			Msg: fmt.Sprintf("kernel %d (%s) runs %.1f us, under %.0f us: launch overhead weighs on it", id, f.ShortName, f.DurationNs/1e3, opts.LaunchBoundNs/1e3)})
	}
}

// dropNonFinite drops the NaN and infinite figures from the kernel's maps.
func (f *KernelFact) dropNonFinite() {
	for _, mp := range []map[string]float64{f.AI, f.ByteRate, f.PctOfRoof, f.SOL} {
		for key, v := range mp {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				delete(mp, key)
			}
		}
	}
}

// classify names the bound of a kernel: ncu's SOL percentages where present
// (memory = the highest of DRAM, memory, L2, L1; compute = SM or tensor
// pipe), else the % of each roof this package computed. Neither side at
// boundPct or more: latency-bound.
func classify(f KernelFact, boundPct float64) string {
	mem, comp, any := -1.0, -1.0, false
	for _, k := range []string{"dram", "memory", "l2", "l1"} {
		if v, ok := f.SOL[k]; ok {
			mem, any = math.Max(mem, v), true
		}
	}
	for _, k := range []string{"compute", "tensor"} {
		if v, ok := f.SOL[k]; ok {
			comp, any = math.Max(comp, v), true
		}
	}
	if !any {
		for name, v := range f.PctOfRoof {
			switch name {
			case gpu.CeilDRAM, gpu.CeilL2, gpu.CeilL1:
				mem, any = math.Max(mem, v), true
			default:
				comp, any = math.Max(comp, v), true
			}
		}
	}
	if !any {
		return ClassUnknown
	}
	switch {
	case mem < boundPct && comp < boundPct:
		return ClassLatency
	case mem >= comp:
		return ClassMemory
	default:
		return ClassCompute
	}
}

// looksLikeMatmul guesses from a kernel name whether it does tensor work,
// for exports without tensor counters.
func looksLikeMatmul(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"gemm", "matmul", "xmma", "wgmma", "mma", "nvjet", "cutlass", "flash", "attn", "attention", "conv"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// launchOf reads a kernel row's launch configuration; a dimension the row
// leaves null makes its product unknown (0).
func launchOf(k ingest.Kernel) Launch {
	dims := func(v [3]int32, nulls [3]ingest.Nulls) int64 {
		p := int64(1)
		for i, d := range v {
			if k.Null&nulls[i] != 0 || d <= 0 {
				return 0
			}
			p *= int64(d)
		}
		return p
	}
	l := Launch{
		GridBlocks:   dims([3]int32{k.GridX, k.GridY, k.GridZ}, [3]ingest.Nulls{ingest.NullGridX, ingest.NullGridY, ingest.NullGridZ}),
		BlockThreads: dims([3]int32{k.BlockX, k.BlockY, k.BlockZ}, [3]ingest.Nulls{ingest.NullBlockX, ingest.NullBlockY, ingest.NullBlockZ}),
	}
	if k.Null&ingest.NullRegisters == 0 && k.Registers > 0 {
		l.Registers = int64(k.Registers)
	}
	if k.Null&ingest.NullStaticShared == 0 {
		l.SharedBytes += k.StaticSharedBytes
	}
	if k.Null&ingest.NullDynShared == 0 {
		l.SharedBytes += k.DynSharedBytes
	}
	return l
}
