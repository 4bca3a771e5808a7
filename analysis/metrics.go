package analysis

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/ingest"
)

// kernelMetrics holds the numeric metrics of one kernel row by name. A
// name printed twice with different units (the details page has "Memory
// Throughput" in % and in byte/s) keeps the first under its name and the
// others as "name [unit]".
type kernelMetrics map[string]float64

func (m kernelMetrics) get(name string) (float64, bool) {
	v, ok := m[name]
	return v, ok
}

// metricIndex is the valid numeric metrics of a run by kernel id. Analyze
// builds it once and hands it to every step; nothing writes to it after.
type metricIndex map[int64]kernelMetrics

// neededNames and neededPrefixes are the metric names analysis reads: the
// names every step looks up, and the prefixes of the families it walks
// (SASS instruction counts, tensor-path ops, stall reasons; with their
// .peak_sustained forms). Needs reads them.
var (
	neededNames = func() map[string]bool {
		m := map[string]bool{}
		for _, n := range []string{
			metric.Duration, metric.DRAMRead, metric.DRAMWrite, metric.DRAMBytes, metric.L2Bytes, metric.L1Bytes, metric.L1TMABytes,
			metric.SMCycles, metric.SMClock, metric.DRAMClock, metric.L2Clock, metric.L1Clock, metric.DRAMPeak, metric.L2Peak, metric.L1Peak,
			metric.SOLDRAM, metric.SOLMemory, metric.SOLL2, metric.SOLL1, metric.SOLSM, metric.SOLSMInst, metric.SOLTensorPipe,
			metric.DetailDRAM, metric.DetailMemory, metric.DetailL2, metric.DetailL1, metric.DetailCompute, metric.DetailSMFrequency, metric.DetailDRAMFreq,
			metric.L2HitRate, metric.TensorActive, metric.IssueActive, metric.WarpsPerIssue,
		} {
			m[n] = true
		}
		return m
	}()
	neededPrefixes = []string{metric.InstPrefix, metric.InstPrefixSMSP, metric.TensorPrefix, metric.StallPrefix}
)

