package suggest

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// ChainModel states how FindChains builds chains and predicts what
// fusing them saves.
const ChainModel = `A chain is a GEMM (a kernel with tensor work; without FLOP counters, one
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
                   epilogue costs the GEMM nothing.
  time saved     = the folded time less what the epilogue adds: the
                   folded kernels' reads of their other operands (each
                   one's DRAM read less its reads of the chain's
                   intermediates), which the epilogue now reads, at the
                   sequence's streaming DRAM rate (a least-squares fit of
                   t = t0 + bytes / rate over its kernels without tensor
                   work). A prediction, not a bound: a fused kernel that
                   also changes its main loop can save more (swiglu_fp8
                   dual-acc merges the two GEMMs), an epilogue that hides
                   its reads under the main loop more, a slower one less.
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
  DRAM saved warm = the same edges with a warm L2 (the sequence as a
                   program runs it): an intermediate (the larger of its
                   edge's read and write) is charged its size as a write
                   where its write is saved (a write-back L2 evicts the
                   dirty lines to DRAM later), and its read only where it
                   does not fit: size + the DRAM bytes of the kernels
                   launched between producer and reader > the L2 size.
Bytes are the ncu kernel pass's (L2 flushed before each kernel): writes
that stay in L2 past a small kernel's end (dram__bytes_write near 0)
understate the flushed figure. Without ncu bytes for every kernel of a
chain its DRAM saving is unknown.`

// Bases of a chain.
const (
	BasisDataflow    = "dataflow"
	BasisLaunchOrder = "launch order"
	BasisMerge       = "merge" // kernels merged into one, no GEMM (Merges)
)

// Kernel is one kernel of a launch sequence FindChains walks.
type Kernel struct {
	Name           string
	DurationNs     float64
	GEMM           bool    // the kernel does tensor work (or its name says GEMM)
	DRAMReadBytes  float64 // ncu kernel pass
	DRAMWriteBytes float64
	BytesKnown     bool  // the two above were measured
	GridBlocks     int64 // blocks of its grid (ncu; 0: unknown)
	// Step is its dataflow step (nil: no dataflow).
	Step *spec.FlowStep
}

