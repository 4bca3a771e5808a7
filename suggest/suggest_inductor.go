package suggest

import (
	"math"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/analysis"
)

// PredictInductor applies InductorModel to a baseline's launch sequence,
// every kernel with its dataflow step; outputs are the call's outputs,
// backward says the variant runs a backward, l2 is the L2 size in bytes
// (0: every read charged) and rate the fallback DRAM rate in bytes per ns
// (where the baseline has no kernel without tensor work). ok is false
// where seq has no dataflow.
func PredictInductor(seq []Kernel, outputs []string, backward bool, l2, rate float64) (ModelPrediction, bool) {
	for _, k := range seq {
		if k.Step == nil {
			return ModelPrediction{}, false
		}
	}
	fl := newInductorFlow(seq, outputs, l2)
	p := ModelPrediction{L2Bytes: l2, GradientStart: len(seq)}
	if backward {
		p.GradientStart = gradientStart(seq, outputs, fl.producer)
	}
	p.DRAMRate, p.LaunchNs = streamFit(seq)
	if p.DRAMRate == 0 {
		p.DRAMRate = rate
	}
	folded := fl.foldAddmms(&p) // rule (1)
	sets := fl.mergeSets(folded, p.GradientStart)
	for _, m := range sets { // rule (2)
		fl.merge(&p, m)
	}
	fl.inPlace(&p, folded, sets) // rule (3)
	p.Kernels += p.Folds
	return p, true
}

// inductorFlow is the dataflow of a launch sequence as PredictInductor
// reads it: each tensor's size, producer (index into seq), readers, and
// whether the call returns it.
type inductorFlow struct {
	seq      []Kernel
	l2       float64
	size     map[string]float64
	producer map[string]int
	readers  map[string][]int
	output   map[string]bool
}

// newInductorFlow reads the dataflow of seq, whose call returns outputs, on
// a GPU with l2 bytes of L2 (0: every read charged).
func newInductorFlow(seq []Kernel, outputs []string, l2 float64) *inductorFlow {
	fl := &inductorFlow{seq: seq, l2: l2, size: TensorSizes(seq),
		producer: map[string]int{}, readers: map[string][]int{}, output: map[string]bool{}}
	for i, k := range seq {
		for _, o := range k.Step.Out {
			fl.producer[o] = i
		}
		for _, in := range k.Step.In {
			fl.readers[in] = append(fl.readers[in], i)
		}
	}
	for _, o := range outputs {
		fl.output[o] = true
	}
	return fl
}

// between is the DRAM bytes of the kernels launched strictly between a and b.
func (fl *inductorFlow) between(a, b int) float64 {
	s := 0.0
	for j := a + 1; j < b; j++ {
		s += fl.seq[j].DRAMReadBytes + fl.seq[j].DRAMWriteBytes
	}
	return s
}

// warmRead is the warm-L2 DRAM bytes of reading tensor t, written by kernel
// from, again in kernel to: none where it and the bytes between fit the L2.
func (fl *inductorFlow) warmRead(t string, from, to int) float64 {
	if fl.l2 > 0 && fl.size[t]+fl.between(from, to) <= fl.l2 {
		return 0
	}
	return fl.size[t]
}

// atRate is the time in ns of moving b bytes at p's DRAM rate (0 where p has
// none).
func atRate(p *ModelPrediction, b float64) float64 {
	if p.DRAMRate <= 0 {
		return 0
	}
	return b / p.DRAMRate
}

// foldAddmms applies rule (1): each add of a GEMM's output that only it
// reads, not returned, with an addend written before that GEMM, folds into
// the GEMM's epilogue; p gains its savings. It returns the folded adds.
func (fl *inductorFlow) foldAddmms(p *ModelPrediction) map[int]bool {
	seq, size := fl.seq, fl.size
	folded := map[int]bool{}
	for i, k := range seq {
		if strings.ToLower(k.Step.Op) != "add" || len(k.Step.In) != 2 || len(k.Step.Out) != 1 {
			continue
		}
		g, addend := -1, ""
		for ai, in := range k.Step.In {
			pi, ok := fl.producer[in]
			if !ok || !seq[pi].GEMM || fl.output[in] || len(fl.readers[in]) != 1 || len(seq[pi].Step.Out) != 1 {
				continue
			}
			other := k.Step.In[1-ai]
			if po, ok := fl.producer[other]; ok && po > pi {
				continue // the addend is written after the GEMM
			}
			if pi > g {
				g, addend = pi, other
			}
		}
		if g < 0 {
			continue
		}
		folded[i] = true
		p.Folds++
		t := seq[g].Step.Out[0]
		p.DRAMFlushed += seq[g].DRAMWriteBytes + size[t]
		p.DRAMWarm += size[t] + fl.warmRead(t, g, i) - addmmCopy(size[t], seq[g], fl.l2)
		p.TimeNs += k.DurationNs - epilogueNs(seq[g], size[addend], p.DRAMRate)
		p.CopyNs += atRate(p, 2*size[addend])
		p.Desc = append(p.Desc, seq[g].Step.Op+"->add")
	}
	return folded
}

