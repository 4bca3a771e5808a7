package suggest

import (
	"slices"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/spec"
)

// InductorModel states how PredictInductor predicts what torch.compile's
// default mode saves over an eager baseline whose spec states its dataflow.
const InductorModel = `torch.compile (Inductor, default mode) is predicted from the baseline's
dataflow by two rules. (1) addmm: an add of a GEMM's output that no other
kernel reads and the call does not return, and of an addend written
before that GEMM, runs in the GEMM's epilogue (cuBLAS beta*C); Inductor's
default mode folds no other op into a GEMM. The call copies the addend
into the GEMM's output (a device-to-device copy, no kernel) and the GEMM
reads it back as C. (2) merges: kernels that are neither GEMMs, scans nor
library calls (splitk_reduce) are pointwise ops or reductions; Inductor
merges a producer and its consumer into one kernel,
pointwise into pointwise, pointwise into a following reduction's loads and
a reduction into the pointwise ops after it, with at most one reduction per
kernel, never around a kernel outside the merged set (a GEMM between them
on the dataflow), and never across the forward/backward boundary of a
variant with a backward (AOTAutograd compiles two graphs: the backward
starts at the first kernel reading dY, the gradient of an output Y, a
tensor named d<Y> that no kernel writes). (3) in place: a kernel Inductor
generates (a merged set, or one kernel that is neither a GEMM, a folded
add nor a library call) writes an output over an intermediate it reads
that no kernel outside it reads later and the call does not return, of
the output's size (Inductor's in-place buffer reuse; the eager baseline
writes every tensor to a buffer of its own).
  kernels saved  = adds folded + over each merged set, its kernels - 1.
  DRAM (kernel pass, L2 flushed before each kernel): an intermediate no
                   longer written (not returned, every reader merged) saves
                   its producer's measured write; each read of it by a
                   merged reader, and each repeated read of a tensor
                   several merged kernels read, saves the tensor's size.
  DRAM (warm L2, the sequence as a program runs it): the same edges, with
                   the L2 residency model: an intermediate's write is
                   charged its size (a write-back L2 evicts the dirty lines
                   to DRAM later), a read is charged only where the tensor
                   no longer fits: size + reuse distance > L2 size, the
                   reuse distance being the DRAM bytes (kernel pass) of the
                   kernels launched between the write (or previous read)
                   and the read. An add folded as addmm also pays its
                   copy: the copy's write-back and the GEMM's read of it
                   (2 x the addend's size) where the addend and the GEMM's
                   own bytes do not fit the L2 (the copy replaces the
                   add's read of the addend). An intermediate written over
                   in place (rule 3) saves its write-back where it is still
                   in L2 when its overwriter reads it (the read's rule):
                   the overwrite lands on its dirty lines.
  kernel time    = an add folded: its time less what the GEMM's epilogue
                   read of the addend (C) adds to the GEMM: the GEMM's time
                   taken as the soft maximum (t^2 = dram^2 + rest^2, the
                   projection model's exponent) of its DRAM term (its
                   kernel-pass bytes at the DRAM rate) and the rest
                   (compute, latency), the DRAM term grown by the addend's
                   bytes; a merged set: its kernels' time less the merged
                   kernel's, t0 + bytes / rate, its bytes the set's
                   kernel-pass bytes less the flushed saving. t0 and rate
                   are a least-squares fit of t = t0 + bytes / rate over
                   the baseline's kernels without tensor work (a streaming
                   kernel's fixed time and DRAM rate). What kernel sums
                   (nsys, the kernel pass) see.
  call time      = the kernel time less the addend copies' time (each
                   copy moves 2 x the addend's size at the DRAM rate, on
                   the GPU between kernels, in no kernel sum): what the
                   timing pass sees. Predictions, not bounds.
Tensor sizes come from the kernel pass: a unary pointwise kernel's read is
its input's size, a pointwise output is as large as its largest input, a
pointwise kernel's read less its other inputs' sizes is the last one's;
else the reader's read split over its inputs, else the writer's write
split over its outputs.`

// ModelPrediction is what PredictInductor predicts a compiled variant
// saves over its baseline. The call's GPU time saved, copies included, is
// CallNs.
type ModelPrediction struct {
	Kernels       int        // kernels saved
	Folds         int        // adds folded into a GEMM's epilogue
	Merged        []MergeSet // the kernels merged, two or more each
	DRAMFlushed   float64    // bytes saved, kernel-pass basis
	DRAMWarm      float64    // bytes saved, warm L2
	TimeNs        float64    // kernel time saved (what kernel sums see)
	CopyNs        float64    // time of the addend copies the folds add (no kernel: in no kernel sum)
	InPlace       []string   // intermediates written over in place while in L2 (rule 3)
	DRAMRate      float64    // bytes per ns the time figure uses
	LaunchNs      float64    // a kernel's fixed time beside its bytes (streamFit)
	Desc          []string   // what is merged or folded, by op
	L2Bytes       float64
	GradientStart int // first backward kernel (len(seq): none)
}

