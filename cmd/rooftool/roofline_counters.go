package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/launch/ncu"
)

// What a kernel's roofline point needs from an ncu export, as rooftool's
// own kernel pass collects it (ncu.KernelMetrics): its time, its bytes at
// each memory level, and its FLOPs (the SASS floating-point instruction
// counts and the tensor-core operations).
var (
	pointTime  = []string{analysis.MDuration}
	pointBytes = []string{analysis.MDRAMRead, analysis.MDRAMWrite, analysis.ML2Bytes, analysis.ML1Bytes}
	pointSASS  = kernelPassMetrics("smsp__sass_thread_inst_executed_op_")
	pointTC    = kernelPassMetrics("sm__ops_path_tensor_src_")
)

// kernelPassMetrics are the counters of rooftool's kernel pass that start
// with prefix, peaks left out.
func kernelPassMetrics(prefix string) []string {
	var out []string
	for _, m := range ncu.KernelMetrics {
		if strings.HasPrefix(m, prefix) && !strings.HasSuffix(m, ".peak_sustained") {
			out = append(out, m)
		}
	}
	return out
}

// exportMetricNames are the names of the metrics table under dir (nil
// where dir is "" or the table cannot be read).
func exportMetricNames(dir string) map[string]bool {
	if dir == "" {
		return nil
	}
	names := map[string]bool{}
	err := ingest.ScanMetrics(dir, []string{"metric"}, 0, func(b *ingest.MetricBatch) error {
		for _, n := range b.Name.Dict {
			names[n] = true
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return names
}

// missingPointCounters are the counters the kernels of (experiment,
// shape) of run lack for a roofline point, given the metric names the
// export has (nil: not known, so every counter of what they lack): FLOP
// counters where a kernel has none or counts zero FLOPs (a SASS count
// under either its sm__ or smsp__ name; the tensor counters unless the
// export has one), byte counters where a kernel has none, its time where
// a kernel has none.
func missingPointCounters(run *analysis.Run, experiment, shape string, have map[string]bool) []string {
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
		add(pointTime...)
	}
	if needBytes {
		if have[analysis.MDRAMBytes] {
			add(analysis.ML2Bytes, analysis.ML1Bytes)
		} else {
			add(pointBytes...)
		}
	}
	if needFLOPs {
		for _, m := range pointSASS {
			if !have["sm__"+strings.TrimPrefix(m, "smsp__")] {
				add(m)
			}
		}
		tensor := false
		for n := range have {
			tensor = tensor || strings.HasPrefix(n, "sm__ops_path_tensor_")
		}
		if !tensor {
			add(pointTC...)
		}
	}
	return out
}

// collectHint names the counters the export lacks for a kernel point
// (missing, by missingPointCounters) and gives the ncu command line that
// collects them, first in its --metrics, with the time and bytes a point
// also needs so that the new export draws on its own; "" where nothing is
// missing (the counters are there and read zero).
func collectHint(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	var nTime, nBytes, nFLOPs int
	for _, n := range missing {
		switch {
		case contains(pointTime, n):
			nTime++
		case contains(pointBytes, n):
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
	for _, n := range append(append([]string{}, pointTime...), pointBytes...) {
		if !contains(metrics, n) {
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ccMismatch warns where --gpu names a GPU of another compute capability
// than a device the export states (ncu's CC column or
// device__attribute_compute_capability_*, else the catalog entry of its
// display name): the roofs drawn are then those of another GPU. It names
// both GPUs and both capabilities; nothing where they agree or either is
// not known.
func ccMismatch(gpuFlag string, gpus []ingest.GPU) []string {
	spec, ok := gpu.Lookup(gpuFlag)
	if gpuFlag == "" || !ok || spec.CC == "" {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, g := range gpus {
		cc := ""
		if g.CCMajor > 0 {
			cc = fmt.Sprintf("%d.%d", g.CCMajor, g.CCMinor)
		} else if s, ok := gpu.Lookup(g.Name); ok {
			cc = s.CC
		}
		if cc == "" || cc == spec.CC {
			continue
		}
		name := g.Name
		if name == "" {
			name = "a GPU"
		}
		w := fmt.Sprintf("--gpu %s is %s (compute capability %s), but the export's kernels ran on %s (compute capability %s): the roofs drawn are the %s's, not those of the GPU the kernels ran on; name that GPU with --gpu (rooftool gpus lists each with its compute capability)",
			gpuFlag, spec.Name, spec.CC, name, cc, spec.Name)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}
