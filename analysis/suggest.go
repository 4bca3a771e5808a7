package analysis

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/kernels"
)

// SuggestModel states how FindChains builds chains and predicts what
// fusing them saves.
const SuggestModel = `A chain is a GEMM (a kernel with tensor work; without FLOP counters, one
whose name holds nvjet, cutlass, gemm, xmma or cublas) and the kernels
without tensor work that a fusion could fold into its epilogue. Where the
variant's spec states its dataflow (which kernel reads which one's output)
the chain follows it: a kernel joins when it reads the GEMM's output or a
member's, and every other tensor it reads is an input of the call or was
written before the GEMM (the epilogue reads it as an operand); a kernel
reading the outputs of two GEMMs joins the later one. Without a dataflow
(exports, and variants whose spec states none) the chain follows launch
order, from the GEMM up to the next GEMM, and says so in every row: a
folded kernel may not read the GEMM's output; such chains are ranked after
the dataflow ones.
Not offered as folds (and named, with the reason): scans and recurrences
(name holds scan, cumsum, recurrent, hgrn or chunk, or the dataflow op does),
reductions across the GEMM's output tile (name holds reduce, norm or
softmax, an Inductor persistent or split reduction triton_per_/triton_red_,
or the op is one), and kernels whose grid has fewer blocks than the GPU has
SMs yet run 10 us or more (ncu: sequential work no per-tile epilogue can
hold). A refused kernel ends a launch-order chain.
  kernels saved  = the number of folded kernels.
  folded time    = the sum of their durations: what folding saves if the
                   epilogue costs the GEMM nothing. Not a bound: a fused
                   kernel that also changes its main loop can save more
                   (swiglu_fp8 dual-acc merges the two GEMMs), one whose
                   epilogue slows the GEMM less.
  DRAM saved     = over every producer -> folded kernel edge, the folded
                   kernel's read of the intermediate plus the producer's
                   write of it where it is not an output of the call and no
                   kernel outside the chain reads it. Dataflow: the write
                   is the producer's DRAM write split over its outputs; the
                   read the larger of that and the consumer's DRAM read
                   split over its inputs, at most what it has left to read.
                   Launch order: the read is min(the consumer's read, the
                   producer's write), and every write but the last
                   kernel's is saved. Reads of other operands stay.
Bytes are the ncu kernel pass's (L2 flushed before each kernel): an
intermediate that would stay in L2 overstates the saving, and writes that
stay in L2 past a small kernel's end (dram__bytes_write near 0) understate
it. Without ncu bytes for every kernel of a chain its DRAM saving is unknown.`

// Bases of a chain.
const (
	BasisDataflow    = "dataflow"
	BasisLaunchOrder = "launch order"
)

// SuggestKernel is one kernel of a launch sequence FindChains walks.
type SuggestKernel struct {
	Name           string
	DurationNs     float64
	GEMM           bool    // the kernel does tensor work (or its name says GEMM)
	DRAMReadBytes  float64 // ncu kernel pass
	DRAMWriteBytes float64
	BytesKnown     bool  // the two above were measured
	GridBlocks     int64 // blocks of its grid (ncu; 0: unknown)
	// Step is its dataflow step (nil: no dataflow).
	Step *kernels.FlowStep
}

// Chain is a GEMM and the kernels without tensor work a fusion into the
// GEMM's epilogue could collapse into it.
type Chain struct {
	Range          string      `json:"range"` // NVTX range path, or experiment/variant/shape of a run's cell; "" none
	Stream         int64       `json:"stream"`
	Index          int         `json:"index"` // position of the producer in its launch sequence
	Producer       string      `json:"producer"`
	Folded         []string    `json:"folded"`
	KernelsSaved   int         `json:"kernels_saved"`
	FoldedTimeNs   float64     `json:"folded_time_ns"` // the folded kernels' durations (not a bound)
	DRAMSavedBytes float64     `json:"dram_saved_bytes"`
	DRAMKnown      bool        `json:"dram_known"`
	Basis          string      `json:"basis"`              // dataflow | launch order
	Operands       []string    `json:"operands,omitempty"` // dataflow: tensors from outside the chain the epilogue reads
	Edges          []ChainEdge `json:"edges"`
	Note           string      `json:"note,omitempty"`
}

