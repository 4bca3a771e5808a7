package gpu

import (
	_ "embed"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"

	"go.yaml.in/yaml/v3"
)

//go:embed catalog.yaml
var catalogYAML []byte

type catalogEntry struct {
	Key      string             `yaml:"key"`
	Name     string             `yaml:"name"`
	Aliases  []string           `yaml:"aliases"`
	Arch     string             `yaml:"arch"`
	CC       string             `yaml:"cc"`
	SMs      int                `yaml:"sms"`
	BoostMHz float64            `yaml:"boost_mhz"`
	MemoryGB float64            `yaml:"memory_gb"`
	DRAMGBs  float64            `yaml:"dram_gbs"`
	L2MiB    float64            `yaml:"l2_mib"`
	TFLOPS   map[string]float64 `yaml:"tflops"`
	Source   string             `yaml:"source"`
	Sources  map[string]string  `yaml:"sources"`
	Notes    string             `yaml:"notes"`
}

var tflopsKeys = []string{"fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"}

var (
	catOnce  sync.Once
	catSpecs []Spec
	catIndex map[string]int // normalised alias or key -> index
	catErr   error
)

func loadCatalog() {
	specs, err := parseCatalog(catalogYAML)
	if err != nil {
		catErr = fmt.Errorf("gpu/catalog.yaml: %w", err)
		return
	}
	catSpecs = specs
	catIndex = map[string]int{}
	for i, s := range specs {
		for _, a := range append([]string{s.Key, s.Name}, s.Aliases...) {
			n := normalizeGPUName(a)
			if j, dup := catIndex[n]; dup && j != i {
				catErr = fmt.Errorf("gpu/catalog.yaml: name %q of %s also names %s", a, s.Key, specs[j].Key)
				return
			}
			catIndex[n] = i
		}
	}
}

// parseCatalog decodes and checks catalog YAML.
func parseCatalog(data []byte) ([]Spec, error) {
	var entries []catalogEntry
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&entries); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]Spec, 0, len(entries))
	for i, e := range entries {
		if e.Key == "" || e.Name == "" {
			return nil, fmt.Errorf("entry %d: key and name are required", i)
		}
		if seen[e.Key] {
			return nil, fmt.Errorf("key %q listed twice", e.Key)
		}
		seen[e.Key] = true
		if e.SMs <= 0 || e.BoostMHz < 0 || e.DRAMGBs <= 0 || e.L2MiB <= 0 || e.Source == "" {
			return nil, fmt.Errorf("%s: sms, dram_gbs, l2_mib and source are required (boost_mhz 0 = not stated)", e.Key)
		}
		for k := range e.TFLOPS {
			if !contains(tflopsKeys, k) {
				return nil, fmt.Errorf("%s: tflops.%s: unknown precision (want one of %v)", e.Key, k, tflopsKeys)
			}
		}
		for _, k := range tflopsKeys {
			if _, ok := e.TFLOPS[k]; !ok {
				return nil, fmt.Errorf("%s: tflops.%s missing (0 = no such path)", e.Key, k)
			}
		}
		if e.TFLOPS["fp32"] <= 0 {
			return nil, fmt.Errorf("%s: tflops.fp32 must be positive", e.Key)
		}
		t := func(k string) float64 { return e.TFLOPS[k] * 1e12 }
		out = append(out, Spec{
			Key: e.Key, Name: e.Name, Aliases: e.Aliases, Arch: e.Arch, CC: e.CC,
			SMs: e.SMs, BoostMHz: e.BoostMHz, MemoryGB: e.MemoryGB,
			DRAMBW:  e.DRAMGBs * 1e9,
			L2Bytes: int64(math.Round(e.L2MiB * (1 << 20))),
			FP64:    t("fp64"), FP64TC: t("fp64_tensor"), FP32: t("fp32"), TF32: t("tf32"),
			BF16: t("bf16"), FP16: t("fp16"), FP8: t("fp8"), INT8: t("int8"),
			Source: e.Source, Sources: e.Sources, Notes: e.Notes,
		})
	}
	return out, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Catalog returns every GPU of the embedded catalog, in catalog order.
func Catalog() []Spec {
	catOnce.Do(loadCatalog)
	if catErr != nil {
		panic(catErr) // the embedded catalog is checked by tests
	}
	out := make([]Spec, len(catSpecs))
	copy(out, catSpecs)
	return out
}

