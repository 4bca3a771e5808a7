package analysis

import (
	"math"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
)

// SuggestModel states how FindChains predicts what fusing a chain saves.
const SuggestModel = `A chain is a GEMM (a kernel with tensor work; without FLOP counters, one
whose name holds nvjet, cutlass, gemm, xmma or cublas) followed, on the same
stream and within the same NVTX range, by one or more kernels with no tensor
work (elementwise or reduction), up to the next GEMM. Fusing folds those
kernels into the GEMM's epilogue:
  kernels saved  = the number of folded kernels.
  GPU time saved = the sum of their durations, the epilogue's own cost in
                   the GEMM counted as nothing. Not a bound: a fused kernel
                   that also changes its main loop can save more (swiglu_fp8
                   dual-acc: 4.0 us predicted, 8.7 us measured) or less.
  DRAM saved     = over every producer -> consumer edge of the chain (GEMM ->
                   1st folded, 1st -> 2nd, ...) the intermediate's write by
                   the producer and its read by the consumer: the GEMM's DRAM
                   write, plus for each folded kernel min(its DRAM read, its
                   producer's DRAM write), plus the DRAM write of each folded
                   kernel but the last (the fused kernel still writes the
                   last output). Reads of other operands stay. Intermediates
                   are assumed read only within the chain.
Bytes are the ncu kernel pass's (L2 flushed before each kernel): an
intermediate that would stay in L2 overstates the saving, and writes that
stay in L2 past a small kernel's end (dram__bytes_write near 0) understate
it. Without ncu bytes for every kernel of a chain its DRAM saving is unknown.`

// SuggestKernel is one kernel of a launch sequence FindChains walks.
type SuggestKernel struct {
	Name           string
	DurationNs     float64
	GEMM           bool    // the kernel does tensor work (or its name says GEMM)
	DRAMReadBytes  float64 // ncu kernel pass
	DRAMWriteBytes float64
	BytesKnown     bool // the two above were measured
}

// Chain is a GEMM and the kernels without tensor work that follow it, which
// a fusion into the GEMM's epilogue could collapse into one kernel.
type Chain struct {
	Range          string   `json:"range"` // NVTX range path, or experiment/variant/shape of a run's cell; "" none
	Stream         int64    `json:"stream"`
	Index          int      `json:"index"` // position of the producer in its launch sequence
	Producer       string   `json:"producer"`
	Folded         []string `json:"folded"`
	KernelsSaved   int      `json:"kernels_saved"`
	TimeSavedNs    float64  `json:"gpu_time_saved_ns"` // the folded kernels' durations (not a bound)
	DRAMSavedBytes float64  `json:"dram_saved_bytes"`
	DRAMKnown      bool     `json:"dram_known"`
}