// ChainEdge is one producer -> folded kernel edge of a chain and the DRAM
// bytes folding it saves.
type ChainEdge struct {
	From            int     `json:"from"` // positions in the launch sequence
	To              int     `json:"to"`
	FromOp          string  `json:"from_op,omitempty"` // dataflow ops
	ToOp            string  `json:"to_op,omitempty"`
	Tensor          string  `json:"tensor,omitempty"` // dataflow: the intermediate
	ReadSavedBytes  float64 `json:"read_saved_bytes"`
	WriteSavedBytes float64 `json:"write_saved_bytes"`
}

// NotOffered is a kernel that reads a chain's output but is not offered as
// a fold, and why.
type NotOffered struct {
	Range  string `json:"range"`
	Index  int    `json:"index"`
	Kernel string `json:"kernel"`
	Reason string `json:"reason"`
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

// SuggestOptions tune FindChains.
type SuggestOptions struct {
	// SMs is the GPU's SM count for the grid rule of FoldBlock (0: the rule
	// is not applied).
	SMs int
	// Outputs are the tensors the call returns (dataflow), written whatever
	// is fused.
	Outputs []string
	// Note is said of every chain (why its basis is what it is).
	Note string
}

// Patterns of kernel names and dataflow ops that FoldBlock refuses.
var (
	scanWords      = []string{"scan", "cumsum", "cumprod", "recurrent", "hgrn", "chunk"}
	reductionWords = []string{"reduce", "norm", "softmax"}
	reductionOps   = []string{"sum", "mean", "max", "min", "amax", "argmax", "topk", "sort", "var", "std", "logsumexp"}
)

// FoldBlock says why kernel k cannot be folded into a GEMM's epilogue, or
// "" (see SuggestModel).
func FoldBlock(k SuggestKernel, sms int) string {
	n := strings.ToLower(k.Name)
	op := ""
	if k.Step != nil {
		op = strings.ToLower(k.Step.Op)
	}
	for _, w := range scanWords {
		if strings.Contains(n, w) || strings.Contains(op, w) {
			return "a scan or recurrence (" + w + "): sequential along the axis the GEMM's tiles split"
		}
	}
	for _, w := range reductionWords {
		if strings.Contains(n, w) || strings.Contains(op, w) {
			return "a reduction (" + w + "): it needs whole rows across the GEMM's output tiles"
		}
	}
	if strings.HasPrefix(n, "triton_per_") || strings.HasPrefix(n, "triton_red_") {
		return "an Inductor reduction (" + n[:10] + "): it needs whole rows across the GEMM's output tiles"
	}
	if slices.Contains(reductionOps, op) {
		return "a reduction (" + op + "): it needs whole rows across the GEMM's output tiles"
	}
	if sms > 0 && k.GridBlocks > 0 && k.GridBlocks < int64(sms) && k.DurationNs >= 10e3 {
		return fmt.Sprintf("a grid of %d blocks, fewer than the %d SMs, running %.1f us (ncu): sequential work no per-tile epilogue holds", k.GridBlocks, sms, k.DurationNs/1e3)
	}
	return ""
}

// FindChains finds the chains of one launch sequence (one stream, one
// range, in launch order): by dataflow where every kernel of seq has its
// Step, else by launch order; with the kernels it refused.
func FindChains(rangePath string, stream int64, seq []SuggestKernel, opt SuggestOptions) ([]Chain, []NotOffered) {
	flow := len(seq) > 0
	for _, k := range seq {
		flow = flow && k.Step != nil
	}
	var cs []Chain
	var no []NotOffered
	if flow {
		cs, no = dataflowChains(seq, opt)
	} else {
		cs, no = launchOrderChains(seq, opt)
	}
	for i := range cs {
		cs[i].Range, cs[i].Stream = rangePath, stream
		if cs[i].Note == "" {
			cs[i].Note = opt.Note
		}
	}
	for i := range no {
		no[i].Range = rangePath
	}
	return cs, no
}

// launchOrderChains: each GEMM and the kernels after it up to the next
// GEMM or the first refused kernel.
func launchOrderChains(seq []SuggestKernel, opt SuggestOptions) ([]Chain, []NotOffered) {
	var out []Chain
	var no []NotOffered
	for i := 0; i < len(seq); i++ {
		if !seq[i].GEMM {
			continue
		}
		j := i + 1
		for j < len(seq) && !seq[j].GEMM {
			if r := FoldBlock(seq[j], opt.SMs); r != "" {
				no = append(no, NotOffered{Index: j, Kernel: seq[j].Name, Reason: r})
				break
			}
			j++
		}
		if j > i+1 {
			c := Chain{Index: i, Producer: seq[i].Name, DRAMKnown: true, Basis: BasisLaunchOrder}
			for m := i + 1; m < j; m++ {
				k, prev := seq[m], seq[m-1]
				c.Folded = append(c.Folded, k.Name)
				c.KernelsSaved++
				c.FoldedTimeNs += k.DurationNs
				e := ChainEdge{From: m - 1, To: m, ReadSavedBytes: math.Min(k.DRAMReadBytes, prev.DRAMWriteBytes), WriteSavedBytes: prev.DRAMWriteBytes}
				c.Edges = append(c.Edges, e)
			}
			finish(&c, seq[i:j])
			out = append(out, c)
		}
		for i+1 < len(seq) && !seq[i+1].GEMM {
			i++
		}
	}
	return out, no
}

// dataflowChains: for each GEMM in launch order, the kernels after it that
// read its output or a member's and nothing written after the GEMM by a
// kernel outside the chain.
func dataflowChains(seq []SuggestKernel, opt SuggestOptions) ([]Chain, []NotOffered) {
	producer := map[string]int{}
	consumers := map[string][]int{}
	for i, k := range seq {
		for _, o := range k.Step.Out {
			producer[o] = i
		}
		for _, in := range k.Step.In {
			consumers[in] = append(consumers[in], i)
		}
	}
	output := map[string]bool{}
	for _, o := range opt.Outputs {
		output[o] = true
	}
	member := map[int]bool{}
	refused := map[int]string{}
	var out []Chain
	for g, gk := range seq {
		if !gk.GEMM {
			continue
		}
		inChain := map[string]int{} // tensor -> its producer in the chain
		for _, o := range gk.Step.Out {
			inChain[o] = g
		}
		members := []int{}
		operands := []string{}
		for j := g + 1; j < len(seq); j++ {
			k := seq[j]
			if k.GEMM || member[j] {
				continue
			}
			var uses, others []string
			for _, in := range k.Step.In {
				if _, ok := inChain[in]; ok {
					uses = append(uses, in)
				} else {
					others = append(others, in)
				}
			}
			if len(uses) == 0 {
				continue
			}
			late := ""
			for _, in := range others {
				if p, ok := producer[in]; ok && p > g {
					late = fmt.Sprintf("it also reads %s, written after the GEMM by kernel %d (%s)", in, p, seq[p].Step.Op)
					break
				}
			}
			if late != "" {
				refused[j] = late
				continue
			}
			if r := FoldBlock(k, opt.SMs); r != "" {
				refused[j] = r
				continue
			}
			members = append(members, j)
			member[j] = true
			delete(refused, j)
			for _, in := range others {
				if !slices.Contains(operands, in) {
					operands = append(operands, in)
				}
			}
			for _, o := range k.Step.Out {
				inChain[o] = j
			}
		}
		if len(members) == 0 {
			continue
		}
		c := Chain{Index: g, Producer: gk.Name, DRAMKnown: true, Basis: BasisDataflow, Operands: operands}
		inSet := map[int]bool{g: true}
		for _, m := range members {
			inSet[m] = true
		}
		writeSaved := map[string]bool{}
		for _, m := range members {
			k := seq[m]
			c.Folded = append(c.Folded, k.Name)
			c.KernelsSaved++
			c.FoldedTimeNs += k.DurationNs
			left := k.DRAMReadBytes
			for _, in := range k.Step.In {
				p, ok := inChain[in]
				if !ok || p >= m {
					continue
				}
				pk := seq[p]
				// The producer's write of the intermediate as ncu counted it
				// (split over its outputs; writes left in L2 at its end go
				// uncounted), and the consumer's read of it: of its read,
				// the share of one input, or the producer's write where
				// larger (reads after the flush are all counted).
				w := pk.DRAMWriteBytes / float64(max(len(pk.Step.Out), 1))
				e := ChainEdge{From: p, To: m, FromOp: pk.Step.Op, ToOp: k.Step.Op, Tensor: in}
				e.ReadSavedBytes = math.Min(left, math.Max(w, k.DRAMReadBytes/float64(max(len(k.Step.In), 1))))
				left -= e.ReadSavedBytes
				if !output[in] && !writeSaved[in] {
					all := true
					for _, u := range consumers[in] {
						all = all && inSet[u]
					}
					if all {
						e.WriteSavedBytes = w
						writeSaved[in] = true
					}
				}
				c.Edges = append(c.Edges, e)
			}
		}
		chainSeq := []SuggestKernel{gk}
		for _, m := range members {
			chainSeq = append(chainSeq, seq[m])
		}
		finish(&c, chainSeq)
		out = append(out, c)
	}
	var no []NotOffered
	for j := range seq {
		if r, ok := refused[j]; ok && !member[j] {
			no = append(no, NotOffered{Index: j, Kernel: seq[j].Name, Reason: r})
		}
	}
	return out, no
}

// finish sums a chain's edges into its DRAM saving, unknown where a kernel
// of the chain lacks ncu bytes.
func finish(c *Chain, ks []SuggestKernel) {
	for _, e := range c.Edges {
		c.DRAMSavedBytes += e.ReadSavedBytes + e.WriteSavedBytes
	}
	for _, k := range ks {
		if !k.BytesKnown {
			c.DRAMKnown, c.DRAMSavedBytes = false, 0
			for i := range c.Edges {
				c.Edges[i].ReadSavedBytes, c.Edges[i].WriteSavedBytes = 0, 0
			}
			return
		}
	}
}

// RankChains orders chains for reading: dataflow chains before
// launch-order ones, each group as found.
func RankChains(cs []Chain) {
	sort.SliceStable(cs, func(i, j int) bool {
		return cs[i].Basis == BasisDataflow && cs[j].Basis != BasisDataflow
	})
}

// SuggestTables finds the chains of ingested exports: kernels of the
// timeline (nsys, Kineto) where there is one, else of the ncu kernel pass,
// grouped by file, device, stream and NVTX range path, in launch order
// (exports state no dataflow). facts (may be nil) are the KernelFacts of
// the same tables, for tensor work, DRAM bytes and grids; sms is the GPU's
// SM count (0: unknown).
func SuggestTables(t *ingest.Tables, facts []KernelFact, sms int) ([]Chain, []NotOffered) {
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
	var no []NotOffered
	opt := SuggestOptions{SMs: sms, Note: "an export states no dataflow: the chain follows launch order, and a folded kernel may not read the GEMM's output"}
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
				sk.GridBlocks = f.Launch.GridBlocks
				if sk.DurationNs == 0 {
					sk.DurationNs = f.DurationNs
				}
			} else {
				sk.GEMM = IsGEMM(k.Name, 0, false)
			}
			seq[i] = sk
		}
		cs, n := FindChains(g.rng, g.stream, seq, opt)
		out, no = append(out, cs...), append(no, n...)
	}
	RankChains(out)
	return out, no
}

