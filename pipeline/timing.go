package pipeline

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/ingest/timing"
	"github.com/rooftool/rooftool/spec"
)

// timingEnv lists per experiment the devices and methods of its timing
// pass, from the timing rows of the cells whose timing pass mask keeps.
func timingEnv(ts []ingest.Timing, mask analysis.PassMask) (devices, methods map[string][]string) {
	dev := map[string]map[string]bool{}
	met := map[string]map[string]bool{}
	for _, t := range ts {
		if mask.Masked(t.Key(), rundir.PassTiming) {
			continue
		}
		if dev[t.Experiment] == nil {
			dev[t.Experiment], met[t.Experiment] = map[string]bool{}, map[string]bool{}
		}
		if t.Device != "" {
			dev[t.Experiment][t.Device] = true
		}
		if t.Method != "" {
			met[t.Experiment][t.Method] = true
		}
	}
	flat := func(m map[string]map[string]bool) map[string][]string {
		out := map[string][]string{}
		for k, set := range m {
			var l []string
			for s := range set {
				l = append(l, s)
			}
			sort.Strings(l)
			if len(l) > 0 {
				out[k] = l
			}
		}
		return out
	}
	return flat(dev), flat(met)
}

// timingClocks gathers the clocks the timing JSON files recorded (meta
// rows clock.sm_mhz, clock.mem_mhz of source timing), per experiment: a
// timing file is named after its shape, and shapes tell experiments apart.
// The rows of a cell whose timing pass mask leaves out are left out; a row
// that names its file alone (older tables) cannot be told apart by variant
// and is kept.
func timingClocks(metas []ingest.Meta, timings []ingest.Timing, exps []*spec.Experiment, mask analysis.PassMask) map[string]map[string][]float64 {
	// Timing meta rows name their file experiment/variant/<shape>.json. Tables
	// ingested before that held the base name (<shape>.json) alone: such a
	// file is attributed to the experiment of the run that owns that shape;
	// only experiments with timings in this run count, and a shape two of them
	// share (swiglu and swiglu_fp8) is left out rather than misattributed.
	inRun := map[string]bool{}
	for _, t := range timings {
		if !mask.Masked(t.Key(), rundir.PassTiming) {
			inRun[t.Experiment] = true
		}
	}
	cellOf := analysis.TimingFileCells(timings)
	owner := map[string]string{}
	for _, e := range exps {
		if !inRun[e.Name] {
			continue
		}
		for _, s := range e.AllShapes() {
			if o, ok := owner[s+".json"]; ok && o != e.Name {
				owner[s+".json"] = "" // two experiments of the run: attribute to neither
				continue
			}
			owner[s+".json"] = e.Name
		}
	}
	out := map[string]map[string][]float64{}
	for _, m := range metas {
		if m.Source != ingest.SourceTiming || !strings.HasPrefix(m.Key, "clock.") {
			continue
		}
		if k, _, ok := cellOf(m.File); ok && mask.Masked(k, rundir.PassTiming) {
			continue
		}
		exp, ok := owner[m.File]
		if i := strings.Index(m.File, "/"); i > 0 {
			exp, ok = m.File[:i], true // experiment/variant/<shape>.json
		}
		if !ok || exp == "" {
			continue
		}
		v, err := strconv.ParseFloat(m.Value, 64)
		if err != nil || v <= 0 {
			continue
		}
		k := strings.TrimPrefix(m.Key, "clock.")
		if out[exp] == nil {
			out[exp] = map[string][]float64{}
		}
		r := out[exp][k]
		switch {
		case r == nil:
			out[exp][k] = []float64{v, v}
		case v < r[0]:
			r[0] = v
		case v > r[1]:
			r[1] = v
		}
	}
	return out
}

// cellSMClocks gives the SM clock each cell's timed loop ran at (the median
// of its clock samples, else the reading after the loop) and, where the
// timing file has device_clock_samples, the clock of its device-time loop,
// from the run's tables (analysis.LoopSMClocks, TimingDeviceSMClocks).
// Tables ingested before the timing meta rows named their cell (File
// "<shape>.json" alone: the committed 2026-11-22 runs until their tables
// were ingested again) cannot tell the variants of a shape apart; for those the clocks
// are read from the timing JSON the tables were ingested from
// (raw/timing/<exp>/<variant>/<shape>.json), the only place the raw timing
// files are read for them. A run without clocks gives none.
func cellSMClocks(run *rundir.Run, tables *ingest.Tables) (wall, device map[cellkey.Key]float64, err error) {
	if out, perCell := analysis.LoopSMClocks(tables); perCell {
		return out, analysis.TimingDeviceSMClocks(tables), nil
	}
	return timingJSONClocks(run)
}

// timingJSONClocks reads the SM clocks of every timing JSON of a run, keyed
// by the cell the file names: the median of clock_samples (else
// clocks.sm_mhz) and of device_clock_samples.
func timingJSONClocks(run *rundir.Run) (wall, device map[cellkey.Key]float64, err error) {
	wall, device = map[cellkey.Key]float64{}, map[cellkey.Key]float64{}
	err = run.WalkJSON(rundir.TimingDir, ".json", func(rel string, data []byte) error {
		if strings.HasSuffix(rel, ".check.json") || strings.HasSuffix(rel, ".time-error.json") {
			return nil
		}
		var tf timing.File
		if err := json.Unmarshal(data, &tf); err != nil {
			return err
		}
		if tf.Experiment == "" || tf.Variant == "" || tf.Shape == "" {
			return nil
		}
		k := tf.Key()
		if v := sampleMedian(tf.ClockSamples); v > 0 {
			wall[k] = v
		} else if v := tf.Clocks["sm_mhz"]; v > 0 {
			wall[k] = v
		}
		if v := sampleMedian(tf.DeviceClockSamples); v > 0 {
			device[k] = v
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read timing clocks: %w", err)
	}
	return wall, device, nil
}

// sampleMedian is the median SM clock of clock samples, MHz (0: none).
func sampleMedian(cs []timing.ClockSample) float64 {
	var v []float64
	for _, c := range cs {
		if c.SMMHz > 0 {
			v = append(v, c.SMMHz)
		}
	}
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}