// IsGEMM says whether a kernel is a GEMM: tensor FLOPs where the export
// counts them (flopsKnown), else its name. cuBLAS's split-K reduction is
// no GEMM.
func IsGEMM(name string, tensorFLOPs float64, flopsKnown bool) bool {
	if flopsKnown {
		return tensorFLOPs > 0
	}
	n := strings.ToLower(name)
	if strings.Contains(n, "splitkreduce") {
		return false
	}
	for _, s := range []string{"nvjet", "cutlass", "gemm", "xmma", "cublas"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// FindChains walks one launch sequence (one stream, one range, in launch
// order) and returns its chains, each with its predicted savings
// (SuggestModel).
func FindChains(rangePath string, stream int64, seq []SuggestKernel) []Chain {
	var out []Chain
	for i := 0; i < len(seq); i++ {
		if !seq[i].GEMM {
			continue
		}
		j := i + 1
		for j < len(seq) && !seq[j].GEMM {
			j++
		}
		if j == i+1 {
			continue
		}
		out = append(out, chainOf(rangePath, stream, i, seq[i:j]))
		i = j - 1
	}
	return out
}

// chainOf predicts the savings of fusing seq[1:] into seq[0].
func chainOf(rangePath string, stream int64, index int, seq []SuggestKernel) Chain {
	c := Chain{Range: rangePath, Stream: stream, Index: index, Producer: seq[0].Name, DRAMKnown: true}
	c.DRAMSavedBytes = seq[0].DRAMWriteBytes
	for i, k := range seq[1:] {
		c.Folded = append(c.Folded, k.Name)
		c.KernelsSaved++
		c.TimeSavedNs += k.DurationNs
		c.DRAMSavedBytes += math.Min(k.DRAMReadBytes, seq[i].DRAMWriteBytes)
		if i+2 < len(seq) {
			c.DRAMSavedBytes += k.DRAMWriteBytes
		}
	}
	for _, k := range seq {
		if !k.BytesKnown {
			c.DRAMKnown, c.DRAMSavedBytes = false, 0
			break
		}
	}
	return c
}

// SuggestTables finds the chains of ingested exports: kernels of the
// timeline (nsys, Kineto) where there is one, else of the ncu kernel pass,
// grouped by file, device, stream and NVTX range path. facts (may be nil)
// are the KernelFacts of the same tables, for tensor work and DRAM bytes.
func SuggestTables(t *ingest.Tables, facts []KernelFact) []Chain {
	byID := map[int64]*KernelFact{}
	for i := range facts {
		byID[facts[i].KernelID] = &facts[i]
	}
	var timeline, ncu []ingest.Kernel
	for _, k := range t.Kernels() {
		switch {
		case k.Pass == ingest.PassTimeline:
			timeline = append(timeline, k)
		case k.Source == ingest.SourceNCU && k.Pass != ingest.PassRange:
			ncu = append(ncu, k)
		}
	}
	ks := timeline
	if len(ks) == 0 {
		ks = ncu
	}
	type key struct {
		file   string
		device int32
		stream int64
		rng    string
	}
	groups := map[key][]ingest.Kernel{}
	var keys []key
	for _, k := range ks {
		g := key{k.File, k.Device, k.Stream, k.RangePath}
		if _, ok := groups[g]; !ok {
			keys = append(keys, g)
		}
		groups[g] = append(groups[g], k)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.rng != b.rng {
			return a.rng < b.rng
		}
		if a.device != b.device {
			return a.device < b.device
		}
		return a.stream < b.stream
	})
	var out []Chain
	for _, g := range keys {
		list := groups[g]
		sort.SliceStable(list, func(i, j int) bool { return list[i].StartNs < list[j].StartNs })
		seq := make([]SuggestKernel, len(list))
		for i, k := range list {
			sk := SuggestKernel{Name: k.Name, DurationNs: float64(k.DurationNs)}
			if f := byID[k.ID]; f != nil {
				sk.GEMM = IsGEMM(k.Name, f.TensorFLOPs, f.FLOPsKnown)
				sk.DRAMReadBytes, sk.DRAMWriteBytes = f.DRAMReadBytes, f.DRAMWriteBytes
				sk.BytesKnown = f.DRAMReadBytes > 0 || f.DRAMWriteBytes > 0
				if sk.DurationNs == 0 {
					sk.DurationNs = f.DurationNs
				}
			} else {
				sk.GEMM = IsGEMM(k.Name, 0, false)
			}
			seq[i] = sk
		}
		out = append(out, FindChains(g.rng, g.stream, seq)...)
	}
	return out
}

// CellSequence is a cell's launch sequence (CellFact.KernelNames and
// KernelTimesNs) with the tensor work and DRAM bytes of the ncu kernel
// pass, matched by name in launch order (where the names are spelt apart
// and the counts agree, by position). kfacts may hold
// other cells' facts: only the cell's own are used.
func CellSequence(c CellFact, kfacts []KernelFact) []SuggestKernel {
	queue := map[string][]*KernelFact{}
	var own []*KernelFact
	for i := range kfacts {
		f := &kfacts[i]
		if f.Experiment != c.Experiment || f.Variant != c.Variant || f.Shape != c.Shape {
			continue
		}
		queue[f.Name] = append(queue[f.Name], f)
		own = append(own, f)
	}
	used := map[*KernelFact]bool{}
	take := func(m map[string][]*KernelFact, name string) *KernelFact {
		for _, f := range m[name] {
			if !used[f] {
				used[f] = true
				return f
			}
		}
		return nil
	}
	seq := make([]SuggestKernel, len(c.KernelNames))
	for i, name := range c.KernelNames {
		sk := SuggestKernel{Name: name}
		if i < len(c.KernelTimesNs) {
			sk.DurationNs = c.KernelTimesNs[i]
		}
		f := take(queue, name)
		if f == nil && len(own) == len(c.KernelNames) && !used[own[i]] {
			f = own[i] // same count, names spelt apart: launch order
			used[f] = true
		}
		if f != nil {
			sk.GEMM = IsGEMM(name, f.TensorFLOPs, f.FLOPsKnown)
			sk.DRAMReadBytes, sk.DRAMWriteBytes = f.DRAMReadBytes, f.DRAMWriteBytes
			sk.BytesKnown = f.DRAMReadBytes > 0 || f.DRAMWriteBytes > 0
		} else {
			sk.GEMM = IsGEMM(name, 0, false)
		}
		seq[i] = sk
	}
	return seq
}

// SuggestCell finds the chains of one cell of a run.
func SuggestCell(c CellFact, kfacts []KernelFact) []Chain {
	return FindChains(c.Key().String(), 0, CellSequence(c, kfacts))
}

// SuggestCheck sets the savings predicted for a baseline cell's chains
// against what a fused candidate of the same run measured at the same
// shape (baseline minus candidate).
type SuggestCheck struct {
	Experiment string `json:"experiment"`
	Shape      string `json:"shape"`
	Baseline   string `json:"baseline"`
	Candidate  string `json:"candidate"`
	Chains     int    `json:"chains"`

	PredKernels int `json:"predicted_kernels_saved"`
	MeasKernels int `json:"measured_kernels_saved"`
	ErrKernels  int `json:"kernels_error"` // predicted - measured

	PredDRAMBytes float64 `json:"predicted_dram_saved_bytes"`
	MeasDRAMBytes float64 `json:"measured_dram_saved_bytes"`
	DRAMKnown     bool    `json:"dram_known"`               // both sides have bytes
	ErrDRAMPct    float64 `json:"dram_error_pct,omitempty"` // (predicted - measured) / |measured|, %

	PredTimeNs float64 `json:"predicted_gpu_time_saved_ns"`
	MeasTimeNs float64 `json:"measured_gpu_time_saved_ns"`
	ErrTimePct float64 `json:"gpu_time_error_pct"`

	Note string `json:"note,omitempty"` // how the measured DRAM bytes were taken, where not the range pass
}

// BaselineKey is the cell of the check's baseline.
func (s SuggestCheck) BaselineKey() cellkey.Key {
	return cellkey.New(s.Experiment, s.Baseline, s.Shape)
}

// CandidateKey is the cell of the check's candidate.
func (s SuggestCheck) CandidateKey() cellkey.Key {
	return cellkey.New(s.Experiment, s.Candidate, s.Shape)
}

// CheckSuggestions predicts the savings of every baseline cell of r that
// has chains and sets them against each candidate it is compared with
// (r.Comparisons: the spec's pairing, so forward+backward candidates meet
// the forward+backward baseline) whose kernel sequence was measured.
func CheckSuggestions(r *Run) []SuggestCheck {
	cells := map[cellkey.Key]*CellFact{}
	for i := range r.Cells {
		c := &r.Cells[i]
		cells[c.Key()] = c
	}
	var out []SuggestCheck
	for _, cmp := range r.Comparisons {
		b, c := cells[cmp.BaselineKey()], cells[cmp.CandidateKey()]
		if b == nil || c == nil || b.Status != "ok" || c.Status != "ok" || b.Kernels == 0 || c.Kernels == 0 {
			continue
		}
		chains := SuggestCell(*b, r.Kernels)
		if len(chains) == 0 {
			continue
		}
		s := SuggestCheck{Experiment: b.Experiment, Shape: b.Shape, Baseline: b.Variant, Candidate: c.Variant,
			Chains: len(chains), MeasKernels: b.Kernels - c.Kernels, MeasTimeNs: b.GPUTimeNs - c.GPUTimeNs}
		known := true
		for _, ch := range chains {
			s.PredKernels += ch.KernelsSaved
			s.PredTimeNs += ch.TimeSavedNs
			s.PredDRAMBytes += ch.DRAMSavedBytes
			known = known && ch.DRAMKnown
		}
		s.ErrKernels = s.PredKernels - s.MeasKernels
		s.ErrTimePct = errPct(s.PredTimeNs, s.MeasTimeNs)
		bd, bnote := b.DRAM()
		cd, cnote := c.DRAM()
		if known && bd > 0 && cd > 0 {
			s.DRAMKnown = true
			s.MeasDRAMBytes = bd - cd
			s.ErrDRAMPct = errPct(s.PredDRAMBytes, s.MeasDRAMBytes)
		} else {
			s.PredDRAMBytes = 0
		}
		switch {
		case bnote != "":
			s.Note = "baseline DRAM " + bnote
		case cnote != "":
			s.Note = "candidate DRAM " + cnote
		}
		out = append(out, s)
	}
	return out
}

// errPct is (pred - meas) / |meas| in percent; 0 where meas is 0.
func errPct(pred, meas float64) float64 {
	if meas == 0 {
		return 0
	}
	return (pred - meas) / math.Abs(meas) * 100
}