// CellSequence is a cell's launch sequence (CellFact.KernelNames and
// KernelTimesNs) with the tensor work, DRAM bytes and grid of the ncu
// kernel pass, matched by name in launch order (where the names are spelt
// apart and the counts agree, by position), and the steps of flow where it
// has one per kernel (else none; the second value says why). kfacts may
// hold other cells' facts: only the cell's own are used.
func CellSequence(c CellFact, kfacts []KernelFact, flow *kernels.Dataflow) ([]SuggestKernel, string) {
	queue := map[string][]*KernelFact{}
	var own []*KernelFact
	for i := range kfacts {
		f := &kfacts[i]
		if f.Key() != c.Key() {
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
			sk.GridBlocks = f.Launch.GridBlocks
		} else {
			sk.GEMM = IsGEMM(name, 0, false)
		}
		seq[i] = sk
	}
	if flow == nil {
		return seq, "the variant's spec states no dataflow: the chain follows launch order, and a folded kernel may not read the GEMM's output"
	}
	steps, err := flow.Steps()
	if err != nil {
		return seq, "the variant's dataflow does not parse (" + err.Error() + "): the chain follows launch order"
	}
	if len(steps) != len(seq) {
		return seq, fmt.Sprintf("the variant's dataflow lists %d kernels, the cell ran %d: the chain follows launch order, and a folded kernel may not read the GEMM's output", len(steps), len(seq))
	}
	for i := range seq {
		if gemmOp(steps[i].Op) != seq[i].GEMM {
			return seq, fmt.Sprintf("kernel %d (%s) and the dataflow's step %q disagree on being a GEMM: the chain follows launch order", i, seq[i].Name, steps[i].Op)
		}
	}
	for i := range seq {
		seq[i].Step = &steps[i]
	}
	return seq, ""
}

