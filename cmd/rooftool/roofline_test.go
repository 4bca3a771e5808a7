package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
