package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// asMainEnv makes the test binary run as rooftool: profile --gpus runs
// os.Executable() once per GPU, which in a test is this binary.
const asMainEnv = "RT_TEST_AS_ROOFTOOL"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		guardMemory(os.Stderr)
		os.Exit(run(context.Background(), os.Args[1:], &IO{Out: os.Stdout, Err: os.Stderr}))
	}
	os.Exit(m.Run())
}

// clockFree drops what a report says of the cells' GPUs and timing clocks:
// the cells of a --gpus run ran on different GPUs, of different clocks.
var clockFree = regexp.MustCompile(`; the cells ran on different GPUs: [a-z]+ on GPU [0-9] \(GPU-[0-9a-f]+\), [a-z]+ on GPU [0-9] \(GPU-[0-9a-f]+\)|; SM clocks of the timed loops [^;]*?would not change the verdict|"timing_sm_mhz": \[[^\]]*\],?|"timing_sm_mhz": [0-9.]+,?|\s+`)

// TestProfileGPUs runs a sweep on two fake GPUs and checks the merged run
// against an unsharded one.
func TestProfileGPUs(t *testing.T) {
	sel := fakeSweep(t)
	t.Setenv(asMainEnv, "1")
	t.Setenv("CUDA_VISIBLE_DEVICES", "")
	// A host of two GPUs whose fake nvidia-smi lists both, whatever
	// CUDA_VISIBLE_DEVICES says, as the real one does: a read of the wrong
	// GPU shows as the other's UUID or SM clock (1980 MHz on GPU 0, 1880 on 1).
	t.Setenv("FAKE_SMI_GPUS", "2")
	ncu, _ := filepath.Abs("../../launch/testdata/bin/ncu")
	nsys, _ := filepath.Abs("../../launch/testdata/bin/nsys")
	args := func(out string, extra ...string) []string {
		// --range-replays-for all: the claim's two cells may then run on
		// different GPUs, whose clocks the report must name.
		// --range-process per-cell: the same process per range in both runs
		// (profileArgs says why).
		a := append([]string{"profile", "--gpu", "h100", "--ncu", ncu, "--nsys", nsys, "--range-replays-for", "all", "--range-process", "per-cell", "-o", out}, sel...)
		return append(a, extra...)
	}
	tmp := t.TempDir()
	whole, multi, serial := filepath.Join(tmp, "whole"), filepath.Join(tmp, "multi"), filepath.Join(tmp, "serial")
	mustRun(t, exitOK, args(whole)...)
	o, _ := mustRun(t, exitOK, args(multi, "--gpus", "0,1")...)
	if !strings.Contains(o, "report: ") {
		t.Errorf("no report line:\n%s", o)
	}
	mw, err := rundir.ReadManifest(whole)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := rundir.ReadManifest(multi)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm.Cells) != len(mw.Cells) {
		t.Fatalf("merged run has %d cells, the whole run %d", len(mm.Cells), len(mw.Cells))
	}
	seen := map[cellkey.Key]bool{}
	perGPU := map[string]int{}
	for _, c := range mm.Cells {
		if seen[c.Key()] {
			t.Errorf("cell %s twice", c.Key())
		}
		seen[c.Key()] = true
		if c.GPU == nil {
			t.Errorf("cell %s records no GPU", c.Key())
			continue
		}
		want := "GPU-0000000" + c.GPU.Index + "-1111-2222-3333-444444444444"
		if c.GPU.UUID != want {
			t.Errorf("cell %s: GPU %+v, want UUID %s", c.Key(), *c.GPU, want)
		}
		perGPU[c.GPU.Index]++
	}
	if perGPU["0"] == 0 || perGPU["1"] == 0 || len(perGPU) != 2 {
		t.Errorf("cells per GPU: %v", perGPU)
	}
	for _, c := range mw.Cells {
		if !seen[c.Key()] {
			t.Errorf("cell %s missing from the merged run", c.Key())
		}
	}
	if got := mm.Options["timing"]; got != "parallel" {
		t.Errorf("timing option %q, want parallel", got)
	}
	if _, ok := mm.Options[rundir.OptionGPUIndex]; ok {
		t.Errorf("merged options keep %s", rundir.OptionGPUIndex)
	}
	// Each cell's timing clocks were read from its own GPU (GPU 1's SM
	// clock is 1880 MHz, GPU 0's 1980), and its timing record names it.
	for _, c := range mm.Cells {
		if c.GPU == nil || c.Passes[rundir.PassTiming].Status != rundir.StatusOK {
			continue // the wrong variant fails its check: no timing
		}
		var tr struct {
			Clocks struct {
				SMMHz float64 `json:"sm_mhz"`
			} `json:"clocks"`
			GPUUUID string `json:"gpu_uuid"`
		}
		data, err := os.ReadFile(filepath.Join(multi, "raw", "timing", c.Experiment, c.Variant, c.Shape+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &tr); err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{"0": 1980, "1": 1880}[c.GPU.Index]
		if tr.Clocks.SMMHz != want || tr.GPUUUID != c.GPU.UUID {
			t.Errorf("cell %s on GPU %s: timing clocks %v MHz of %s, want %v MHz of %s", c.Key(), c.GPU.Index, tr.Clocks.SMMHz, tr.GPUUUID, want, c.GPU.UUID)
		}
	}
	// The verdicts are the whole run's; only the clocks of the cells on
	// GPU 1 differ, and the reasons say so.
	got, want := runDecisions(t, multi), runDecisions(t, whole)
	if !strings.Contains(got, "the cells ran on different GPUs: good on GPU 0 (GPU-00000000), after on GPU 1 (GPU-00000001)") &&
		!strings.Contains(got, "the cells ran on different GPUs: good on GPU 1 (GPU-00000001), after on GPU 0 (GPU-00000000)") {
		t.Errorf("--gpus report does not name the GPUs of cells that ran on different ones:\n%s", got)
	}
	if !strings.Contains(got, "SM clocks of the timed loops 1980 MHz (good) and 1880 MHz (after)") {
		t.Errorf("--gpus report does not name the cells' different clocks:\n%s", got)
	}
	if got, want = clockFree.ReplaceAllString(got, ""), clockFree.ReplaceAllString(want, ""); got != want {
		t.Errorf("--gpus report differs from the whole run's:\n got %s\nwant %s", got, want)
	}
	for _, g := range []string{"0", "1"} {
		if _, err := os.Stat(filepath.Join(multi+".gpu-"+g, rundir.ManifestFile)); err != nil {
			t.Errorf("shard of GPU %s not kept: %v", g, err)
		}
		// Both shards used the run's one cache folder, RUNDIR.cache.
		sm, err := rundir.ReadManifest(multi + ".gpu-" + g)
		if err != nil {
			t.Fatal(err)
		}
		if abs, _ := filepath.Abs(multi + ".cache"); !strings.HasSuffix(abs, sm.Options["compile_cache"]) && sm.Options["compile_cache"] != abs+"/" {
			t.Errorf("shard %s: compile_cache %q, want the shared %s/", g, sm.Options["compile_cache"], abs)
		}
		// The merged run began with the parent, before each shard.
		if !mm.Created.Before(sm.Created) || mm.Finished.Before(sm.Finished) {
			t.Errorf("merged run %v to %v does not span shard %s's %v to %v", mm.Created, mm.Finished, g, sm.Created, sm.Finished)
		}
	}
	if st, err := os.Stat(filepath.Join(multi+".cache", "triton")); err != nil || !st.IsDir() {
		t.Errorf("no shared cache folder %s.cache: %v", multi, err)
	}
	// Predicted and measured seconds per shard: the measured ones are the
	// shard's launches together.
	for i, p := range mm.MergedFrom {
		sm, _ := rundir.ReadManifest(filepath.Join(filepath.Dir(multi), p.Run))
		var s float64
		for _, l := range sm.Launches {
			s += l.Seconds
		}
		if p.PredictedSeconds <= 0 || p.Seconds <= 0 || math.Abs(p.Seconds-s) > 0.01 {
			t.Errorf("part %d %s: predicted %v s, measured %v s; want both, measured = its launches' %.3f s", i, p.Run, p.PredictedSeconds, p.Seconds, s)
		}
	}

	// --serial-timing records it and times one shard at a time;
	// --remove-shards removes the shards.
	spans := filepath.Join(tmp, "spans")
	t.Setenv("FAKE_TIMING_SPANS", spans)
	mustRun(t, exitOK, args(serial, "--gpus", "0,1", "--serial-timing", "--remove-shards", "--no-report")...)
	ms, err := rundir.ReadManifest(serial)
	if err != nil {
		t.Fatal(err)
	}
	if got := ms.Options["timing"]; got != "serial" {
		t.Errorf("timing option %q, want serial", got)
	}
	if len(ms.Cells) != len(mw.Cells) {
		t.Errorf("serial run has %d cells, want %d", len(ms.Cells), len(mw.Cells))
	}
	data, err := os.ReadFile(spans)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(data))
	if len(lines) < 4 {
		t.Errorf("timing spans: %q", data)
	}
	for i := 1; i < len(lines); i += 2 {
		if want := []string{"begin", "end"}[(i/2)%2]; lines[i] != want {
			t.Errorf("--serial-timing: timing processes overlap: %q", data)
			break
		}
	}
	if _, err := os.Stat(serial + ".gpu-0"); !os.IsNotExist(err) {
		t.Errorf("--remove-shards kept %s: %v", serial+".gpu-0", err)
	}
}