// gemmOp says whether a dataflow op is a matrix product.
func gemmOp(op string) bool {
	switch strings.ToLower(op) {
	case "mm", "matmul", "addmm", "bmm", "baddbmm", "linear", "gemm", "scaled_mm", "_scaled_mm":
		return true
	}
	return false
}

// Flows are the dataflows of a run's variants, by experiment and variant.
type Flows map[[2]string]*kernels.Dataflow

// FlowsOf gathers the dataflows the experiments' specs state.
func FlowsOf(exps []*kernels.Experiment) Flows {
	out := Flows{}
	for _, e := range exps {
		for _, v := range e.Variants {
			if v.Dataflow != nil {
				out[[2]string{e.Name, v.Name}] = v.Dataflow
			}
		}
	}
	return out
}

// SuggestCell finds the chains of one cell of a run, by the dataflow flows
// state for its variant where it matches the cell's kernels, else by launch
// order; sms is the GPU's SM count (0: unknown).
func SuggestCell(c CellFact, kfacts []KernelFact, flows Flows, sms int) ([]Chain, []NotOffered) {
	flow := flows[[2]string{c.Experiment, c.Variant}]
	seq, note := CellSequence(c, kfacts, flow)
	opt := SuggestOptions{SMs: sms, Note: note}
	if flow != nil && note == "" {
		opt.Outputs = flow.Outputs
		if flow.From != "" {
			opt.Note = "dataflow " + flow.From
		}
	}
	return FindChains(c.Key().String(), 0, seq, opt)
}