// Needs reports whether analysis reads the metric name: the metric index
// keeps only these, whether built from the tables in memory
// (metricsByKernel) or from a metrics table read batch by batch.
func Needs(name string) bool {
	if neededNames[name] {
		return true
	}
	for _, p := range neededPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// MetricIndex builds the metric index of a run one metric row at a time
// (Add), keeping the rows whose names analysis reads (Needs). The same
// rows added in the same order give the same index however they are read.
type MetricIndex struct {
	byKernel metricIndex
	keep     func(string) bool
	unit     map[string]string           // a name's unit where first kept
	unitOf   map[int64]map[string]string // a kernel's own unit for a name, where it differs from unit
}

// NewMetricIndex returns an empty index that keeps what Needs names.
func NewMetricIndex() *MetricIndex { return newMetricIndex(Needs) }

func newMetricIndex(keep func(string) bool) *MetricIndex {
	return &MetricIndex{byKernel: metricIndex{}, keep: keep, unit: map[string]string{}, unitOf: map[int64]map[string]string{}}
}

// Add records one valid numeric metric row. A name a kernel already has
// keeps its first value; with another unit the value goes under
// "name [unit]" (the details page prints "Memory Throughput" in % and in
// byte/s), first value wins there too.
func (x *MetricIndex) Add(kernelID int64, name, unit string, value float64) {
	if !x.keep(name) {
		return
	}
	km := x.byKernel[kernelID]
	if km == nil {
		km = kernelMetrics{}
		x.byKernel[kernelID] = km
	}
	key := name
	if _, seen := km[name]; seen {
		u, own := x.unitOf[kernelID][name]
		if !own {
			u = x.unit[name]
		}
		if u == unit {
			return // first value wins
		}
		key = fmt.Sprintf("%s [%s]", name, unit)
		if _, dup := km[key]; dup {
			return
		}
	}
	// The unit the next row of this name is compared with.
	if u, ok := x.unit[name]; !ok {
		x.unit[name] = unit
	} else if u == unit {
		delete(x.unitOf[kernelID], name)
	} else {
		if x.unitOf[kernelID] == nil {
			x.unitOf[kernelID] = map[string]string{}
		}
		x.unitOf[kernelID][name] = unit
	}
	km[key] = value
}

// Kernels returns how many kernels have a metric in the index.
func (x *MetricIndex) Kernels() int { return len(x.byKernel) }

// metricsByKernel groups the valid numeric metrics of t by kernel id.
func metricsByKernel(t *ingest.Tables) metricIndex {
	x := NewMetricIndex()
	for _, m := range t.Metrics() {
		if m.Valid {
			x.Add(m.KernelID, m.Name, m.Unit, m.Value)
		}
	}
	return x.byKernel
}

// tensorRE matches the tensor-path op counters: source type, optional
// destination type, optional sparsity split.
var tensorRE = regexp.MustCompile(`^sm__ops_path_tensor_src_([a-z0-9]+?)(?:_dst_([a-z0-9]+?))?(?:_sparsity_(on|off))?\.sum$`)

// tensorClass maps a tensor source type to a FLOP class.
func tensorClass(src string) string {
	switch src {
	case "bf16":
		return "tensor_bf16"
	case "fp16", "f16", "hf":
		return "tensor_fp16"
	case "tf32":
		return "tensor_tf32"
	case "fp8", "e4m3", "e5m2", "fp6", "fp4", "e2m1":
		if src == "fp4" || src == "e2m1" {
			return "tensor_fp4"
		}
		if src == "fp6" {
			return "tensor_fp6"
		}
		return "tensor_fp8"
	case "fp64", "dmma", "f64":
		return "tensor_fp64"
	case "int8", "s8", "u8", "i8", "int4", "s4", "u4", "int1", "b1":
		return "tensor_int"
	}
	return "tensor_" + src
}

// tensorFLOPs sums the tensor-path counters of one kernel by class, counting
// each (source, destination) once: an unsplit counter wins over its sparsity
// splits, and destination-specific counters win over the bare source total.
// ok is false when the kernel has no tensor counter at all.
func tensorFLOPs(m kernelMetrics) (byClass map[string]float64, ok bool) {
	type key struct{ src, dst string }
	unsplit := map[key]float64{}
	split := map[key]float64{}
	hasDst := map[string]bool{}
	for name, v := range m {
		if !strings.HasPrefix(name, metric.TensorPrefix) {
			continue
		}
		g := tensorRE.FindStringSubmatch(name)
		if g == nil {
			continue
		}
		ok = true
		k := key{g[1], g[2]}
		if g[2] != "" {
			hasDst[g[1]] = true
		}
		if g[3] == "" {
			unsplit[k] = v
		} else {
			split[k] += v
		}
	}
	byClass = map[string]float64{}
	keys := map[key]bool{}
	for k := range unsplit {
		keys[k] = true
	}
	for k := range split {
		keys[k] = true
	}
	for k := range keys {
		if k.dst == "" && hasDst[k.src] {
			continue
		}
		v, has := unsplit[k]
		if !has {
			v = split[k]
		}
		byClass[tensorClass(k.src)] += v
	}
	return byClass, ok
}

// simtFLOPs returns the non-tensor FLOPs of one class from SASS thread
// instruction counts: add + mul + 2*fma with prefix "f" (fp32), "h" (fp16)
// or "d" (fp64). ok is false when none of the three counters is present.
func simtFLOPs(m kernelMetrics, p string) (float64, bool) {
	add, okA := m.inst(p + "add_pred_on.sum")
	mul, okM := m.inst(p + "mul_pred_on.sum")
	fma, okF := m.inst(p + "fma_pred_on.sum")
	return add + mul + 2*fma, okA || okM || okF
}

// inst reads a SASS thread-instruction counter under its sm__ or smsp__
// name (ncu accepts both; the sum over all SMs is the same).
func (m kernelMetrics) inst(suffix string) (float64, bool) {
	if v, ok := m[metric.InstPrefix+suffix]; ok {
		return v, true
	}
	v, ok := m[metric.InstPrefixSMSP+suffix]
	return v, ok
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
