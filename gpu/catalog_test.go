package gpu

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

func TestCatalogLoads(t *testing.T) {
	specs := Catalog()
	want := []string{"h100-sxm", "h100-pcie", "h200", "a100-sxm-40", "a100-sxm-80", "a100-pcie-40", "b200", "l40s", "l4", "t4", "v100-sxm2", "a40", "rtx-a4500", "rtx-2070-super", "rtx-4060", "rtx-5090"}
	have := map[string]Spec{}
	for _, s := range specs {
		have[s.Key] = s
	}
	for _, k := range want {
		s, ok := have[k]
		if !ok {
			t.Errorf("catalog lacks %s", k)
			continue
		}
		if s.Source == "" || s.DRAMBW <= 0 || s.FP32 <= 0 || s.L2Bytes <= 0 || s.SMs <= 0 || s.BoostMHz <= 0 {
			t.Errorf("%s: incomplete: %+v", k, s)
		}
	}
}

// A datasheet figure: what an NVIDIA document prints for one GPU. unit
// scales the printed number to base units (1e12 for TFLOP/s and TB/s, 1e9
// for GB/s and GB). sparse marks a tensor figure printed only with 2:4
// sparsity (an asterisk on the datasheet): the catalog holds dense figures,
// so twice the catalog's value must round to the printed whole number.
type sheetFigure struct {
	key, field string
	printed    float64
	unit       float64
	sparse     bool
}

// specField reads one figure of a catalog entry, in base units.
func specField(s Spec, field string) (float64, bool) {
	switch field {
	case "dram":
		return s.DRAMBW, true
	case "memory":
		return s.MemoryGB * 1e9, true
	case "sms":
		return float64(s.SMs), true
	case "l2":
		return float64(s.L2Bytes), true
	case "fp64":
		return s.FP64, true
	case "fp64_tensor":
		return s.FP64TC, true
	case "fp32":
		return s.FP32, true
	case "tf32":
		return s.TF32, true
	case "bf16":
		return s.BF16, true
	case "fp16":
		return s.FP16, true
	case "fp8":
		return s.FP8, true
	case "int8":
		return s.INT8, true
	}
	return 0, false
}

