package ingest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// TimingFile is the JSON that `kernels/run.py time` writes per cell (see
// kernels/README.md). Samples are milliseconds per repetition.
type TimingFile struct {
	Version       int                `json:"rooftool_timing"`
	Experiment    string             `json:"experiment"`
	Variant       string             `json:"variant"`
	Shape         string             `json:"shape"`
	Device        string             `json:"device"`
	Method        string             `json:"method"`
	Warmup        int                `json:"warmup"`
	Reps          int                `json:"reps"`
	RotateBuffers int                `json:"rotate_buffers"`
	Clocks        map[string]float64 `json:"clocks,omitempty"`
	SamplesMs     []float64          `json:"samples_ms"`
}

func parseTimingFile(b *Builder, in Input) error {
	data, err := os.ReadFile(in.Path)
	if err != nil {
		return &InputError{File: in.Path, Err: err}
	}
	var tf TimingFile
	if err := json.Unmarshal(data, &tf); err != nil {
		return badInput(in.Path, 0, "", "timing JSON: %v", err)
	}
	if len(tf.SamplesMs) == 0 {
		return badInput(in.Path, 0, "samples_ms", "timing JSON has no samples")
	}
	for i, v := range tf.SamplesMs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return badInput(in.Path, 0, "samples_ms", "sample %d is %v, want a positive time in ms", i, v)
		}
	}
	exp, vr, sh := or(in.Experiment, tf.Experiment), or(in.Variant, tf.Variant), or(in.Shape, tf.Shape)
	if exp == "" || vr == "" || sh == "" {
		return badInput(in.Path, 0, "", "timing JSON lacks experiment, variant or shape")
	}
	method := tf.Method
	if method == "" {
		method = "cuda-events"
	}
	file := filepath.Base(in.Path)
	for i, v := range tf.SamplesMs {
		b.AddTiming(Timing{Experiment: exp, Variant: vr, Shape: sh, File: file, Device: tf.Device, Method: method, Rep: int32(i), Ms: v})
	}
	cell := exp + "/" + vr + "/" + file // shape file names repeat across experiments and variants
	for k, v := range tf.Clocks {
		b.AddMeta(Meta{Source: SourceTiming, File: cell, Key: "clock." + k, Value: fmt.Sprint(v)})
	}
	return nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
