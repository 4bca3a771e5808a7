package roofline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/metric"
)

// pointCounters are what a kernel's roofline point needs from an ncu
// export, as rooftool's own kernel pass collects it (metric.Kernel): its
// time, its bytes at each memory level, and its FLOPs (the SASS
// floating-point instruction counts and the tensor-core operations of that
// list).
type pointCounters struct {
	time, bytes, sass, tensor []string
}

// points are the counters of a kernel point.
var points = func() pointCounters {
	of := func(prefix string) []string {
		var out []string
		for _, m := range metric.Kernel {
			if strings.HasPrefix(m, prefix) && !strings.HasSuffix(m, metric.PeakSuffix) {
				out = append(out, m)
			}
		}
		return out
	}
	return pointCounters{
		time:   []string{metric.Duration},
		bytes:  []string{metric.DRAMRead, metric.DRAMWrite, metric.L2Bytes, metric.L1Bytes},
		sass:   of(metric.InstPrefixSMSP),
		tensor: of(metric.TensorPrefix),
	}
}()

// missing are the counters the kernels of (experiment, shape) of run lack
// for a roofline point, given the metric names the export has (nil: not
// known, so every counter of what they lack): FLOP counters where a kernel
// has none or counts zero FLOPs (a SASS count under either its sm__ or
// smsp__ name; the tensor counters unless the export has one), byte
// counters where a kernel has none, its time where a kernel has none.
func (pc pointCounters) missing(run *analysis.Run, experiment, shape string, have map[string]bool) []string {
	var needFLOPs, needBytes, needTime bool
	for _, f := range run.Kernels {
		if f.Experiment != experiment || f.Shape != shape {
			continue
		}
		needFLOPs = needFLOPs || !f.FLOPsKnown || f.TotalFLOPs <= 0
		needBytes = needBytes || len(f.ByteRate) == 0
		needTime = needTime || f.DurationNs <= 0
	}
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if !have[n] {
				out = append(out, n)
			}
		}
	}
	if needTime {
		add(pc.time...)
	}
	if needBytes {
		if have[metric.DRAMBytes] {
			add(metric.L2Bytes, metric.L1Bytes)
		} else {
			add(pc.bytes...)
		}
	}
	if needFLOPs {
		for _, m := range pc.sass {
			if !have[metric.InstPrefix+strings.TrimPrefix(m, metric.InstPrefixSMSP)] {
				add(m)
			}
		}
		tensor := false
		for n := range have {
			tensor = tensor || strings.HasPrefix(n, metric.TensorPrefix)
		}
		if !tensor {
			add(pc.tensor...)
		}
	}
	return out
}

// hint names the counters the export lacks for a kernel point (missing,
// by pointCounters.missing) and gives the ncu command line that collects
// them, first in its --metrics, with the time and bytes a point also needs
// so that the new export draws on its own; "" where nothing is missing
// (the counters are there and read zero).
func (pc pointCounters) hint(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	var nTime, nBytes, nFLOPs int
	for _, n := range missing {
		switch {
		case slices.Contains(pc.time, n):
			nTime++
		case slices.Contains(pc.bytes, n):
			nBytes++
		default:
			nFLOPs++
		}
	}
	var what []string
	if nTime > 0 {
		what = append(what, "the time counter")
	}
	if nBytes > 0 {
		what = append(what, fmt.Sprintf("%d byte counter%s", nBytes, plural(nBytes)))
	}
	if nFLOPs > 0 {
		what = append(what, fmt.Sprintf("%d FLOP counter%s", nFLOPs, plural(nFLOPs)))
	}
	metrics := append([]string{}, missing...)
	for _, n := range append(append([]string{}, pc.time...), pc.bytes...) {
		if !slices.Contains(metrics, n) {
			metrics = append(metrics, n)
		}
	}
	return fmt.Sprintf("to collect the %s the export lacks, with the time and bytes a point also needs, profile the program (./app here) again with\n"+
		"    ncu --clock-control none --metrics %s --csv --page raw --print-units base ./app > app.ncu.csv\n"+
		"(its first %d metrics are the missing ones: adding them to the ncu command that made this export does as well; ncu stops on a name this GPU lacks, and ncu --query-metrics lists those it has)",
		strings.Join(what, " and "), strings.Join(metrics, ","), len(missing))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
