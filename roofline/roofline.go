// Package roofline is the stage after analysis: it knows the GPUs (an
// embedded catalog of datasheet figures with their sources), picks the roofs
// of a run (the device's own ncu peak_sustained metrics, else the catalog,
// plus empirical ceilings measured by `rooftool ceilings`) and draws the
// hierarchical roofline and sweep charts as PNG and SVG.
//
// This file is the API the reports stage codes against.
package roofline

import (
	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/kernels"
)

// GPUSpec is one catalog entry: datasheet figures of a GPU and where each
// comes from. Peaks are dense (no sparsity), in FLOP/s (int8 in OP/s);
// zero means the datasheet gives none (e.g. no fp8 before Hopper/Ada).
type GPUSpec struct {
	Key      string   `json:"key" yaml:"key"`         // short id, e.g. "h100-sxm"
	Name     string   `json:"name" yaml:"name"`       // marketing name, e.g. "NVIDIA H100 SXM5 80GB"
	Aliases  []string `json:"aliases" yaml:"aliases"` // names as nvidia-smi, ncu and nsys print them
	Arch     string   `json:"arch" yaml:"arch"`       // Volta, Turing, Ampere, Ada, Hopper, Blackwell
	CC       string   `json:"cc" yaml:"cc"`           // compute capability, e.g. "9.0"
	SMs      int      `json:"sms" yaml:"sms"`         // streaming multiprocessors
	BoostMHz float64  `json:"boost_mhz" yaml:"boost_mhz"`
	MemoryGB float64  `json:"memory_gb" yaml:"memory_gb"`
	DRAMBW   float64  `json:"dram_bw" yaml:"dram_bw"`   // byte/s
	L2Bytes  int64    `json:"l2_bytes" yaml:"l2_bytes"` // byte
	FP64     float64  `json:"fp64" yaml:"fp64"`         // FLOP/s, non-tensor
	FP64TC   float64  `json:"fp64_tensor" yaml:"fp64_tensor"`
	FP32     float64  `json:"fp32" yaml:"fp32"`
	TF32     float64  `json:"tf32" yaml:"tf32"`     // tensor, dense
	BF16     float64  `json:"bf16" yaml:"bf16"`     // tensor, dense (= fp16 tensor)
	FP16     float64  `json:"fp16" yaml:"fp16"`     // tensor, dense
	FP8      float64  `json:"fp8" yaml:"fp8"`       // tensor, dense
	INT8     float64  `json:"int8" yaml:"int8"`     // tensor, dense, OP/s
	Source   string   `json:"source" yaml:"source"` // document name and URL
	// Sources names the source of single figures that come from elsewhere
	// than Source, keyed by field (e.g. "l2_mib", "sms").
	Sources map[string]string `json:"sources,omitempty" yaml:"sources"`
	Notes   string            `json:"notes,omitempty" yaml:"notes"`
}

// Measured is RUNDIR/ceilings.json as `rooftool ceilings` (kernels/ceilings.py) writes it.
type Measured struct {
	Version int                `json:"rooftool_ceilings"`
	Device  string             `json:"device"`
	UUID    string             `json:"uuid,omitempty"`  // the GPU measured (absent in older files)
	Taken   string             `json:"taken,omitempty"` // when, RFC 3339 UTC (absent in older files)
	Torch   string             `json:"torch,omitempty"`
	SMCount int                `json:"sm_count,omitempty"`
	L2Bytes int64              `json:"l2_bytes,omitempty"`
	CC      string             `json:"cc,omitempty"`
	Clocks  map[string]float64 `json:"clocks,omitempty"` // MHz: sm_mhz, mem_mhz, max_sm_mhz, max_mem_mhz
	Items   []MeasuredCeiling  `json:"items"`
	Errors  map[string]string  `json:"errors,omitempty"`  // ceilings that failed to measure, and why
	Skipped string             `json:"skipped,omitempty"` // why nothing was measured (no GPU, no torch)
}

// MeasuredCeiling is one empirical ceiling.
type MeasuredCeiling struct {
	Name   string  `json:"name"`   // "DRAM", "L2", "fp32", "tensor bf16", ...
	Kind   string  `json:"kind"`   // "bandwidth" or "compute"
	Value  float64 `json:"value"`  // best of the repetitions: byte/s or FLOP/s
	Median float64 `json:"median"` // median of the repetitions
	Method string  `json:"method"` // what was run, e.g. "copy 2 GiB", "matmul 8192^3 bf16"
	Reps   int     `json:"reps"`
}