// The catalog against the figures NVIDIA's own documents print. These are
// written here from the documents, not copied from catalog.yaml: a catalog
// edit that drifts from a datasheet fails this test.
func TestCatalogMatchesDatasheets(t *testing.T) {
	const (
		T   = 1e12 // TFLOP/s, TOP/s, TB/s
		G   = 1e9  // GB/s, GB
		one = 1
		MiB = 1 << 20 // NVIDIA's "50 MB" of L2 is what the device reports as 52428800 bytes
	)
	var figs []sheetFigure
	add := func(key string, unit float64, sparse bool, kv ...any) {
		for i := 0; i < len(kv); i += 2 {
			figs = append(figs, sheetFigure{key: key, field: kv[i].(string), printed: kv[i+1].(float64), unit: unit, sparse: sparse})
		}
	}
	// NVIDIA H100 Tensor Core GPU datasheet, H100 SXM and H100 PCIe columns:
	// FP64 34 / 26, FP64 Tensor Core 67 / 51, FP32 67 / 51 teraFLOPS;
	// TF32 989* / 756*, BF16 and FP16 1,979* / 1,513*, FP8 and INT8
	// 3,958* / 3,026* (with sparsity); GPU memory 80 GB, bandwidth 3.35 TB/s
	// (SXM) and 2 TB/s (PCIe). H100 NVL column: BF16 1,671*, FP8 3,341*,
	// 94 GB at 3.9 TB/s.
	add("h100-sxm", T, false, "fp64", 34.0, "fp64_tensor", 67.0, "fp32", 67.0, "dram", 3.35)
	add("h100-sxm", T, true, "tf32", 989.0, "bf16", 1979.0, "fp16", 1979.0, "fp8", 3958.0, "int8", 3958.0)
	add("h100-sxm", G, false, "memory", 80.0)
	add("h100-pcie", T, false, "fp64", 26.0, "fp64_tensor", 51.0, "fp32", 51.0, "dram", 2.0)
	add("h100-pcie", T, true, "tf32", 756.0, "bf16", 1513.0, "fp16", 1513.0, "fp8", 3026.0, "int8", 3026.0)
	add("h100-pcie", G, false, "memory", 80.0)
	add("h100-nvl", T, false, "dram", 3.9)
	add("h100-nvl", T, true, "bf16", 1671.0, "fp8", 3341.0)
	add("h100-nvl", G, false, "memory", 94.0)
	// NVIDIA H100 Tensor Core GPU Architecture whitepaper: 132 SMs (H100
	// SXM5), 114 SMs (H100 PCIe), 50 MB L2 cache. (It prints the SXM5 dense
	// BF16 peak as 989.4 TFLOP/s, 1978.9 with sparsity.)
	add("h100-sxm", one, false, "sms", 132.0)
	add("h100-pcie", one, false, "sms", 114.0)
	add("h100-sxm", MiB, false, "l2", 50.0)
	add("h100-pcie", MiB, false, "l2", 50.0)
	// NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: FP64 34, FP64
	// Tensor Core 67, FP32 67 teraFLOPS; BF16 and FP16 1,979*, FP8 3,958*;
	// GPU memory 141 GB, bandwidth 4.8 TB/s. H200 NVL column: BF16 1,671*,
	// 141 GB at 4.8 TB/s.
	add("h200", T, false, "fp64", 34.0, "fp64_tensor", 67.0, "fp32", 67.0, "dram", 4.8)
	add("h200", T, true, "tf32", 989.0, "bf16", 1979.0, "fp16", 1979.0, "fp8", 3958.0, "int8", 3958.0)
	add("h200", G, false, "memory", 141.0)
	add("h200-nvl", T, false, "dram", 4.8)
	add("h200-nvl", T, true, "bf16", 1671.0)
	add("h200-nvl", G, false, "memory", 141.0)
	// NVIDIA A100 Tensor Core GPU datasheet: FP64 9.7, FP64 Tensor Core
	// 19.5, FP32 19.5, TF32 156, BF16 and FP16 312, INT8 624 (dense; twice
	// that with sparsity); bandwidth 1,555 GB/s (40GB), 2,039 GB/s (80GB
	// SXM), 1,935 GB/s (80GB PCIe). NVIDIA A100 Tensor Core GPU Architecture
	// whitepaper: 108 SMs, 40 MB L2.
	for _, k := range []string{"a100-sxm-40", "a100-sxm-80", "a100-pcie-40", "a100-pcie-80"} {
		add(k, T, false, "fp64", 9.7, "fp64_tensor", 19.5, "fp32", 19.5, "tf32", 156.0, "bf16", 312.0, "fp16", 312.0, "int8", 624.0)
		add(k, one, false, "sms", 108.0)
		add(k, MiB, false, "l2", 40.0)
	}
	add("a100-sxm-40", G, false, "dram", 1555.0, "memory", 40.0)
	add("a100-pcie-40", G, false, "dram", 1555.0, "memory", 40.0)
	add("a100-sxm-80", G, false, "dram", 2039.0, "memory", 80.0)
	add("a100-pcie-80", G, false, "dram", 1935.0, "memory", 80.0)
	// NVIDIA DGX B200 datasheet: 8 Blackwell GPUs with 1,440 GB of GPU
	// memory and 64 TB/s of HBM3e bandwidth in all, i.e. 180 GB and 8 TB/s
	// per GPU.
	add("b200", T, false, "dram", 64.0/8)
	add("b200", G, false, "memory", 1440.0/8)
	// NVIDIA L40S datasheet: FP32 91.6, TF32 183, BF16 and FP16 362.05, FP8
	// and INT8 733 (dense; the sparse figures beside them are twice these);
	// 48 GB GDDR6 at 864 GB/s.
	add("l40s", T, false, "fp32", 91.6, "tf32", 183.0, "bf16", 362.05, "fp16", 362.05, "fp8", 733.0, "int8", 733.0)
	add("l40s", G, false, "dram", 864.0, "memory", 48.0)
	// NVIDIA L4 Tensor Core GPU datasheet: FP32 30.3; TF32 120*, BF16 and
	// FP16 242*, FP8 and INT8 485* (with sparsity); 24 GB at 300 GB/s.
	add("l4", T, false, "fp32", 30.3)
	add("l4", T, true, "tf32", 120.0, "bf16", 242.0, "fp16", 242.0, "fp8", 485.0, "int8", 485.0)
	add("l4", G, false, "dram", 300.0, "memory", 24.0)
	// NVIDIA T4 Tensor Core GPU datasheet: FP32 8.1 TFLOPS, mixed precision
	// (FP16/FP32) 65 TFLOPS, INT8 130 TOPS; 16 GB GDDR6 at 320 GB/s; 2,560
	// CUDA cores, i.e. 40 Turing SMs of 64.
	add("t4", T, false, "fp32", 8.1, "fp16", 65.0, "int8", 130.0)
	add("t4", G, false, "dram", 320.0, "memory", 16.0)
	add("t4", one, false, "sms", 2560.0/64)
	// NVIDIA Tesla V100 GPU accelerator datasheet, SXM2 and PCIe columns:
	// double precision 7.8 / 7, single precision 15.7 / 14, tensor 125 / 112
	// TFLOPS; 900 GB/s. NVIDIA Tesla V100 GPU Architecture whitepaper: 80
	// SMs, 6 MB L2.
	add("v100-sxm2", T, false, "fp64", 7.8, "fp32", 15.7, "fp16", 125.0)
	add("v100-pcie", T, false, "fp64", 7.0, "fp32", 14.0, "fp16", 112.0)
	for _, k := range []string{"v100-sxm2", "v100-pcie"} {
		add(k, G, false, "dram", 900.0)
		add(k, one, false, "sms", 80.0)
		add(k, MiB, false, "l2", 6.0)
	}

	for _, f := range figs {
		s, ok := Lookup(f.key)
		if !ok || s.Key != f.key {
			t.Errorf("catalog lacks %s", f.key)
			continue
		}
		got, ok := specField(s, f.field)
		if !ok {
			t.Fatalf("test names unknown field %q", f.field)
		}
		if f.sparse {
			// The datasheet prints whole TFLOP/s with sparsity.
			if v := 2 * got / f.unit; math.Abs(v-f.printed) > 0.5 {
				t.Errorf("%s %s: catalog %g dense, twice that %g; datasheet prints %g with sparsity", f.key, f.field, got/f.unit, v, f.printed)
			}
			continue
		}
		want := f.printed * f.unit
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s %s: catalog %g, datasheet %g", f.key, f.field, got/f.unit, f.printed)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, c := range []struct{ name, key string }{
		// nvidia-smi / ncu / nsys spellings
		{"NVIDIA H100 80GB HBM3", "h100-sxm"},
		{"NVIDIA H100 PCIe", "h100-pcie"},
		{"NVIDIA H100 NVL", "h100-nvl"},
		{"NVIDIA H200", "h200"},
		{"NVIDIA H200 NVL", "h200-nvl"},
		{"NVIDIA A100-SXM4-40GB", "a100-sxm-40"},
		{"NVIDIA A100-SXM4-80GB", "a100-sxm-80"},
		{"NVIDIA A100-PCIE-40GB", "a100-pcie-40"},
		{"NVIDIA A100 80GB PCIe", "a100-pcie-80"},
		{"NVIDIA B200", "b200"},
		{"NVIDIA L40S", "l40s"},
		{"NVIDIA L4", "l4"},
		{"Tesla T4", "t4"},
		{"Tesla V100-SXM2-16GB", "v100-sxm2"},
		{"Tesla V100-PCIE-32GB", "v100-pcie"},
		{"NVIDIA A40", "a40"},
		{"NVIDIA RTX A4500", "rtx-a4500"},
		{"NVIDIA GeForce RTX 2070 SUPER", "rtx-2070-super"},
		{"NVIDIA GeForce RTX 4060", "rtx-4060"},
		{"NVIDIA GeForce RTX 5090", "rtx-5090"},
		// what people type
		{"h100", "h100-sxm"},
		{"H200", "h200"},
		{"b200", "b200"},
		{"  nvidia   h100-sxm ", "h100-sxm"},
		{"RTX 4060", "rtx-4060"},
		{"t4", "t4"},
	} {
		s, ok := Lookup(c.name)
		if !ok || s.Key != c.key {
			t.Errorf("Lookup(%q) = %q, %v; want %q", c.name, s.Key, ok, c.key)
		}
	}
	for _, name := range []string{"", "NVIDIA", "NVIDIA GeForce RTX 3090", "AMD Instinct MI300X", "NVIDIA L40", "H100 80GB"} {
		if s, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) = %q, want no match", name, s.Key)
		}
	}
}

func TestParseCatalogErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"- {key: x, name: X}", "required"},
		{"- {key: x, name: X, sms: 1, boost_mhz: 1, dram_gbs: 1, l2_mib: 1, source: s, tflops: {fp32: 1}}", "missing"},
		{"- {key: x, name: X, sms: 1, boost_mhz: 1, dram_gbs: 1, l2_mib: 1, source: s, tflops: {fp4: 1}}", "unknown precision"},
		{"- {key: x, name: X, bogus: 1}", "bogus"},
	} {
		_, err := parseCatalog([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseCatalog(%s) = %v, want error containing %q", c.yaml, err, c.want)
		}
	}
}

// TestShortNameRoundTrip: every key, name and alias of the catalog is
// named by its entry's key, and that key matches it back as a --gpu.
func TestShortNameRoundTrip(t *testing.T) {
	for _, s := range Catalog() {
		for _, n := range append([]string{s.Key, s.Name}, s.Aliases...) {
			if got := ShortName(n); got != s.Key {
				t.Errorf("ShortName(%q) = %q, want %q", n, got, s.Key)
			}
			if !MatchGPU(s.Key, n) || !MatchGPU(n, s.Name) {
				t.Errorf("%q and %s do not match", n, s.Key)
			}
		}
	}
	for name, want := range map[string]string{"NVIDIA GH200 480GB": "gh200-480gb", "NVIDIA": "", "": ""} {
		if got := ShortName(name); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", name, got, want)
		}
	}
}

