package roofline

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
)

// catalogCeilings lists the theoretical roofs of a catalog entry, in the
// order the roofline draws them.
func catalogCeilings(g GPUSpec) []analysis.Ceiling {
	src := "catalog: " + g.Name + " (" + g.Source + ")"
	out := []analysis.Ceiling{{Name: analysis.CeilDRAM, Kind: analysis.KindBandwidth, Value: g.DRAMBW, Source: src}}
	for _, name := range []string{"fp64", "fp32", "tensor fp64", "tensor tf32", "tensor bf16", "tensor fp16", "tensor fp8", "tensor int8"} {
		if v := g.Peak(name); v > 0 {
			out = append(out, analysis.Ceiling{Name: name, Kind: analysis.KindCompute, Value: v, Source: src})
		}
	}
	return out
}

func ceilingsFor(t *ingest.Tables, gpuName string, measured *Measured) analysis.Ceilings {
	var dev analysis.Ceilings
	if t != nil {
		dev = analysis.DeviceCeilings(t)
	}
	out := analysis.Ceilings{GPU: gpuName, L2Bytes: dev.L2Bytes}
	if out.GPU == "" {
		out.GPU = dev.GPU
	}
	if out.GPU == "" && measured != nil {
		out.GPU = measured.Device
	}
	spec, ok := lookup(out.GPU)
	if !ok && dev.GPU != "" {
		spec, ok = lookup(dev.GPU)
	}
	if ok && gpuName != "" && normalizeGPUName(gpuName) == normalizeGPUName(spec.Key) {
		out.GPU = spec.Name // a catalog key names the GPU by its catalog name
	}
	// Device roofs first; the catalog fills the roofs the device does not state.
	out.Items = append(out.Items, dev.Items...)
	if ok {
		if out.L2Bytes == 0 {
			out.L2Bytes = spec.L2Bytes
		}
		for _, c := range catalogCeilings(spec) {
			if _, have := out.Get(c.Name, ""); !have {
				out.Items = append(out.Items, c)
			}
		}
	}
	if measured != nil && measured.Skipped == "" {
		if out.L2Bytes == 0 {
			out.L2Bytes = measured.L2Bytes
		}
		for _, m := range measured.Items {
			src := "measured: rooftool ceilings"
			if m.Method != "" {
				src += " (" + m.Method + ")"
			}
			if measured.Device != "" && !strings.EqualFold(measured.Device, out.GPU) {
				src += fmt.Sprintf(" on %s", measured.Device)
			}
			out.Items = append(out.Items, analysis.Ceiling{Name: m.Name, Kind: m.Kind, Value: m.Value, Source: src})
		}
	}
	return out
}