// Catalog returns every GPU of the embedded catalog, in catalog order.
func Catalog() []GPUSpec { return catalogSpecs() }

// Lookup finds the catalog entry for a device name as nvidia-smi, ncu or nsys
// print it ("NVIDIA H100 80GB HBM3", "Tesla T4", "NVIDIA A100-SXM4-40GB"), or
// a catalog key ("h100-sxm"). Matching ignores case, spaces, dashes and a
// leading "NVIDIA"/"Tesla".
func Lookup(name string) (GPUSpec, bool) { return lookup(name) }

// MatchGPU reports whether a --gpu spelling names the device called
// deviceName (as nvidia-smi, ncu or nsys print it). The catalog is the
// vocabulary: a spelling Lookup knows (a key, name or alias of
// catalog.yaml) matches exactly the devices Lookup maps to the same entry,
// so "h100" (an alias of h100-sxm) matches "NVIDIA H100 80GB HBM3" but not
// "NVIDIA H100 PCIe" (h100-pcie) nor "NVIDIA H200". A device the catalog
// lacks matches only a spelling the catalog lacks too whose every word is a
// word of its name ("gh200" and "NVIDIA GH200 480GB"). An empty flag
// matches any device. rooftool profile checks its --gpu with it.
func MatchGPU(flag, deviceName string) bool { return matchGPU(flag, deviceName) }

// ShortName names a device (or a --gpu spelling) for a run directory
// (runs/<date>-<short>-<time>): its catalog key ("h100-sxm" for "NVIDIA H100
// 80GB HBM3", "h200" for "NVIDIA H200"), or, for a name the catalog lacks,
// its words lower-cased and joined by "-" without the vendor words
// ("gh200-480gb"); "" when the name has no such word. MatchGPU(ShortName(d), d)
// holds for every such d.
func ShortName(deviceName string) string { return shortName(deviceName) }

// CeilingsFor returns the roofs of a run: from the device itself where the
// ncu export has *.peak_sustained metrics and clocks (Source "device: ..."),
// else from the catalog entry of gpuName (or of the name in the gpus table
// when gpuName is ""), plus every measured ceiling (Source "measured: ...").
// measured may be nil.
func CeilingsFor(t *ingest.Tables, gpuName string, measured *Measured) analysis.Ceilings {
	var dev analysis.Ceilings
	if t != nil {
		dev = analysis.DeviceCeilings(t)
	}
	return ceilingsFor(dev, gpuName, measured)
}

// CeilingsFrom is CeilingsFor with the export's own roofs given (dev:
// analysis.DeviceCeilings, or DeviceCeilingsIndexed over a metric index).
func CeilingsFrom(dev analysis.Ceilings, gpuName string, measured *Measured) analysis.Ceilings {
	return ceilingsFor(dev, gpuName, measured)
}

// ReadMeasured reads RUNDIR/ceilings.json.
func ReadMeasured(path string) (*Measured, error) { return readMeasured(path) }

// FileName is the base name (without extension) of a plot:
// "<experiment>-<shape-or-sweep>-<kind>" ("<experiment>-<kind>" when
// shapeOrSweep is ""), kind "roofline", "sweep" or "kernels",
// with characters other than letters, digits and "=,._-" replaced by "_".
func FileName(experiment, shapeOrSweep, kind string) string {
	return fileName(experiment, shapeOrSweep, kind)
}

// WriteRoofline draws the hierarchical roofline of one (experiment, shape)
// of run and writes dir/<FileName(experiment, shape, "roofline")>.png and
// .svg. It returns the paths written and the warnings (e.g. points left off
// the log axes).
func WriteRoofline(dir string, run *analysis.Run, experiment, shape string) (files []string, warnings []analysis.Warning, err error) {
	return writeRoofline(dir, run, experiment, shape)
}

// WriteSweep draws the sweep charts of one experiment: speedup of every
// candidate against the baseline over the sweep's shapes with 95% interval
// bars (dir/<FileName(experiment, sweep.Name, "sweep")>.png/.svg), and a
// stacked bar of GPU time per kernel for each variant at each shape
// (dir/<FileName(experiment, sweep.Name, "kernels")>.png/.svg). A chart
// without data is left out with a warning; the error wraps ErrNoData only
// when neither has any.
func WriteSweep(dir string, run *analysis.Run, experiment string, sweep kernels.Sweep) (files []string, warnings []analysis.Warning, err error) {
	return writeSweep(dir, run, experiment, sweep)
}