// vendorDomains are the domains of GPU vendors' own documents.
var vendorDomains = []string{"nvidia.com", "amd.com", "intel.com"}

// secondarySources are the pages of other sites the catalog still cites,
// each beside a vendor document of the same entry: copies of a vendor table
// (the vendor PDF sits behind a form or is no longer online), or a figure
// the vendor states only in a whitepaper table. Any other non-vendor URL
// fails TestCatalogVendorSources.
var secondarySources = map[string]string{
	"archive-lib.hpctech.co.jp": "a copy of the H100 datasheet table (h100-sxm, h100-pcie)",
	"glennklockwood.com":        "copies of the H100 and A100 datasheet tables (h100-sxm boost clock, a100-sxm-40)",
	"www.thundercompute.com":    "a copy of the A100 datasheet's 80GB and PCIe columns",
	"hmc-tech.com":              "copies of datasheet tables (b200, l4, t4, v100-sxm2, a40, rtx-4090)",
	"docs.vultr.com":            "per-GPU figures of the HGX B200 table",
	"www.mullet.se":             "a copy of the L40S datasheet table",
	"www.itcreations.com":       "the L40S boost clock",
	"grokipedia.com":            "L4 figures beside the L4 datasheet",
	"sysrqmts.com":              "the V100 PCIe boost clock",
	"topcpu.net":                "RTX A4500 SMs and clocks",
	"www.spheron.network":       "RTX 5090 sparse fp16 tensor figure beside the RTX Blackwell whitepaper",
	"pocketmags.com":            "RTX 5090 sparse fp16 tensor figure beside the RTX Blackwell whitepaper",
}

var urlRE = regexp.MustCompile(`https?://([^/\s)]+)[^\s)]*`)

// TestCatalogComplete: every entry states the figures the roofline and the
// projections use (SMs, boost clock, memory, DRAM bandwidth, L2, fp32) and
// its architecture and compute capability: none is 0 or empty.
func TestCatalogComplete(t *testing.T) {
	for _, g := range Catalog() {
		for field, v := range map[string]float64{
			"sms": float64(g.SMs), "boost_mhz": g.BoostMHz, "memory_gb": g.MemoryGB,
			"dram": g.DRAMBW, "l2": float64(g.L2Bytes), "fp32": g.FP32,
		} {
			if v <= 0 {
				t.Errorf("%s: %s is %v, want a datasheet figure", g.Key, field, v)
			}
		}
		if g.Arch == "" || g.CC == "" {
			t.Errorf("%s: arch %q, cc %q: want both", g.Key, g.Arch, g.CC)
		}
	}
}

// TestCatalogVendorSources: every entry's source cites a vendor document by
// its URL on the vendor's domain, or names the vendor's whitepaper (the
// GeForce entries, figured from the architecture whitepaper and a device's
// own export); every other URL is one of secondarySources.
func TestCatalogVendorSources(t *testing.T) {
	vendor := func(host string) bool {
		for _, d := range vendorDomains {
			if host == d || strings.HasSuffix(host, "."+d) {
				return true
			}
		}
		return false
	}
	for _, g := range Catalog() {
		texts := []string{g.Source}
		for _, s := range g.Sources {
			texts = append(texts, s)
		}
		hasVendor := strings.Contains(g.Source, "NVIDIA") && strings.Contains(g.Source, "whitepaper")
		for i, text := range texts {
			for _, m := range urlRE.FindAllStringSubmatch(text, -1) {
				host := m[1]
				switch {
				case vendor(host):
					if i == 0 {
						hasVendor = true
					}
				case secondarySources[host] != "":
				default:
					t.Errorf("%s: source %s is not a vendor document (want %v, or list it in secondarySources with why it stays)", g.Key, m[0], vendorDomains)
				}
			}
		}
		if !hasVendor {
			t.Errorf("%s: source %q cites no vendor document", g.Key, g.Source)
		}
	}
}