// normalizeGPUName lower-cases a device name and drops the vendor and family
// words (NVIDIA, Tesla, GeForce) and everything but letters and digits:
// "NVIDIA GeForce RTX 4060" and "rtx-4060" both become "rtx4060".
func normalizeGPUName(s string) string { return strings.Join(gpuWords(s), "") }

// gpuWords splits a device name into lower-case runs of letters and digits,
// without the vendor and family words (NVIDIA, Tesla, GeForce):
// "NVIDIA GH200 480GB" gives gh200, 480gb.
func gpuWords(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		switch f {
		case "nvidia", "tesla", "geforce":
			continue
		}
		out = append(out, f)
	}
	return out
}

// MatchGPU reports whether a --gpu spelling names the device called
// deviceName (as nvidia-smi, ncu or nsys print it). The catalog is the
// vocabulary: a spelling Lookup knows (a key, name or alias of
// catalog.yaml) matches exactly the devices Lookup maps to the same entry,
// so "h100" (an alias of h100-sxm) matches "NVIDIA H100 80GB HBM3" but not
// "NVIDIA H100 PCIe" (h100-pcie) nor "NVIDIA H200". A device the catalog
// lacks matches only a spelling the catalog lacks too whose every word is a
// word of its name ("gh200" and "NVIDIA GH200 480GB"). An empty flag
// matches any device. rooftool profile checks its --gpu with it.
func MatchGPU(flag, deviceName string) bool {
	if strings.TrimSpace(flag) == "" {
		return true
	}
	want, wantKnown := Lookup(flag)
	have, haveKnown := Lookup(deviceName)
	switch {
	case wantKnown && haveKnown:
		return want.Key == have.Key
	case wantKnown || haveKnown:
		return false // a catalog name never names a GPU outside the catalog, nor the reverse
	}
	// Neither is in the catalog: every word of the flag must be a word of
	// the device's name.
	fw, dw := gpuWords(flag), gpuWords(deviceName)
	if len(fw) == 0 {
		return false
	}
	for _, w := range fw {
		if !contains(dw, w) {
			return false
		}
	}
	return true
}

// ShortName names a device (or a --gpu spelling) for a run directory
// (runs/<date>-<short>-<time>): its catalog key ("h100-sxm" for "NVIDIA H100
// 80GB HBM3", "h200" for "NVIDIA H200"), or, for a name the catalog lacks,
// its words lower-cased and joined by "-" without the vendor words
// ("gh200-480gb"); "" when the name has no such word. MatchGPU(ShortName(d), d)
// holds for every such d.
func ShortName(deviceName string) string {
	if g, ok := Lookup(deviceName); ok {
		return g.Key
	}
	return strings.Join(gpuWords(deviceName), "-")
}

// Lookup finds the catalog entry for a device name as nvidia-smi, ncu or nsys
// print it ("NVIDIA H100 80GB HBM3", "Tesla T4", "NVIDIA A100-SXM4-40GB"), or
// a catalog key ("h100-sxm"). Matching ignores case, spaces, dashes and a
// leading "NVIDIA"/"Tesla".
func Lookup(name string) (Spec, bool) {
	catOnce.Do(loadCatalog)
	if catErr != nil {
		panic(catErr)
	}
	n := normalizeGPUName(name)
	if n == "" {
		return Spec{}, false
	}
	if i, ok := catIndex[n]; ok {
		return catSpecs[i], true
	}
	return Spec{}, false
}

// Peak returns the spec's peak for a ceiling name as analysis uses them
// ("fp64", "fp32", "tensor tf32", "tensor bf16", "tensor fp16", "tensor fp8",
// "tensor int8", "tensor fp64"), or 0.
func (g Spec) Peak(name string) float64 {
	switch name {
	case "fp64":
		return g.FP64
	case "fp32":
		return g.FP32
	case "tensor fp64":
		return g.FP64TC
	case "tensor tf32":
		return g.TF32
	case "tensor bf16":
		return g.BF16
	case "tensor fp16":
		return g.FP16
	case "tensor fp8":
		return g.FP8
	case "tensor int8":
		return g.INT8
	}
	return 0
}
