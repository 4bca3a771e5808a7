package timing

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
)

// File is the JSON that `kernels/run.py time` writes per cell (see
// kernels/README.md). Samples are milliseconds per repetition.
type File struct {
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
	// DeviceMs are device-time samples free of host overhead (CUDA-graph
	// replay of one call), DeviceMethod how they were taken; null with
	// DeviceError where the call could not be captured.
	DeviceMs     []float64 `json:"device_ms,omitempty"`
	DeviceMethod string    `json:"device_method,omitempty"`
	DeviceError  string    `json:"device_error,omitempty"`
	// ClockSamples are the clocks read during the timed loop (after each
	// block of repetitions).
	ClockSamples []ClockSample `json:"clock_samples,omitempty"`
	// DeviceClockSamples are the clocks read during the device-time loop
	// (the CUDA-graph replays of DeviceMs), as ClockSamples are for the
	// wall loop; absent in files written before that loop sampled them.
	DeviceClockSamples []ClockSample `json:"device_clock_samples,omitempty"`
	// GPUUUID names the GPU the cell ran on ("GPU-<uuid>", the CUDA
	// device's UUID), the device every clock above was read from.
	GPUUUID string `json:"gpu_uuid,omitempty"`
	// LaunchMethod is how a model would launch the cell: "graph" where
	// the variant is a graph or its wall median exceeds 1.5x its device
	// (CUDA-graph replay) median, else "eager"; LaunchError says why no
	// graph could be timed (absent in files written before these keys).
	LaunchMethod string `json:"launch_method,omitempty"`
	LaunchError  string `json:"launch_error,omitempty"`
	// Code is what the cell ran (knobs, picks, launch path); kept in the
	// manifest by the runner, not ingested.
	Code json.RawMessage `json:"code,omitempty"`
}

// Key is the cell the file says it timed.
func (f File) Key() cellkey.Key {
	return cellkey.New(f.Experiment, f.Variant, f.Shape)
}

// ClockSample is one reading of the clocks during a timed loop.
type ClockSample struct {
	Rep    int     `json:"rep"`
	SMMHz  float64 `json:"sm_mhz"`
	MemMHz float64 `json:"mem_mhz"`
}

// Parse reads the timing JSON at in.Path (a File, or a PairedFile) into b:
// one timings row per sample, the clocks and launch facts as meta rows.
func Parse(b *ingest.Builder, in ingest.Input) error {
	data, err := os.ReadFile(in.Path)
	if err != nil {
		return &ingest.InputError{File: in.Path, Err: err}
	}
	var tf File
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark, as detect.Format skips it
	if isPaired(data) {
		return parsePairedFile(b, in, data)
	}
	if err := json.Unmarshal(data, &tf); err != nil {
		return ingest.BadInput(in.Path, 0, "", "timing JSON: %v", err)
	}
	if len(tf.SamplesMs) == 0 {
		return ingest.BadInput(in.Path, 0, "samples_ms", "timing JSON has no samples")
	}
	for _, f := range []struct {
		key string
		vs  []float64
	}{{"samples_ms", tf.SamplesMs}, {"device_ms", tf.DeviceMs}} {
		for i, v := range f.vs {
			if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				return ingest.BadInput(in.Path, 0, f.key, "sample %d is %v, want a positive time in ms", i, v)
			}
		}
	}
	exp, vr, sh := cmp.Or(in.Experiment, tf.Experiment), cmp.Or(in.Variant, tf.Variant), cmp.Or(in.Shape, tf.Shape)
	if exp == "" || vr == "" || sh == "" {
		return ingest.BadInput(in.Path, 0, "", "timing JSON lacks experiment, variant or shape")
	}
	method := tf.Method
	if method == "" {
		method = "cuda-events"
	}
	file := filepath.Base(in.Path)
	for i, v := range tf.SamplesMs {
		b.AddTiming(ingest.Timing{Experiment: exp, Variant: vr, Shape: sh, File: file, Device: tf.Device, Method: method, Rep: int32(i), Ms: v})
	}
	dm := ingest.DeviceMethodPrefix + cmp.Or(tf.DeviceMethod, "cuda-graph")
	for i, v := range tf.DeviceMs {
		b.AddTiming(ingest.Timing{Experiment: exp, Variant: vr, Shape: sh, File: file, Device: tf.Device, Method: dm, Rep: int32(i), Ms: v})
	}
	cell := exp + "/" + vr + "/" + file // shape file names repeat across experiments and variants
	// By key: a map's order changes from one ingest to the next, and the
	// tables' bytes must not (a run's manifest records their digests).
	for _, k := range slices.Sorted(maps.Keys(tf.Clocks)) {
		b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: "clock." + k, Value: fmt.Sprint(tf.Clocks[k])})
	}
	for _, loop := range []struct {
		prefix  string
		samples []ClockSample
	}{{ingest.MetaClockSample, tf.ClockSamples}, {ingest.MetaDeviceClockSample, tf.DeviceClockSamples}} {
		for _, cs := range loop.samples {
			if cs.SMMHz > 0 {
				b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: fmt.Sprintf("%s%d.sm_mhz", loop.prefix, cs.Rep), Value: fmt.Sprint(cs.SMMHz)})
			}
		}
	}
	if tf.GPUUUID != "" {
		b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: "gpu_uuid", Value: tf.GPUUUID})
	}
	if tf.DeviceError != "" {
		b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: "device_error", Value: tf.DeviceError})
	}
	if tf.LaunchMethod != "" {
		b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: "launch_method", Value: tf.LaunchMethod})
	}
	if tf.LaunchError != "" {
		b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: "launch_error", Value: tf.LaunchError})
	}
	return nil
}

// isPaired reports whether a timing-format JSON is a paired record
// (kernels/run.py pair): its first 4 KiB name "rooftool_paired".
func isPaired(data []byte) bool {
	head := data
	if len(head) > 4096 {
		head = head[:4096]
	}
	return bytes.Contains(head, []byte(`"rooftool_paired"`))
}
