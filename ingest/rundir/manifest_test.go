package rundir

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rooftool/rooftool/cellkey"
)

// A manifest as rooftool profile writes it, written out by hand: one cell
// with a failed range pass of two replays, one with a skipped pass.
const handManifest = `{
  "tool": "rooftool",
  "version": "v1.2.3",
  "command": ["rooftool", "profile", "--gpu", "h100"],
  "created": "2026-11-22T00:35:08Z",
  "finished": "2026-11-22T01:04:02Z",
  "gpu_requested": "h100",
  "gpu": {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1", "sm_count": 132, "l2_bytes": 52428800,
          "compute_capability": "9.0", "sm_clock_mhz": 1980, "max_sm_clock_mhz": 1980},
  "versions": {"torch": "2.9.0", "ncu": "2025.3"},
  "passes": ["check", "timing", "ncu", "range", "nsys"],
  "options": {"ncu.range_replays": "2", "ncu.range_replays_for": "all"},
  "cells": [
    {"experiment": "swiglu", "variant": "fused", "shape": "M=512",
     "passes": {
       "timing": {"status": "ok", "files": ["raw/timing/swiglu/fused/M=512.json"], "seconds": 2.5},
       "ncu": {"status": "ok", "method": "kernel", "kernels": [{"id": 5, "name": "gemm", "passes": 15}],
               "code": {"knobs": {"TILE": "128"}, "launch": "plan"}},
       "range": {"status": "failed", "reason": "ncu: exit status 9", "attempts": 3,
                 "replays": [{"replay": 1, "status": "failed", "reason": "exit status 9"},
                             {"replay": 2, "status": "ok", "method": "range", "coverage": {"time": 1.1, "l2_bytes": 0.95}}]}}},
    {"experiment": "gla_proj", "variant": "eager", "shape": "M=64",
     "passes": {"nsys": {"status": "skipped", "reason": "--passes"}},
     "gpu": {"index": "1", "uuid": "GPU-2"}}
  ],
  "warnings": ["clocks not locked"]
}`