// Chain is a GEMM and the kernels without tensor work a fusion into the
// GEMM's epilogue could collapse into it.
type Chain struct {
	Range        string   `json:"range"` // NVTX range path, or experiment/variant/shape of a run's cell; "" none
	Stream       int64    `json:"stream"`
	Index        int      `json:"index"` // position of the producer in its launch sequence
	Producer     string   `json:"producer"`
	Folded       []string `json:"folded"`
	KernelsSaved int      `json:"kernels_saved"`
	FoldedTimeNs float64  `json:"folded_time_ns"` // the folded kernels' durations (not a bound)
	// TimeSavedNs is FoldedTimeNs less the epilogue's reads of the folded
	// kernels' operands (EpilogueBytes) at the sequence's streaming DRAM
	// rate (streamFit); known with the DRAM bytes (TimeSavedKnown).
	TimeSavedNs    float64 `json:"time_saved_ns"`
	EpilogueBytes  float64 `json:"epilogue_bytes"`
	TimeSavedKnown bool    `json:"time_saved_known"`
	DRAMSavedBytes float64 `json:"dram_saved_bytes"`
	DRAMKnown      bool    `json:"dram_known"`
	// DRAMSavedWarmBytes is the DRAM saved with a warm L2 (the sequence as
	// a program runs it): see ChainModel.
	DRAMSavedWarmBytes float64     `json:"dram_saved_warm_bytes"`
	Basis              string      `json:"basis"`              // dataflow | launch order
	Operands           []string    `json:"operands,omitempty"` // dataflow: tensors from outside the chain the epilogue reads
	Edges              []ChainEdge `json:"edges"`
	Note               string      `json:"note,omitempty"`
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
	WriteSaved      bool    `json:"write_saved"` // the intermediate is no longer written (whatever the kernel pass counted)
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
// counts them (flopsKnown), else its own name (OwnName; a generic wrapper's
// template arguments), not its namespaces or parameters. cuBLAS's split-K
// reduction is no GEMM.
func IsGEMM(name string, tensorFLOPs float64, flopsKnown bool) bool {
	if flopsKnown {
		return tensorFLOPs > 0
	}
	n := nameWords(name)
	if strings.Contains(n, "splitkreduce") {
		return false
	}
	for _, w := range gemmHelperWords {
		if strings.Contains(n, w) {
			return false // a GEMM's set-up kernel (cuBLAS's compute_gemm_pointers)
		}
	}
	for _, s := range []string{"nvjet", "cutlass", "gemm", "xmma", "cublas"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// gemmHelperWords mark kernels whose own name holds a GEMM word but that
// only prepare one: their address or offset tables.
var gemmHelperWords = []string{"pointers", "offsets"}

// Options tune FindChains.
type Options struct {
	// SMs is the GPU's SM count for the grid rule of FoldBlock (0: the rule
	// is not applied).
	SMs int
	// Outputs are the tensors the call returns (dataflow), written whatever
	// is fused.
	Outputs []string
	// Note is said of every chain (why its basis is what it is).
	Note string
	// L2Bytes is the GPU's L2 size for the warm-L2 DRAM figure (0: every
	// read charged).
	L2Bytes float64
}

// Patterns of kernel names and dataflow ops that FoldBlock refuses.
var (
	scanWords      = []string{"scan", "cumsum", "cumprod", "recurrent", "hgrn", "chunk"}
	reductionWords = []string{"reduce", "norm", "softmax"}
	reductionOps   = []string{"sum", "mean", "max", "min", "amax", "argmax", "topk", "sort", "var", "std", "logsumexp"}
	// convolutions and their transforms: a whole GEMM-like or FFT kernel, no epilogue's work
	convWords = []string{"conv", "scudnn", "winograd", "fft"}
)

// FoldBlock says why kernel k cannot be folded into a GEMM's epilogue, or
// "" (see ChainModel).
func FoldBlock(k Kernel, sms int) string {
	n := nameWords(k.Name)
	op := ""
	if k.Step != nil {
		op = strings.ToLower(k.Step.Op)
	}
	for _, w := range scanWords {
		if strings.Contains(n, w) || strings.Contains(op, w) {
			return "a scan or recurrence (" + w + "): sequential along the axis the GEMM's tiles split"
		}
	}
	for _, w := range convWords {
		if strings.Contains(n, w) {
			return "a convolution or its transform (" + w + "): a kernel of its own tiling, not per-element work an epilogue holds"
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
func FindChains(rangePath string, stream int64, seq []Kernel, opt Options) ([]Chain, []NotOffered) {
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
	rate, _ := streamFit(seq)
	for i := range cs {
		timeSaved(&cs[i], seq, rate)
		warmSaved(&cs[i], seq, opt.L2Bytes)
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
func launchOrderChains(seq []Kernel, opt Options) ([]Chain, []NotOffered) {
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
				e := ChainEdge{From: m - 1, To: m, ReadSavedBytes: math.Min(k.DRAMReadBytes, prev.DRAMWriteBytes), WriteSavedBytes: prev.DRAMWriteBytes, WriteSaved: true}
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
func dataflowChains(seq []Kernel, opt Options) ([]Chain, []NotOffered) {
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
						e.WriteSavedBytes, e.WriteSaved = w, true
						writeSaved[in] = true
					}
				}
				c.Edges = append(c.Edges, e)
			}
		}
		chainSeq := []Kernel{gk}
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

// timeSaved sets c's time saved: its folded time less what the epilogue
// reads beside the intermediates, each folded kernel's DRAM read less its
// edges' reads, at rate bytes per ns.
func timeSaved(c *Chain, seq []Kernel, rate float64) {
	if !c.DRAMKnown || rate <= 0 {
		return
	}
	into := map[int]float64{}
	for _, e := range c.Edges {
		into[e.To] += e.ReadSavedBytes
	}
	for to, r := range into {
		if to < len(seq) {
			c.EpilogueBytes += max(0, seq[to].DRAMReadBytes-r)
		}
	}
	c.TimeSavedNs, c.TimeSavedKnown = c.FoldedTimeNs-c.EpilogueBytes/rate, true
}

// warmSaved sets c's warm-L2 DRAM saving: per edge, the intermediate's
// size (the larger of the edge's read and write) written where its write
// is saved (WriteSaved; a write-back L2 evicts it to DRAM later), and its read where
// it does not fit: size + the DRAM bytes of the kernels launched between
// producer and reader > l2.
func warmSaved(c *Chain, seq []Kernel, l2 float64) {
	if !c.DRAMKnown {
		return
	}
	for _, e := range c.Edges {
		size := max(e.ReadSavedBytes, e.WriteSavedBytes)
		if e.WriteSaved {
			c.DRAMSavedWarmBytes += size
		}
		between := 0.0
		for j := e.From + 1; j < e.To && j < len(seq); j++ {
			between += seq[j].DRAMReadBytes + seq[j].DRAMWriteBytes
		}
		if l2 <= 0 || size+between > l2 {
			c.DRAMSavedWarmBytes += e.ReadSavedBytes
		}
	}
}

// finish sums a chain's edges into its DRAM saving, unknown where a kernel
// of the chain lacks ncu bytes.
func finish(c *Chain, ks []Kernel) {
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

// RankChains orders chains for reading: dataflow chains, then merges,
// then launch-order chains, each group as found.
func RankChains(cs []Chain) {
	rank := map[string]int{BasisDataflow: 0, BasisMerge: 1, BasisLaunchOrder: 2}
	sort.SliceStable(cs, func(i, j int) bool { return rank[cs[i].Basis] < rank[cs[j].Basis] })
}

// Tables finds the chains of ingested exports: kernels of the
// timeline (nsys, Kineto) where there is one, else of the ncu kernel pass,
// grouped by file, device, stream and NVTX range path, in launch order
// (exports state no dataflow). facts (may be nil) are the KernelFacts of
// the same tables, for tensor work, DRAM bytes and grids; sms is the GPU's
// SM count (0: unknown).
func Tables(t *ingest.Tables, facts []analysis.KernelFact, sms int, l2 float64) ([]Chain, []NotOffered) {
	byID := map[int64]*analysis.KernelFact{}
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
	opt := Options{SMs: sms, L2Bytes: l2, Note: "an export states no dataflow: the chain follows launch order, and a folded kernel may not read the GEMM's output"}
	for _, g := range keys {
		list := groups[g]
		sort.SliceStable(list, func(i, j int) bool { return list[i].StartNs < list[j].StartNs })
		seq := make([]Kernel, len(list))
		for i, k := range list {
			sk := Kernel{Name: k.Name, DurationNs: float64(k.DurationNs)}
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
func CellSequence(c analysis.CellFact, kfacts []analysis.KernelFact, flow *spec.Dataflow) ([]Kernel, string) {
	queue := map[string][]*analysis.KernelFact{}
	var own []*analysis.KernelFact
	for i := range kfacts {
		f := &kfacts[i]
		if f.Key() != c.Key() {
			continue
		}
		queue[f.Name] = append(queue[f.Name], f)
		own = append(own, f)
	}
	used := map[*analysis.KernelFact]bool{}
	take := func(m map[string][]*analysis.KernelFact, name string) *analysis.KernelFact {
		for _, f := range m[name] {
			if !used[f] {
				used[f] = true
				return f
			}
		}
		return nil
	}
	seq := make([]Kernel, len(c.KernelNames))
	for i, name := range c.KernelNames {
		sk := Kernel{Name: name}
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
type Flows map[[2]string]*spec.Dataflow

// FlowsOf gathers the dataflows the experiments' specs state.
func FlowsOf(exps []*spec.Experiment) Flows {
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

// Cell finds the chains of one cell of a run, by the dataflow flows
// state for its variant where it matches the cell's kernels, else by launch
// order; sms is the GPU's SM count (0: unknown), l2 its L2 size in bytes
// (0: unknown).
func Cell(c analysis.CellFact, kfacts []analysis.KernelFact, flows Flows, sms int, l2 float64) ([]Chain, []NotOffered) {
	flow := flows[[2]string{c.Experiment, c.Variant}]
	seq, note := CellSequence(c, kfacts, flow)
	opt := Options{SMs: sms, L2Bytes: l2, Note: note}
	if flow != nil && note == "" {
		opt.Outputs = flow.Outputs
		if flow.From != "" {
			opt.Note = "dataflow " + flow.From
		}
	}
	return FindChains(c.Key().String(), 0, seq, opt)
}
