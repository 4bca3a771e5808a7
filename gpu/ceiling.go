package gpu

import "strings"

// Ceiling is one roof of the roofline.
type Ceiling struct {
	Name   string  `json:"name"`   // "DRAM", "L2", "L1", "fp32", "fp64", "tensor bf16", ...
	Kind   string  `json:"kind"`   // "bandwidth" (byte/s) or "compute" (FLOP/s)
	Value  float64 `json:"value"`  // byte/s or FLOP/s
	Source string  `json:"source"` // "device: ncu peak_sustained x clock", "catalog: <doc>", "measured: rooftool ceilings"
}

// Ceilings is the set of roofs for one GPU.
type Ceilings struct {
	GPU   string    `json:"gpu"`
	Items []Ceiling `json:"items"`
	// L2Bytes is the GPU's L2 size (device facts, else catalog); 0 unknown.
	L2Bytes int64 `json:"l2_bytes,omitempty"`
}

// Get returns the first ceiling with the given name whose Source starts with
// sourcePrefix ("" = any), and whether there is one.
func (c Ceilings) Get(name, sourcePrefix string) (Ceiling, bool) {
	for _, it := range c.Items {
		if it.Name == name && strings.HasPrefix(it.Source, sourcePrefix) {
			return it, true
		}
	}
	return Ceiling{}, false
}

// Sources of roofs: how Ceiling.Source begins.
const (
	SourceDevice   = "device:"   // the export's own peaks (ncu peak_sustained x clock, nsys memory bandwidth)
	SourceCatalog  = "catalog:"  // the datasheet figures of the catalog (catalog.yaml)
	SourceMeasured = "measured:" // rooftool ceilings (RUNDIR/ceilings.json)
)

// Precedence orders the sources of roofs that share a name; "" stands for
// any source.
type Precedence []string

var (
	// DeviceCatalogMeasured prefers the roofs the GPU states, its own before
	// its datasheet's, and takes a measured roof only where neither states
	// one: what a kernel's % of roof is taken against (Primary) and the
	// solid roofs of the roofline plot.
	DeviceCatalogMeasured = Precedence{SourceDevice, SourceCatalog, SourceMeasured, ""}
	// DeviceMeasuredCatalog prefers the device's roof, then the measured
	// one, then the datasheet's: the roofs of a report's roofline bound on
	// a variant's run time.
	DeviceMeasuredCatalog = Precedence{SourceDevice, SourceMeasured, SourceCatalog, ""}
)

// Best returns the roof called name that p prefers: among the items of
// that name with a positive value, the first (in Items order) whose Source
// begins with p[0], else with p[1], and so on. ok is false when no item of
// that name has a positive value and a source p lists.
func (c Ceilings) Best(name string, p Precedence) (Ceiling, bool) {
	for _, src := range p {
		for _, it := range c.Items {
			if it.Name == name && it.Value > 0 && strings.HasPrefix(it.Source, src) {
				return it, true
			}
		}
	}
	return Ceiling{}, false
}

// Ceiling names. FLOP classes (analysis.KernelFact.FLOPs) map to them with "_"
// replaced by " " (tensor_bf16 -> "tensor bf16").
const (
	CeilDRAM = "DRAM"
	CeilL2   = "L2"
	CeilL1   = "L1"
	CeilFP64 = "fp64"
	CeilFP32 = "fp32"
	CeilFP16 = "fp16"
)

// Kinds of ceilings.
const (
	KindBandwidth = "bandwidth"
	KindCompute   = "compute"
)

// CeilingFor returns the ceiling name of a FLOP class ("tensor_bf16" ->
// "tensor bf16", "fp32" -> "fp32").
func CeilingFor(class string) string { return strings.ReplaceAll(class, "_", " ") }

// Primary returns the roof analysis measures a kernel against for each
// ceiling name: Best under DeviceCatalogMeasured. A name without a roof of
// positive value has no entry.
func (c Ceilings) Primary() map[string]Ceiling {
	out := map[string]Ceiling{}
	for _, it := range c.Items {
		if _, done := out[it.Name]; done {
			continue
		}
		if b, ok := c.Best(it.Name, DeviceCatalogMeasured); ok {
			out[it.Name] = b
		}
	}
	return out
}