func writeHand(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(handManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadManifestHandWritten(t *testing.T) {
	m, err := ReadManifest(writeHand(t))
	if err != nil {
		t.Fatal(err)
	}
	if m.Tool != "rooftool" || m.Version != "v1.2.3" || m.GPURequested != "h100" || len(m.Command) != 4 {
		t.Errorf("header %q %q %q %v", m.Tool, m.Version, m.GPURequested, m.Command)
	}
	if !m.Created.Equal(time.Date(2026, 11, 22, 0, 35, 8, 0, time.UTC)) || !m.Finished.Equal(time.Date(2026, 11, 22, 1, 4, 2, 0, time.UTC)) {
		t.Errorf("created %v finished %v", m.Created, m.Finished)
	}
	g := m.GPU
	if g.Name != "NVIDIA H100 80GB HBM3" || g.UUID != "GPU-1" || g.SMCount != 132 || g.L2Bytes != 50<<20 || g.CC != "9.0" || g.SMClockMHz != 1980 {
		t.Errorf("gpu %+v", g)
	}
	if m.Options[OptionRangeReplays] != "2" || m.Options[OptionRangeReplaysFor] != "all" {
		t.Errorf("options %v", m.Options)
	}
	if len(m.Passes) != len(AllPasses) || len(m.Warnings) != 1 {
		t.Errorf("passes %v warnings %v", m.Passes, m.Warnings)
	}
	if len(m.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(m.Cells))
	}
	if k := m.Cells[0].Key(); k != (cellkey.New("swiglu", "fused", "M=512")) {
		t.Errorf("first cell %v", k)
	}
	ncu, ok := m.Pass("swiglu", "fused", "M=512", PassNCU)
	if !ok || ncu.Status != StatusOK || ncu.Method != MethodKernel || len(ncu.Kernels) != 1 || ncu.Kernels[0] != (KernelReplay{5, "gemm", 15}) {
		t.Errorf("ncu pass %+v, %v", ncu, ok)
	}
	if ncu.Code == nil || ncu.Code.Knobs["TILE"] != "128" || ncu.Code.Launch != "plan" {
		t.Errorf("ncu code %+v", ncu.Code)
	}
	rng, _ := m.Pass("swiglu", "fused", "M=512", PassRange)
	if rng.Status != StatusFailed || rng.Attempts != 3 || len(rng.Replays) != 2 {
		t.Fatalf("range pass %+v", rng)
	}
	if r := rng.Replays[1]; r.Replay != 2 || r.Status != StatusOK || r.Coverage == nil || !r.Coverage.Complete(r.Method) {
		t.Errorf("replay 2 %+v: want ok and complete (time 1.1, L2 0.95)", r)
	}
	if st, ok := m.Pass("gla_proj", "eager", "M=64", PassNsys); !ok || st.Status != StatusSkipped || st.Reason != "--passes" {
		t.Errorf("nsys pass %+v, %v", st, ok)
	}
	if c := m.Cells[1]; c.GPU == nil || c.GPU.Index != "1" || c.GPU.UUID != "GPU-2" {
		t.Errorf("cell gpu %+v", c.GPU)
	}
	if _, ok := m.Pass("gla_proj", "eager", "M=64", PassTiming); ok {
		t.Error("an unrecorded pass of a cell reads as recorded")
	}
	if _, ok := m.Pass("gla_proj", "fused", "M=64", PassTiming); ok {
		t.Error("a pass of a cell the manifest lacks reads as recorded")
	}
}

func TestReadManifestErrors(t *testing.T) {
	if _, err := ReadManifest(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no manifest: %v, want fs.ErrNotExist", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"tool": "rooftool", "cells": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadManifest(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ManifestFile)) {
		t.Errorf("truncated manifest: %v, want an error naming %s", err, filepath.Join(dir, ManifestFile))
	}
}

func TestManifestCellsAndWrite(t *testing.T) {
	var m Manifest
	m.SetPass("swiglu", "eager", "M=512", PassTiming, PassStatus{Status: StatusOK, Seconds: 1})
	m.SetPass("gla_proj", "fused", "M=64", PassNCU, PassStatus{Status: StatusFailed, Reason: "ncu: exit status 1"})
	m.SetPass("swiglu", "eager", "M=512", PassNCU, PassStatus{Status: StatusSkipped})
	m.SetPass("swiglu", "eager", "M=512", PassTiming, PassStatus{Status: StatusFailed, Reason: "OOM"})
	if len(m.Cells) != 2 {
		t.Fatalf("%d cells, want 2 (SetPass on a known cell adds none)", len(m.Cells))
	}
	if c := m.Cell("swiglu", "eager", "M=512"); len(c.Passes) != 2 || c.Passes[PassTiming].Reason != "OOM" {
		t.Errorf("cell %+v: the later SetPass of a pass replaces it", c)
	}
	// A cell decoded without passes gets a map on its first SetPass.
	m.Cells = append(m.Cells, Cell{Experiment: "a", Variant: "b", Shape: "c"})
	m.SetPass("a", "b", "c", PassNsys, PassStatus{Status: StatusOK})

	dir := t.TempDir()
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), "}\n") || !strings.HasPrefix(string(data), "{\n  \"tool\"") {
		t.Errorf("manifest.json is not indented JSON ending in a newline:\n%s", data)
	}
	// Cells are written sorted by experiment, variant, shape; read with a
	// plain decoder, not ReadManifest.
	var raw struct {
		Cells []struct {
			Experiment, Variant, Shape string
			Passes                     map[string]map[string]any
		}
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range raw.Cells {
		got = append(got, c.Experiment+"/"+c.Variant+"/"+c.Shape)
	}
	if strings.Join(got, " ") != "a/b/c gla_proj/fused/M=64 swiglu/eager/M=512" {
		t.Errorf("cells written in order %v", got)
	}
	if p := raw.Cells[1].Passes["ncu"]; p["status"] != "failed" || p["reason"] != "ncu: exit status 1" {
		t.Errorf("gla_proj ncu pass written as %v", p)
	}
	back, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := back.Pass("swiglu", "eager", "M=512", PassTiming); !ok || st.Status != StatusFailed || st.Reason != "OOM" {
		t.Errorf("read back %+v, %v", st, ok)
	}
	if err := m.Write(filepath.Join(dir, ManifestFile)); err == nil {
		t.Error("Write into a path that is a file: no error")
	}
}