// mergeSets applies rule (2): it joins producer -> consumer edges in launch
// order between kernels that are neither GEMMs, folded adds nor library
// calls, on the same side of gradientStart, where the joined set has at
// most one reduction and no detour. It returns the sets of two kernels or
// more, each in launch order, in the order of their first kernel.
func (fl *inductorFlow) mergeSets(folded map[int]bool, gradientStart int) [][]int {
	seq := fl.seq
	node := func(i int) bool {
		return !seq[i].GEMM && !folded[i] && !inductorExtern(seq[i])
	}
	group := make([]int, len(seq))
	for i := range group {
		group[i] = i
	}
	find := func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	members := func(r int) []int {
		var m []int
		for j := range seq {
			if find(j) == r {
				m = append(m, j)
			}
		}
		return m
	}
	for c := range seq {
		if !node(c) {
			continue
		}
		for _, in := range seq[c].Step.In {
			pi, ok := fl.producer[in]
			if !ok || !node(pi) || (pi < gradientStart) != (c < gradientStart) {
				continue
			}
			a, b := find(pi), find(c)
			if a == b {
				continue
			}
			set := append(members(a), members(b)...)
			if countReductions(seq, set) > 1 || detours(seq, set, fl.producer) {
				continue
			}
			group[b] = a
		}
	}
	var sets [][]int
	seen := map[int]bool{}
	for i := range seq {
		r := find(i)
		if seen[r] {
			continue
		}
		seen[r] = true
		if m := members(r); len(m) >= 2 {
			sets = append(sets, m)
		}
	}
	return sets
}

// merge adds to p the merge of kernels m: one kernel instead of len(m),
// the DRAM bytes no longer written and read (kernel-pass basis and warm
// L2), and the time saved, the merged kernel charged a launch and its DRAM
// bytes at p's rate.
func (fl *inductorFlow) merge(p *ModelPrediction, m []int) {
	seq := fl.seq
	p.Kernels += len(m) - 1
	in := map[int]bool{}
	var ops []string
	for _, j := range m {
		in[j] = true
		ops = append(ops, seq[j].Step.Op)
	}
	p.Desc = append(p.Desc, "merge("+strings.Join(ops, ",")+")")
	flushed, warm, timeNs := mergeSavings(seq, m, in, fl.size, fl.producer, fl.readers, fl.output, fl.warmRead)
	p.DRAMFlushed += flushed
	p.DRAMWarm += warm
	moved := -flushed
	for _, j := range m {
		moved += seq[j].DRAMReadBytes + seq[j].DRAMWriteBytes
	}
	saved := timeNs - p.LaunchNs - atRate(p, moved)
	p.TimeNs += saved
	p.Merged = append(p.Merged, MergeSet{Kernels: m, Ops: ops, DRAMFlushed: flushed, DRAMWarm: warm, TimeNs: saved, KernelsNs: timeNs})
}

// epilogueNs is what reading b more bytes in its epilogue adds to kernel
// k's time: k's time taken as the soft maximum (exponent
// SoftMaxExponent, the projection model's) of its DRAM term, its
// kernel-pass bytes at rate bytes per ns, and the rest (compute and
// latency, which the read leaves alone), the DRAM term grown by b / rate.
// A compute-bound GEMM hides most of the read; a memory-bound kernel pays
// nearly all of it. 0 where rate is unknown.
func epilogueNs(k Kernel, b, rate float64) float64 {
	if rate <= 0 || b <= 0 {
		return 0
	}
	n := float64(analysis.SoftMaxExponent)
	d := (k.DRAMReadBytes + k.DRAMWriteBytes) / rate
	t := math.Max(k.DurationNs, d)
	rest := math.Pow(math.Pow(t, n)-math.Pow(d, n), 1/n)
	return math.Pow(math.Pow(d+b/rate, n)+math.Pow(rest, n), 1/n) - t
}

// inPlace applies rule (3): each kernel Inductor generates (a merged set
// of sets, or one kernel that is neither a GEMM, a folded add nor a library
// call) writes an output over an intermediate it reads that no kernel
// outside it reads later and the call does not return, of the output's size (its
// in-place buffer reuse), one intermediate per output. Where the
// intermediate is still in L2 when the kernel reads it (warmRead: size +
// reuse distance within the L2), the overwrite lands on its dirty lines
// and its write-back is saved: p's warm figure gains its size. The kernel
// pass, which counts each kernel's own writes, sees no change.
func (fl *inductorFlow) inPlace(p *ModelPrediction, folded map[int]bool, sets [][]int) {
	seq := fl.seq
	kernels := append([][]int(nil), sets...)
	merged := map[int]bool{}
	for _, m := range sets {
		for _, j := range m {
			merged[j] = true
		}
	}
	for i := range seq {
		if !merged[i] && !seq[i].GEMM && !folded[i] && !inductorExtern(seq[i]) {
			kernels = append(kernels, []int{i})
		}
	}
	slices.SortStableFunc(kernels, func(a, b []int) int { return a[0] - b[0] })
	for _, m := range kernels {
		in := map[int]bool{}
		for _, j := range m {
			in[j] = true
		}
		var outs []string // written by the set and read after it or returned
		for _, j := range m {
			for _, o := range seq[j].Step.Out {
				if fl.output[o] || slices.ContainsFunc(fl.readers[o], func(r int) bool { return !in[r] }) {
					outs = append(outs, o)
				}
			}
		}
		used := map[string]bool{}
		for _, j := range m {
			for _, t := range seq[j].Step.In {
				pi, ok := fl.producer[t]
				if !ok || in[pi] || fl.output[t] || used[t] || slices.ContainsFunc(fl.readers[t], func(r int) bool { return !in[r] && r > j }) {
					continue // a call input, written inside the set, returned, taken, or read later
				}
				k := slices.IndexFunc(outs, func(o string) bool { return fl.size[o] == fl.size[t] })
				if k < 0 {
					continue
				}
				used[t], outs = true, slices.Delete(outs, k, k+1)
				if fl.warmRead(t, pi, j) == 0 {
					p.DRAMWarm += fl.size[t]
					p.InPlace = append(p.InPlace, t)
				}
			}
		}
	}
	if len(p.InPlace) > 0 {
		p.Desc = append(p.Desc, "in place("+strings.Join(p.InPlace, ",")+")")
	}
}
