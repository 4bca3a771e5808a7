package launch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// TestGPUIdentity: a --gpu spelling means one thing everywhere. For the
// device names of the committed runs and a few more, profile's check (the
// warning detectGPU gives, on a fake nvidia-smi printing the name) answers
// as the catalog does: both name the same catalog entry. A device the
// catalog lacks matches only the words of its own name.
func TestGPUIdentity(t *testing.T) {
	tests := []struct {
		device   string
		inCat    bool
		match    []string
		mismatch []string
	}{
		{"NVIDIA H100 80GB HBM3", true, // runs/2026-11-2*-h100-*
			[]string{"h100", "H100", "h100-sxm", "H100 SXM", "h100_sxm5", "NVIDIA H100 80GB HBM3", "nvidia h100 sxm5 80gb"},
			[]string{"h200", "h100-pcie", "h100 nvl", "a100", "hopper", "80gb", "h10"}},
		{"NVIDIA H200", true, // runs/2026-11-22-h200-004838
			[]string{"h200", "H200", "h200 sxm", "NVIDIA H200", "NVIDIA H200 141GB HBM3e"},
			[]string{"h100", "h200-nvl", "gh200", "h20"}},
		{"NVIDIA H100 PCIe", true,
			[]string{"h100-pcie", "H100 PCIe", "NVIDIA H100 PCIe 80GB"},
			[]string{"h100", "h100-sxm", "h200"}},
		{"NVIDIA A100-SXM4-80GB", true,
			[]string{"a100-sxm-80", "A100 SXM4 80GB", "nvidia a100 80gb hbm2e"},
			[]string{"a100-sxm-40", "a100", "h100"}},
		{"Tesla T4", true,
			[]string{"t4", "T4", "nvidia t4", "tesla-t4"},
			[]string{"l4", "t40"}},
		{"NVIDIA GeForce RTX 4090", true,
			[]string{"rtx-4090", "RTX 4090", "GeForce RTX 4090"},
			[]string{"rtx", "4090", "rtx-4060"}},
		{"NVIDIA GH200 480GB", false,
			[]string{"gh200", "GH200 480GB", "gh200-480gb"},
			[]string{"h200", "h100", "480", "gh"}},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		smi := filepath.Join(dir, "nvidia-smi-"+string(rune('a'+i)))
		line := tc.device + ", GPU-x, 580.65.06, 1980 MHz, 2619 MHz, 1980 MHz, 2619 MHz, 81559 MiB"
		if err := os.WriteFile(smi, []byte("#!/bin/sh\necho '"+line+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		dev, devKnown := gpu.Lookup(tc.device)
		if devKnown != tc.inCat {
			t.Errorf("%s: in the catalog = %v, want %v", tc.device, devKnown, tc.inCat)
		}
		check := func(flag string, want bool) {
			r := &Runner{cfg: Config{SMI: smi, GPU: flag}}
			g, _, warns := r.detectGPU(context.Background(), RunnerEnv{})
			if g.Name != tc.device {
				t.Fatalf("fake nvidia-smi: device %q, want %q", g.Name, tc.device)
			}
			profile := !strings.Contains(strings.Join(warns, "\n"), "--gpu "+flag+" was asked")
			if profile != want {
				t.Errorf("profile --gpu %q on %s: match = %v, want %v (%q)", flag, tc.device, profile, want, warns)
			}
			if gpu.MatchGPU(flag, tc.device) != want {
				t.Errorf("gpu.MatchGPU(%q, %q) = %v, want %v", flag, tc.device, !want, want)
			}
			spec, flagKnown := gpu.Lookup(flag)
			if tc.inCat {
				if catalog := flagKnown && spec.Key == dev.Key; catalog != want {
					t.Errorf("catalog: --gpu %q names %q, the device %q: same = %v, want %v", flag, spec.Key, dev.Key, catalog, want)
				}
			} else if flagKnown && want {
				t.Errorf("catalog: --gpu %q names %s, yet matches %s, which the catalog lacks", flag, spec.Key, tc.device)
			}
		}
		for _, f := range tc.match {
			check(f, true)
		}
		for _, f := range tc.mismatch {
			check(f, false)
		}
		// The run directory's name is a --gpu spelling of its device.
		if short := gpu.ShortName(tc.device); short == "" || !gpu.MatchGPU(short, tc.device) {
			t.Errorf("ShortName(%q) = %q, which does not name it", tc.device, short)
		}
	}
}

// TestRunDirNamedByCatalog: with no -o, the run directory is named after
// the device by its catalog key.
func TestRunDirNamedByCatalog(t *testing.T) {
	cfg, _ := fakeEnv(t)
	kdir, err := filepath.Abs(cfg.KernelsDir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.KernelsDir = kdir
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassCheck}
	smi := filepath.Join(t.TempDir(), "nvidia-smi")
	if err := os.WriteFile(smi, []byte("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, GPU-h100, 580.65.06, 1980 MHz, 2619 MHz, 1980 MHz, 2619 MHz, 81559 MiB'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.SMI = smi
	cfg.RunDir = ""
	wd := t.TempDir()
	t.Chdir(wd)
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wd, "runs", "2026-11-22-h100-sxm-010203", "manifest.json")); err != nil {
		t.Errorf("run directory: %v", err)
	}
	if hasWarning(m, "--gpu") {
		t.Errorf("--gpu h100 on an H100 80GB HBM3 warned: %q", m.Warnings)
	}
}

// TestPickGPU: nvidia-smi lists every GPU of the host whatever
// CUDA_VISIBLE_DEVICES says, so the device is picked by UUID: the runner's
// (its CUDA device), else CUDA_VISIBLE_DEVICES's first entry where it is a
// UUID or a UUID prefix, else the only GPU; any guess is said.
func TestPickGPU(t *testing.T) {
	a := SMIGPU{GPUInfo: rundir.GPUInfo{Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-aaaa0000-1111"}}
	b := SMIGPU{GPUInfo: rundir.GPUInfo{Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-bbbb0000-2222"}}
	two := []SMIGPU{a, b}
	tests := []struct {
		name          string
		gpus          []SMIGPU
		runner, vis   string
		want          string
		warnSubstring string
	}{
		{"runner's UUID", two, "GPU-bbbb0000-2222", "", b.UUID, ""},
		{"runner's UUID without prefix (torch's form)", two, "bbbb0000-2222", "", b.UUID, ""},
		{"runner's UUID agrees with CUDA_VISIBLE_DEVICES", two, "GPU-bbbb0000-2222", "GPU-bbbb0000-2222", b.UUID, ""},
		{"CUDA_VISIBLE_DEVICES UUID", two, "", "GPU-bbbb0000-2222,GPU-aaaa0000-1111", b.UUID, ""},
		{"CUDA_VISIBLE_DEVICES UUID prefix", two, "", "GPU-bbbb", b.UUID, ""},
		{"one GPU", []SMIGPU{b}, "", "", b.UUID, ""},
		{"index only: a guess, said", two, "", "1", a.UUID, "may not be the one measured"},
		{"runner's UUID unknown to nvidia-smi", two, "GPU-cccc", "", a.UUID, "is not among nvidia-smi's 2 GPUs"},
		{"runner and CUDA_VISIBLE_DEVICES disagree", two, "GPU-aaaa0000-1111", "GPU-bbbb0000-2222", a.UUID, "the run records the runner's"},
	}
	for _, tc := range tests {
		g, warns := pickGPU(tc.gpus, tc.runner, tc.vis)
		if g.UUID != tc.want {
			t.Errorf("%s: picked %s, want %s", tc.name, g.UUID, tc.want)
		}
		w := strings.Join(warns, "\n")
		if (tc.warnSubstring == "") != (w == "") || !strings.Contains(w, tc.warnSubstring) {
			t.Errorf("%s: warnings %q, want one containing %q", tc.name, w, tc.warnSubstring)
		}
	}
}

// TestRunRecordsItsOwnGPU: on a host of two GPUs (the fake nvidia-smi lists
// both, first GPU 0, whatever CUDA_VISIBLE_DEVICES says), a run under
// CUDA_VISIBLE_DEVICES=1 records GPU 1: its UUID in the manifest, and its
// SM clock (1880 MHz, GPU 0's is 1980) in each cell's timing record.
func TestRunRecordsItsOwnGPU(t *testing.T) {
	cfg, _ := fakeEnv(t)
	t.Setenv("FAKE_SMI_GPUS", "2")
	t.Setenv("CUDA_VISIBLE_DEVICES", "1")
	t.Setenv("PATH", filepath.Dir(cfg.SMI)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassCheck, rundir.PassTiming}
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	const gpu1 = "GPU-00000001-1111-2222-3333-444444444444"
	if m.GPU.UUID != gpu1 {
		t.Errorf("manifest GPU %s, want GPU 1 (%s)", m.GPU.UUID, gpu1)
	}
	if hasWarning(m, "GPUs visible") || hasWarning(m, "may not be") {
		t.Errorf("warned of a guessed GPU: %q", m.Warnings)
	}
	data, err := os.ReadFile(filepath.Join(cfg.RunDir, "raw", "timing", "fake", "good", "n=1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"sm_mhz": 1880`) || !strings.Contains(string(data), gpu1) {
		t.Errorf("timing record not of GPU 1: %s", data)
	}
}
