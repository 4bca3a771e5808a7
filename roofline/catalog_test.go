package roofline

import (
	"strings"
	"testing"
)

func TestCatalogLoads(t *testing.T) {
	specs := Catalog()
	want := []string{"h100-sxm", "h100-pcie", "h200", "a100-sxm-40", "a100-sxm-80", "a100-pcie-40", "b200", "l40s", "l4", "t4", "v100-sxm2", "a40", "rtx-a4500", "rtx-2070-super", "rtx-4060", "rtx-5090"}
	have := map[string]GPUSpec{}
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

// The figures that the rest of rooftool leans on hardest, pinned to the
// datasheets (dense, base units).
func TestCatalogFigures(t *testing.T) {
	for _, c := range []struct {
		key              string
		dram, fp32, bf16 float64
		l2               int64
	}{
		{"h100-sxm", 3.35e12, 67e12, 989.5e12, 50 << 20},
		{"h100-pcie", 2.0e12, 51e12, 756.5e12, 50 << 20},
		{"h200", 4.8e12, 67e12, 989.5e12, 60 << 20},
		{"a100-sxm-40", 1.555e12, 19.5e12, 312e12, 40 << 20},
		{"b200", 8e12, 75e12, 2250e12, 132644864},
		{"t4", 320e9, 8.1e12, 0, 4 << 20},
	} {
		s, ok := Lookup(c.key)
		if !ok {
			t.Fatalf("Lookup(%q) failed", c.key)
		}
		if s.DRAMBW != c.dram || s.FP32 != c.fp32 || s.BF16 != c.bf16 || s.L2Bytes != c.l2 {
			t.Errorf("%s: dram %g fp32 %g bf16 %g l2 %d; want %g %g %g %d", c.key, s.DRAMBW, s.FP32, s.BF16, s.L2Bytes, c.dram, c.fp32, c.bf16, c.l2)
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