// CallNs is the GPU time the call saves: the kernel time saved less the
// addend copies' time (a device-to-device copy runs on the GPU between
// kernels).
func (p ModelPrediction) CallNs() float64 { return p.TimeNs - p.CopyNs }

// MergeSet is one set of kernels InductorModel merges into one.
type MergeSet struct {
	Kernels     []int    // positions in the launch sequence
	Ops         []string // their dataflow ops
	DRAMFlushed float64  // bytes saved, kernel-pass basis
	DRAMWarm    float64  // bytes saved, warm L2
	TimeNs      float64  // time saved
	KernelsNs   float64  // the kernels' summed time
}

// addmmCopy is the warm-L2 DRAM bytes the copy of an addend of size s
// into the output of GEMM g costs beyond the add it replaces: none where
// the copy's lines stay in L2 until the GEMM's epilogue reads and
// overwrites them (s and the GEMM's own DRAM bytes fit the L2), else the
// copy's write-back and the epilogue's read of it, 2s. (The copy's read of
// the addend replaces the add's read of it.)
func addmmCopy(s float64, g Kernel, l2 float64) float64 {
	if l2 > 0 && s+g.DRAMReadBytes+g.DRAMWriteBytes <= l2 {
		return 0
	}
	return 2 * s
}

// mergeSavings is what merging the kernels m (in: the same as a set)
// saves: DRAM bytes flushed and warm, and the kernels' summed time.
func mergeSavings(seq []Kernel, m []int, in map[int]bool, size map[string]float64, producer map[string]int, readers map[string][]int, output map[string]bool, warmRead func(string, int, int) float64) (flushed, warm, timeNs float64) {
	lastRead := map[string]int{} // tensor -> the last merged kernel that read it
	for _, j := range m {
		k := seq[j]
		timeNs += k.DurationNs
		for _, t := range k.Step.In {
			pi, produced := producer[t]
			internal := produced && in[pi]
			if prev, ok := lastRead[t]; ok || internal {
				from := pi
				if ok {
					from = prev
				}
				flushed += size[t]
				warm += warmRead(t, from, j)
			}
			lastRead[t] = j
		}
		for _, t := range k.Step.Out {
			if output[t] || len(readers[t]) == 0 {
				continue
			}
			all := true
			for _, r := range readers[t] {
				all = all && in[r]
			}
			if all {
				flushed += k.DRAMWriteBytes / float64(len(k.Step.Out))
				warm += size[t]
			}
		}
	}
	return flushed, warm, timeNs
}

// inductorExtern says whether Inductor runs a kernel as a library call or
// cannot merge it: scans and recurrences, and cuBLAS's split-K reduction.
func inductorExtern(k Kernel) bool {
	op := strings.ToLower(k.Step.Op)
	if strings.Contains(op, "splitk") {
		return true
	}
	for _, w := range scanWords {
		if strings.Contains(op, w) {
			return true
		}
	}
	return false
}

// isReductionOp says whether a dataflow op reduces (sum, norm, ...).
func isReductionOp(op string) bool {
	op = strings.ToLower(op)
	if slices.Contains(reductionOps, op) {
		return true
	}
	for _, w := range reductionWords {
		if strings.Contains(op, w) {
			return true
		}
	}
	return false
}

func countReductions(seq []Kernel, set []int) int {
	n := 0
	for _, j := range set {
		if isReductionOp(seq[j].Step.Op) {
			n++
		}
	}
	return n
}

// detours says whether a kernel outside set both reads what set writes
// (through any chain of kernels) and writes what set reads: merging set
// into one kernel would have to run before and after it.
func detours(seq []Kernel, set []int, producer map[string]int) bool {
	in := map[int]bool{}
	for _, j := range set {
		in[j] = true
	}
	// down: kernels outside set reachable from set.
	down := map[int]bool{}
	for i := range seq {
		if in[i] {
			continue
		}
		for _, t := range seq[i].Step.In {
			if pi, ok := producer[t]; ok && (in[pi] || down[pi]) {
				down[i] = true
			}
		}
	}
	for _, j := range set {
		for _, t := range seq[j].Step.In {
			if pi, ok := producer[t]; ok && !in[pi] && down[pi] {
				return true
			}
		}
	}
	return false
}

// gradientStart is the first kernel reading d<Y> for an output Y that no
// kernel writes (len(seq): none).
func gradientStart(seq []Kernel, outputs []string, producer map[string]int) int {
	grad := map[string]bool{}
	for _, o := range outputs {
		if _, ok := producer["d"+o]; !ok {
			grad["d"+o] = true
		}
	}
	for i, k := range seq {
		for _, t := range k.Step.In {
			if grad[t] {
				return i
			}
		}
	}
	return len(seq)
}

