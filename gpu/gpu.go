// Package gpu is the ground floor of rooftool, below ingest: what is known
// about a GPU before any export of it is read. It holds the embedded catalog
// of datasheet figures with their sources (catalog.yaml), the matching of
// device names as nvidia-smi, ncu and nsys print them to catalog entries and
// --gpu spellings (Lookup, MatchGPU, ShortName; Find answers a name the
// catalog lacks with the nearest entries), the roofs of the roofline
// model (Ceiling, Ceilings) with the order in which their sources take
// precedence, the empirical ceilings `rooftool ceilings` measures
// (RUNDIR/ceilings.json), and CeilingsFor, which merges the roofs an export
// states (analysis.DeviceCeilings) with the catalog's and the measured ones.
// It writes the catalog as `rooftool gpus` shows it (Row, WriteTable,
// WriteDetail).
//
// It imports only leaf packages of rooftool (internal/tableout): ingest,
// analysis, the profile runner (launch), roofline, reports and cmd import
// it.
package gpu

// Spec is one catalog entry: datasheet figures of a GPU and where each
// comes from. Peaks are dense (no sparsity), in FLOP/s (int8 in OP/s);
// zero means the datasheet gives none (e.g. no fp8 before Hopper/Ada).
type Spec struct {
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