// SuggestCheck sets the savings predicted for a baseline cell's chains
// against what a fused candidate of the same run measured at the same
// shape (baseline minus candidate). Predicted: all its chains; Fused: the
// edges of them the candidate's kernel names show it fused (Inductor's
// triton_*_fused_<ops> kernels, cuBLAS's epilogue variants), where its
// names tell (FusedKnown).
type SuggestCheck struct {
	Experiment string `json:"experiment"`
	Shape      string `json:"shape"`
	Baseline   string `json:"baseline"`
	Candidate  string `json:"candidate"`
	Chains     int    `json:"chains"`
	Basis      string `json:"basis"` // of the baseline's chains: dataflow | launch order

	PredKernels    int     `json:"predicted_kernels_saved"`
	PredDRAMBytes  float64 `json:"predicted_dram_saved_bytes"`
	PredFoldedNs   float64 `json:"predicted_folded_time_ns"`
	FusedKnown     bool    `json:"fused_known"`
	FusedKernels   int     `json:"fused_kernels_saved"`
	FusedDRAMBytes float64 `json:"fused_dram_saved_bytes"`
	FusedFoldedNs  float64 `json:"fused_folded_time_ns"`
	Fused          string  `json:"fused,omitempty"` // the edges fused, "from->to" by op

	MeasKernels int `json:"measured_kernels_saved"`
	ErrKernels  int `json:"kernels_error"` // predicted (fused where known) - measured

	MeasDRAMBytes       float64 `json:"measured_dram_saved_bytes"`        // range pass where both cells have it, else kernel pass
	MeasDRAMKernelBytes float64 `json:"measured_dram_saved_kernel_bytes"` // ncu kernel pass sums
	DRAMKnown           bool    `json:"dram_known"`                       // both sides have bytes
	ErrDRAMPct          float64 `json:"dram_error_pct,omitempty"`         // (predicted - measured) / |measured|, %
	ErrDRAMKernelPct    float64 `json:"dram_kernel_error_pct,omitempty"`  // against the kernel-pass difference

	MeasTimeNs       float64 `json:"measured_gpu_time_saved_ns"`      // nsys timeline sums
	ErrTimePct       float64 `json:"gpu_time_error_pct"`              // folded time (fused where known) against the measured saving
	MeasKernelTimeNs float64 `json:"measured_kernel_time_saved_ns"`   // ncu kernel pass sums
	ErrKernelTimePct float64 `json:"kernel_time_error_pct,omitempty"` // against the kernel-pass difference

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
// the forward+backward baseline) whose kernel sequence was measured. flows
// are the variants' dataflows, sms the GPU's SM count (0: unknown).
func CheckSuggestions(r *Run, flows Flows, sms int) []SuggestCheck {
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
		chains, _ := SuggestCell(*b, r.Kernels, flows, sms)
		if len(chains) == 0 {
			continue
		}
		s := SuggestCheck{Experiment: b.Experiment, Shape: b.Shape, Baseline: b.Variant, Candidate: c.Variant,
			Chains: len(chains), Basis: chains[0].Basis, MeasKernels: b.Kernels - c.Kernels, MeasTimeNs: b.GPUTimeNs - c.GPUTimeNs}
		known := true
		for _, ch := range chains {
			s.PredKernels += ch.KernelsSaved
			s.PredFoldedNs += ch.FoldedTimeNs
			s.PredDRAMBytes += ch.DRAMSavedBytes
			known = known && ch.DRAMKnown
		}
		seq, _ := CellSequence(*b, r.Kernels, nil)
		fused, fk, fd, ft, ok := fusedEdges(chains, seq, c.KernelNames)
		s.FusedKnown, s.Fused, s.FusedKernels, s.FusedDRAMBytes, s.FusedFoldedNs = ok, fused, fk, fd, ft
		predK, predD, predT := s.PredKernels, s.PredDRAMBytes, s.PredFoldedNs
		if ok {
			predK, predD, predT = fk, fd, ft
		}
		s.ErrKernels = predK - s.MeasKernels
		s.ErrTimePct = errPct(predT, s.MeasTimeNs)
		if b.KernelPassTimeNs > 0 && c.KernelPassTimeNs > 0 {
			s.MeasKernelTimeNs = b.KernelPassTimeNs - c.KernelPassTimeNs
			s.ErrKernelTimePct = errPct(predT, s.MeasKernelTimeNs)
		}
		bd, bnote := b.DRAM()
		cd, cnote := c.DRAM()
		if known && bd > 0 && cd > 0 {
			s.DRAMKnown = true
			s.MeasDRAMBytes = bd - cd
			s.ErrDRAMPct = errPct(predD, s.MeasDRAMBytes)
			if b.DRAMBytesKernels > 0 && c.DRAMBytesKernels > 0 {
				s.MeasDRAMKernelBytes = b.DRAMBytesKernels - c.DRAMBytesKernels
				s.ErrDRAMKernelPct = errPct(predD, s.MeasDRAMKernelBytes)
			}
		} else {
			s.PredDRAMBytes, s.FusedDRAMBytes = 0, 0
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

// inductorRE reads the ops Inductor fused into one kernel from its name
// (triton_poi_fused_mul_silu_1: mul, silu; tem: a GEMM template whose
// epilogue holds the ops after the product).
var inductorRE = regexp.MustCompile(`^triton_(poi|per|red|tem)_fused_(.+?)(?:_\d+)?$`)

// fusedOps reads what a candidate's kernel name says it fused: the ops of
// an Inductor kernel, or for a GEMM the ops of its epilogue (cuBLAS nvjet's
// badd/bias: add; an Inductor template's ops after the product). gemm says
// the kernel holds a product. Inductor joins the aten ops' names with "_",
// and some hold "_" themselves (sigmoid_backward, masked_fill): the name's
// tokens are read as the longest op of vocab (lower case) that they spell
// from each position, else one token each.
func fusedOps(name string, vocab map[string]bool) (ops []string, gemm, known bool) {
	n := strings.ToLower(name)
	if m := inductorRE.FindStringSubmatch(n); m != nil {
		toks := splitOps(strings.Split(m[2], "_"), vocab)
		if m[1] != "tem" {
			return toks, false, true
		}
		var epi []string
		for _, t := range toks {
			switch {
			case t == "addmm" || t == "baddbmm":
				epi = append(epi, "add") // the product plus an addend
			case !gemmOp(t):
				epi = append(epi, t)
			}
		}
		return epi, true, true
	}
	if IsGEMM(n, 0, false) {
		for _, t := range strings.FieldsFunc(n, func(r rune) bool { return r == '_' || r == ' ' || r == '<' || r == '>' || r == ',' }) {
			switch t {
			case "badd", "bias":
				ops = append(ops, "add")
			case "gelu", "relu", "silu", "sigmoid":
				ops = append(ops, t)
			}
		}
		return ops, true, len(ops) > 0
	}
	return nil, false, false
}

// splitOps groups an Inductor name's tokens into ops: from each token the
// longest run that spells an op of vocab, else the token alone.
func splitOps(toks []string, vocab map[string]bool) []string {
	var out []string
	for i := 0; i < len(toks); {
		j := i + 1
		for k := len(toks); k > i+1; k-- {
			if vocab[strings.Join(toks[i:k], "_")] {
				j = k
				break
			}
		}
		out = append(out, strings.Join(toks[i:j], "_"))
		i = j
	}
	return out
}

// fusedEdges says which edges of chains the candidate's kernels (names)
// show fused: a GEMM -> kernel edge where a candidate GEMM's epilogue
// holds the kernel's op, a kernel -> kernel edge where one Inductor kernel
// holds both ops. It needs dataflow ops and a candidate kernel whose name
// tells (known); it gives the kernels joined by a fused edge, their DRAM
// saving (the fused edges') and their time: a kernel folded into a GEMM
// saves its duration, two kernels merged the intermediate's bytes at the
// two kernels' DRAM rate (bytes over time).
func fusedEdges(chains []Chain, seq []SuggestKernel, cand []string) (desc string, kernels int, dram, timeNs float64, known bool) {
	type set map[string]bool
	vocab := set{}
	for _, c := range chains {
		for _, e := range c.Edges {
			vocab[strings.ToLower(e.FromOp)], vocab[strings.ToLower(e.ToOp)] = true, true
		}
	}
	var epi, groups []set
	for _, n := range cand {
		ops, gemm, ok := fusedOps(n, vocab)
		if !ok {
			continue
		}
		known = true
		s := set{}
		for _, o := range ops {
			s[o] = true
		}
		if gemm {
			epi = append(epi, s)
		} else {
			groups = append(groups, s)
		}
	}
	if !known {
		return "", 0, 0, 0, false
	}
	var done []string
	for _, c := range chains {
		if c.Basis != BasisDataflow {
			return "", 0, 0, 0, false
		}
		joined := map[int]bool{}
		for _, e := range c.Edges {
			from, to := strings.ToLower(e.FromOp), strings.ToLower(e.ToOp)
			hit := false
			if e.From == c.Index {
				for _, s := range epi {
					hit = hit || s[to]
				}
			} else {
				for _, s := range groups {
					hit = hit || (s[from] && s[to])
				}
			}
			if !hit {
				continue
			}
			dram += e.ReadSavedBytes + e.WriteSavedBytes
			done = append(done, e.FromOp+"->"+e.ToOp)
			if !joined[e.To] {
				joined[e.To] = true
				kernels++
			}
			if e.From >= len(seq) || e.To >= len(seq) {
				continue
			}
			if e.From == c.Index {
				timeNs += seq[e.To].DurationNs // folded into the GEMM
				continue
			}
			// Two kernels merged: the intermediate's traffic at their rate.
			a, b := seq[e.From], seq[e.To]
			if by := a.DRAMReadBytes + a.DRAMWriteBytes + b.DRAMReadBytes + b.DRAMWriteBytes; by > 0 {
				timeNs += (e.ReadSavedBytes + e.WriteSavedBytes) * (a.DurationNs + b.DurationNs) / by
			}
		}
	}
	return strings.Join(done, ", "), kernels, dram, timeNs, true
}

// errPct is (pred - meas) / |meas| in percent; 0 where meas is 0.
func errPct(pred, meas float64) float64 {
	if meas == 0 {
		return 0
	}
	return (pred - meas) / math.Abs(meas) * 100
}