// TensorSizes estimates the bytes of every tensor of a dataflow sequence
// from the kernel pass (see InductorModel).
func TensorSizes(seq []Kernel) map[string]float64 {
	size := map[string]float64{}
	pointwise := func(k Kernel) bool {
		return !k.GEMM && !isReductionOp(k.Step.Op) && !inductorExtern(k)
	}
	for changed := true; changed; {
		changed = false
		set := func(t string, v float64) {
			if _, ok := size[t]; !ok && v > 0 {
				size[t], changed = v, true
			}
		}
		for _, k := range seq {
			if !pointwise(k) {
				continue
			}
			var unknown []string
			known, largest := 0.0, 0.0
			for _, t := range k.Step.In {
				if v, ok := size[t]; ok {
					known += v
					largest = max(largest, v)
				} else if !slices.Contains(unknown, t) {
					unknown = append(unknown, t)
				}
			}
			switch {
			case len(unknown) == 1:
				set(unknown[0], k.DRAMReadBytes-known)
			case len(unknown) == 0 && largest > 0:
				for _, o := range k.Step.Out {
					set(o, largest)
				}
			}
		}
	}
	for _, k := range seq {
		for _, t := range k.Step.In {
			if _, ok := size[t]; !ok && !k.GEMM && len(k.Step.In) > 0 {
				size[t] = k.DRAMReadBytes / float64(len(k.Step.In))
			}
		}
	}
	for _, k := range seq {
		for _, t := range k.Step.Out {
			if _, ok := size[t]; !ok {
				size[t] = k.DRAMWriteBytes / float64(max(len(k.Step.Out), 1))
			}
		}
	}
	return size
}

// Models name, by experiment and variant, the candidates a compiler model
// predicts: InductorDefault for torch.compile's default mode (a
// description naming torch.compile and not max-autotune), and, for the
// baselines, whether the variant runs a backward.
type Models struct {
	Inductor map[[2]string]bool
	Backward map[[2]string]bool
}

// ModelsOf reads Models from the experiments' specs.
func ModelsOf(exps []*spec.Experiment) Models {
	m := Models{Inductor: map[[2]string]bool{}, Backward: map[[2]string]bool{}}
	for _, e := range exps {
		for _, v := range e.Variants {
			k := [2]string{e.Name, v.Name}
			d := strings.ToLower(v.Description)
			m.Inductor[k] = strings.Contains(d, "torch.compile") && !strings.Contains(d, "max-autotune")
			m.Backward[k] = v.Backward
		}
	}
	return m
}

// streamFit fits t = t0 + bytes/rate (least squares) over the kernels of
// seq without tensor work that move DRAM bytes: a streaming kernel's fixed
// time (launch, ramp, tail) and the DRAM rate it streams at. Where the fit
// has no positive slope or fewer than two kernels, rate is the fastest
// kernel's (read+write)/duration and t0 is 0.
func streamFit(seq []Kernel) (rate, t0 float64) {
	var xs, ys []float64
	for _, k := range seq {
		if b := k.DRAMReadBytes + k.DRAMWriteBytes; !k.GEMM && b > 0 && k.DurationNs > 0 {
			xs, ys = append(xs, b), append(ys, k.DurationNs)
			rate = max(rate, b/k.DurationNs)
		}
	}
	if len(xs) < 2 {
		return rate, 0
	}
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if den <= 0 {
		return rate, 0
	}
	slope := (n*sxy - sx*sy) / den
	if slope <= 0 {
		return rate, 0
	}
	return 1 / slope, max(0, (sy-slope*sx)/n)
}

// Merges lists the merges InductorModel makes in a cell whose
// variant states its dataflow (none otherwise): one Chain per merged set,
// Basis BasisMerge, its first kernel as Producer and the others as
// Folded; FoldedTimeNs the set's summed time, TimeSavedNs and
// DRAMSavedBytes (kernel pass) what merging saves. l2 is the L2 size.
func Merges(c analysis.CellFact, kfacts []analysis.KernelFact, flows Flows, models Models, l2 float64) []Chain {
	key := [2]string{c.Experiment, c.Variant}
	flow := flows[key]
	if flow == nil {
		return nil
	}
	seq, note := CellSequence(c, kfacts, flow)
	if note != "" {
		return nil
	}
	p, ok := PredictInductor(seq, flow.Outputs, models.Backward[key], l2, 0)
	if !ok {
		return nil
	}
	var out []Chain
	for _, m := range p.Merged {
		ch := Chain{Range: c.Key().String(), Index: m.Kernels[0], Producer: seq[m.Kernels[0]].Name, Basis: BasisMerge,
			KernelsSaved: len(m.Kernels) - 1, FoldedTimeNs: m.KernelsNs, TimeSavedNs: m.TimeNs, TimeSavedKnown: true,
			DRAMSavedBytes: m.DRAMFlushed, DRAMSavedWarmBytes: m.DRAMWarm, DRAMKnown: true, Edges: []ChainEdge{},
			Note: "merged into one kernel by Inductor's rules (torch.compile default mode; see the model)"}
		for _, j := range m.Kernels {
			ch.DRAMKnown = ch.DRAMKnown && seq[j].BytesKnown
			if j != m.Kernels[0] {
				ch.Folded = append(ch.Folded, seq[j].Name)
			}
		}
		if !ch.DRAMKnown {
			ch.DRAMSavedBytes, ch.DRAMSavedWarmBytes, ch.TimeSavedNs, ch.TimeSavedKnown = 0, 0, 0, false
		}
		out = append(out, ch)
	}
	return out
}
