package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/roofline"
)

const realdata = "../../testdata/realdata/"

func TestRooflineCommandOnB200Export(t *testing.T) {
	out := t.TempDir()
	var o, e bytes.Buffer
	err := runRoofline(context.Background(), &RooflineOptions{IO: &IO{Out: &o, Err: &e}, OutDir: out,
		Inputs: []string{realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv"}})
	if err != nil {
		t.Fatalf("runRoofline: %v\n%s", err, e.String())
	}
	for _, f := range []string{"torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu-roofline.png", "torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu-roofline.svg"} {
		st, err := os.Stat(filepath.Join(out, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
		if !strings.Contains(o.String(), f) {
			t.Errorf("stdout does not list %s:\n%s", f, o.String())
		}
	}
	for _, w := range []string{"catalog: NVIDIA B200", "warning: missing-metric"} {
		if !strings.Contains(e.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, e.String())
		}
	}
}

func TestRooflineCommandErrors(t *testing.T) {
	io := &IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
	err := runRoofline(context.Background(), &RooflineOptions{IO: io, OutDir: t.TempDir(), GPU: "no-such-gpu",
		Inputs: []string{realdata + "ESMM-Research/metrics.csv"}})
	if err == nil || exitCode(err) != exitBadArgs {
		t.Errorf("unknown --gpu: %v (exit %d)", err, exitCode(err))
	}
	err = runRoofline(context.Background(), &RooflineOptions{IO: io, OutDir: t.TempDir(),
		Inputs: []string{filepath.Join(t.TempDir(), "missing.csv")}})
	if err == nil || exitCode(err) != exitBadArgs {
		t.Errorf("missing input: %v (exit %d)", err, exitCode(err))
	}
	// An nsys timeline has kernels but no ncu facts and no rooftool cells.
	err = runRoofline(context.Background(), &RooflineOptions{IO: io, OutDir: t.TempDir(),
		Inputs: []string{realdata + "gpu4/report.sqlite"}})
	if err == nil || exitCode(err) != exitBadArgs {
		t.Errorf("nothing to draw: %v (exit %d)", err, exitCode(err))
	}
}

func TestGPUsCommand(t *testing.T) {
	var o bytes.Buffer
	io := &IO{Out: &o, Err: &bytes.Buffer{}}
	if err := runGPUs(context.Background(), &GPUsOptions{IO: io, Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var specs []roofline.GPUSpec
	if err := json.Unmarshal(o.Bytes(), &specs); err != nil || len(specs) != len(roofline.Catalog()) {
		t.Fatalf("json: %d specs, %v", len(specs), err)
	}
	o.Reset()
	if err := runGPUs(context.Background(), &GPUsOptions{IO: io, Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != len(specs)+1 || !strings.HasPrefix(lines[0], "key,name,") || !strings.Contains(o.String(), "h100-sxm,NVIDIA H100 SXM5 80GB,Hopper,9.0,132,1980,3350,50,34,67,494.5,989.5,989.5,1979,1979,") {
		t.Errorf("csv:\n%s", o.String())
	}
	o.Reset()
	if err := runGPUs(context.Background(), &GPUsOptions{IO: io, Format: "table", Name: "Tesla T4"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.String(), "t4-tensor-core-datasheet") || !strings.Contains(o.String(), "report.sqlite") {
		t.Errorf("detail lacks sources:\n%s", o.String())
	}
	if err := runGPUs(context.Background(), &GPUsOptions{IO: io, Format: "yaml"}); exitCode(err) != exitBadArgs {
		t.Errorf("bad format: %v", err)
	}
	if err := runGPUs(context.Background(), &GPUsOptions{IO: io, Format: "table", Name: "Voodoo 5"}); exitCode(err) != exitBadArgs {
		t.Errorf("unknown GPU: %v", err)
	}
}