// TestProfileGPUsFailure checks that a failed shard fails the command,
// naming the shard and its log, and that the other shard finishes.
func TestProfileGPUsFailure(t *testing.T) {
	sel := fakeSweep(t)
	t.Setenv(asMainEnv, "1")
	t.Setenv("CUDA_VISIBLE_DEVICES", "")
	// A host of two GPUs whose fake nvidia-smi lists both, whatever
	// CUDA_VISIBLE_DEVICES says, as the real one does: a read of the wrong
	// GPU shows as the other's UUID or SM clock (1980 MHz on GPU 0, 1880 on 1).
	t.Setenv("FAKE_SMI_GPUS", "2")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "r")
	// The shard of GPU 1 gets an -o that is a file: it fails.
	if err := os.WriteFile(out+".gpu-1", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ncu, _ := filepath.Abs("../../launch/testdata/bin/ncu")
	nsys, _ := filepath.Abs("../../launch/testdata/bin/nsys")
	a := append([]string{"profile", "--gpu", "h100", "--ncu", ncu, "--nsys", nsys, "-o", out, "--gpus", "0,1", "--passes", "check,timing"}, sel...)
	_, e := mustRun(t, exitFailure, a...)
	if !strings.Contains(e, "shard 2/2 on GPU 1") || !strings.Contains(e, out+".gpu-1.log") {
		t.Errorf("stderr does not name the failed shard and its log:\n%s", e)
	}
	if m, err := rundir.ReadManifest(out + ".gpu-0"); err != nil || m.Finished.IsZero() {
		t.Errorf("the other shard did not finish: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed --gpus run was merged: %v", err)
	}

	// Once the cause is gone, --resume continues the shards and merges.
	if err := os.Remove(out + ".gpu-1"); err != nil {
		t.Fatal(err)
	}
	mustRun(t, exitOK, append(a, "--resume", "--no-report")...)
	m, err := rundir.ReadManifest(out)
	if err != nil || len(m.MergedFrom) != 2 || len(m.Resumed) != 0 {
		t.Fatalf("resumed --gpus run: %v %+v", err, m)
	}
	m0, _ := rundir.ReadManifest(out + ".gpu-0")
	if len(m0.Resumed) != 1 {
		t.Errorf("shard of GPU 0 was not resumed: %+v", m0.Resumed)
	}
	// A merged --gpus run resumed again is merged again.
	mustRun(t, exitOK, append(a, "--resume", "--no-report")...)
	if _, e := mustRun(t, exitBadArgs, a...); !strings.Contains(e, "holds a run already") {
		t.Errorf("no --resume over a run: %s", e)
	}

	for _, tc := range []struct {
		extra []string
		msg   string
	}{
		{[]string{"--gpus", "0"}, "at least two"},
		{[]string{"--gpus", "0,0"}, "named twice"},
		{[]string{"--gpus", "0,1", "--shard", "1/2"}, "exclude each other"},
		{[]string{"--serial-timing"}, "go with --gpus"},
	} {
		a := append([]string{"profile", "--gpu", "h100", "-o", filepath.Join(tmp, "u")}, sel...)
		_, e := mustRun(t, exitBadArgs, append(a, tc.extra...)...)
		if !strings.Contains(e, tc.msg) {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.extra, tc.msg, e)
		}
	}
}
