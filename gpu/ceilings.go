package gpu

import (
	"fmt"
	"strings"
)

// catalogCeilings lists the theoretical roofs of a catalog entry, in the
// order the roofline draws them.
func catalogCeilings(g Spec) []Ceiling {
	src := "catalog: " + g.Name + " (" + g.Source + ")"
	out := []Ceiling{{Name: CeilDRAM, Kind: KindBandwidth, Value: g.DRAMBW, Source: src}}
	for _, name := range []string{"fp64", "fp32", "tensor fp64", "tensor tf32", "tensor bf16", "tensor fp16", "tensor fp8", "tensor int8"} {
		if v := g.Peak(name); v > 0 {
			out = append(out, Ceiling{Name: name, Kind: KindCompute, Value: v, Source: src})
		}
	}
	return out
}

// CeilingsFor returns the roofs of a run: the ones the export itself states
// (dev: analysis.DeviceCeilings, from ncu *.peak_sustained metrics and
// clocks, Source "device: ..."), then those of the catalog entry of gpuName
// (or of dev.GPU when gpuName is "") that dev lacks, plus every measured
// ceiling (Source "measured: ..."). dev may be empty and measured nil.
func CeilingsFor(dev Ceilings, gpuName string, measured *Measured) Ceilings {
	out := Ceilings{GPU: gpuName, L2Bytes: dev.L2Bytes}
	if out.GPU == "" {
		out.GPU = dev.GPU
	}
	if out.GPU == "" && measured != nil {
		out.GPU = measured.Device
	}
	spec, ok := Lookup(out.GPU)
	if !ok && dev.GPU != "" {
		spec, ok = Lookup(dev.GPU)
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
		// The export states the bf16 tensor peak at the clocks it ran but
		// not the fp16 one; where the datasheet gives both the same rate,
		// the device's bf16 figure is the fp16 roof at those clocks too.
		if bf, have := out.Get("tensor bf16", "device:"); have && spec.BF16 > 0 && spec.BF16 == spec.FP16 {
			if _, haveFP16 := out.Get("tensor fp16", ""); !haveFP16 {
				out.Items = append(out.Items, Ceiling{Name: "tensor fp16", Kind: KindCompute, Value: bf.Value,
					Source: "device: as tensor bf16 (" + spec.Name + " datasheet: equal bf16 and fp16 rates)"})
			}
		}
		for _, c := range catalogCeilings(spec) {
			if d, have := out.Get(c.Name, ""); !have {
				out.Items = append(out.Items, c)
			} else if d.Kind == KindCompute && strings.HasPrefix(d.Source, "device:") && d.Value > c.Value*1.01 {
				// The device's roof is peak x the clock its kernels held,
				// which can exceed the datasheet's boost clock.
				setSource(&out, d, fmt.Sprintf("%s; %.1f%% above the datasheet's %s (%s), which assumes a lower boost clock than the kernels held",
					d.Source, 100*(d.Value/c.Value-1), siFLOPs(c.Value), strings.TrimPrefix(c.Source, "catalog: ")))
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
			src += "; " + measured.Provenance()
			out.Items = append(out.Items, Ceiling{Name: m.Name, Kind: m.Kind, Value: m.Value, Source: src})
		}
	}
	return out
}

// Provenance names the GPU and time a ceilings file was measured on.
func (m *Measured) Provenance() string {
	switch {
	case m.UUID != "" && m.Taken != "":
		return fmt.Sprintf("GPU %s, %s", m.UUID, m.Taken)
	case m.UUID != "":
		return "GPU " + m.UUID + ", date not recorded"
	case m.Taken != "":
		return "GPU UUID not recorded, " + m.Taken
	}
	return "GPU UUID and date not recorded"
}

func siFLOPs(v float64) string { return fmt.Sprintf("%.1f TFLOP/s", v/1e12) }

// setSource replaces the Source of the item of cs equal to c.
func setSource(cs *Ceilings, c Ceiling, src string) {
	for i := range cs.Items {
		if cs.Items[i] == c {
			cs.Items[i].Source = src
			return
		}
	}
}
