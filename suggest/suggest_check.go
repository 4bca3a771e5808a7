package suggest

import (
	"math"
	"regexp"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/spec"
)

// Suggestions checked against a run's own fused variants: which chain
// edges a candidate fused, read from its kernel names, and the savings
// predicted for them beside the measured ones.

// Check sets the savings predicted for a baseline cell's chains
// against what a fused candidate of the same run measured at the same
// shape (baseline minus candidate). Predicted: all its chains; Fused: the
// edges of them the candidate's kernel names show it fused (Inductor's
// triton_*_fused_<ops> kernels, cuBLAS's epilogue variants), where its
// names tell (FusedKnown).
type Check struct {
	Experiment string `json:"experiment"`
	Shape      string `json:"shape"`
	Baseline   string `json:"baseline"`
	Candidate  string `json:"candidate"`
	Chains     int    `json:"chains"`
	Basis      string `json:"basis"` // of the baseline's chains: dataflow | launch order

	PredKernels    int     `json:"predicted_kernels_saved"`
	PredDRAMBytes  float64 `json:"predicted_dram_saved_bytes"`
	PredDRAMWarm   float64 `json:"predicted_dram_saved_warm_bytes"` // warm L2 (Chain.DRAMSavedWarmBytes)
	ErrDRAMWarmPct float64 `json:"dram_warm_error_pct,omitempty"`   // against the range pass (MeasDRAMBytes)
	PredFoldedNs   float64 `json:"predicted_folded_time_ns"`
	PredTimeNs     float64 `json:"predicted_time_saved_ns"` // the chains' time saved (Chain.TimeSavedNs)
	PredTimeKnown  bool    `json:"predicted_time_saved_known"`
	ErrPredTimePct float64 `json:"predicted_time_error_pct,omitempty"` // against the time reference (MeasRefTimeNs)
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

	// The time saved by the check's reference (SavedTime): the timing
	// pass's medians, baseline minus candidate, with the difference's 95%
	// interval, else one profiled call, TimeRefNote saying why. The time
	// errors are against it.
	TimeRef       string  `json:"time_reference"`
	TimeRefNote   string  `json:"time_reference_note,omitempty"`
	MeasRefTimeNs float64 `json:"measured_time_saved_ns"`
	MeasRefLoNs   float64 `json:"measured_time_saved_lo_ns"`
	MeasRefHiNs   float64 `json:"measured_time_saved_hi_ns"`
	MeasRefN      int     `json:"measured_time_samples"` // samples in the smaller loop (0: one call)

	MeasTimeNs       float64 `json:"measured_gpu_time_saved_ns"`      // nsys timeline kernel sums, one call
	ErrTimePct       float64 `json:"gpu_time_error_pct"`              // folded time (fused where known) against the time reference
	MeasKernelTimeNs float64 `json:"measured_kernel_time_saved_ns"`   // ncu kernel pass sums
	ErrKernelTimePct float64 `json:"kernel_time_error_pct,omitempty"` // against the kernel-pass difference

	Note string `json:"note,omitempty"` // how the measured DRAM bytes were taken, where not the range pass

	// The compiler model's prediction (InductorModel), for candidates it
	// models (ModelKnown): kernels, DRAM bytes with L2 flushed before each
	// kernel and with a warm L2, and time saved; errors against the
	// measured savings (kernels: difference; bytes against the kernel pass
	// and the range pass; time against the time reference, in %).
	// ModelTimeNs is on the reference's basis: the call's GPU time
	// (ModelKernelTimeNs less ModelCopyNs, the addend copies' time) against
	// the timing pass, the kernel time against one profiled call's kernel
	// sums.
	ModelKnown            bool    `json:"model_known"`
	ModelFused            string  `json:"model_fused,omitempty"` // folds, merges and in-place writes, by op and tensor
	ModelKernels          int     `json:"model_kernels_saved"`
	ModelDRAMFlushedBytes float64 `json:"model_dram_saved_flushed_bytes"`
	ModelDRAMWarmBytes    float64 `json:"model_dram_saved_warm_bytes"`
	ModelTimeNs           float64 `json:"model_time_saved_ns"`
	ModelKernelTimeNs     float64 `json:"model_kernel_time_saved_ns"`
	ModelCopyNs           float64 `json:"model_copy_time_ns"`
	ErrModelKernels       int     `json:"model_kernels_error"`
	ErrModelFlushedPct    float64 `json:"model_dram_flushed_error_pct,omitempty"`
	ErrModelWarmPct       float64 `json:"model_dram_warm_error_pct,omitempty"`
	ErrModelTimePct       float64 `json:"model_time_error_pct,omitempty"`
}

// BaselineKey is the cell of the check's baseline.
func (s Check) BaselineKey() cellkey.Key {
	return cellkey.New(s.Experiment, s.Baseline, s.Shape)
}

// TimedRef says whether the check's time reference is the timing pass
// (a whole call's GPU time, copies included) rather than one profiled
// call's kernel sums.
func (s Check) TimedRef() bool { return s.TimeRef == TimeRefDevice || s.TimeRef == TimeRefWall }

// CandidateKey is the cell of the check's candidate.
func (s Check) CandidateKey() cellkey.Key {
	return cellkey.New(s.Experiment, s.Candidate, s.Shape)
}

// CheckSuggestions predicts the savings of every baseline cell of r that
// has chains and sets them against each candidate it is compared with
// (r.Comparisons: the spec's pairing, so forward+backward candidates meet
// the forward+backward baseline) whose kernel sequence was measured; the
// time saved against SavedTime's reference. flows
// are the variants' dataflows, sms the GPU's SM count (0: unknown).
func CheckSuggestions(r *analysis.Run, flows Flows, sms int) []Check {
	return CheckSuggestionsWith(r, flows, Models{}, sms)
}

// CheckSuggestionsWith is CheckSuggestions with the compiler model set
// against the candidates models names (ModelsOf).
func CheckSuggestionsWith(r *analysis.Run, flows Flows, models Models, sms int) []Check {
	cells := map[cellkey.Key]*analysis.CellFact{}
	for i := range r.Cells {
		c := &r.Cells[i]
		cells[c.Key()] = c
	}
	var out []Check
	for _, cmp := range r.Comparisons {
		b, c := cells[cmp.BaselineKey()], cells[cmp.CandidateKey()]
		if b == nil || c == nil || b.Status != "ok" || c.Status != "ok" || b.Kernels == 0 || c.Kernels == 0 {
			continue
		}
		chains, _ := Cell(*b, r.Kernels, flows, sms, float64(r.Ceilings.L2Bytes))
		if len(chains) == 0 {
			continue
		}
		s := Check{Experiment: b.Experiment, Shape: b.Shape, Baseline: b.Variant, Candidate: c.Variant,
			Chains: len(chains), Basis: chains[0].Basis, MeasKernels: b.Kernels - c.Kernels, MeasTimeNs: b.GPUTimeNs - c.GPUTimeNs}
		known := true
		s.PredTimeKnown = true
		for _, ch := range chains {
			s.PredTimeNs += ch.TimeSavedNs
			s.PredTimeKnown = s.PredTimeKnown && ch.TimeSavedKnown
			s.PredKernels += ch.KernelsSaved
			s.PredFoldedNs += ch.FoldedTimeNs
			s.PredDRAMBytes += ch.DRAMSavedBytes
			s.PredDRAMWarm += ch.DRAMSavedWarmBytes
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
		mt := SavedTime(b, c, analysis.DefaultStats().Confidence)
		s.TimeRef, s.TimeRefNote, s.MeasRefTimeNs, s.MeasRefLoNs, s.MeasRefHiNs, s.MeasRefN = mt.Ref, mt.Note, mt.Saved, mt.Lo, mt.Hi, mt.N
		s.ErrTimePct = errPct(predT, s.MeasRefTimeNs)
		if s.PredTimeKnown {
			s.ErrPredTimePct = errPct(s.PredTimeNs, s.MeasRefTimeNs)
		} else {
			s.PredTimeNs = 0
		}
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
			s.ErrDRAMWarmPct = errPct(s.PredDRAMWarm, s.MeasDRAMBytes)
			if b.DRAMBytesKernels > 0 && c.DRAMBytesKernels > 0 {
				s.MeasDRAMKernelBytes = b.DRAMBytesKernels - c.DRAMBytesKernels
				s.ErrDRAMKernelPct = errPct(predD, s.MeasDRAMKernelBytes)
			}
		} else {
			s.PredDRAMBytes, s.FusedDRAMBytes, s.PredDRAMWarm = 0, 0, 0
		}
		if models.Inductor[[2]string{c.Experiment, c.Variant}] {
			setModel(&s, *b, r, flows[[2]string{b.Experiment, b.Variant}], models.Backward[[2]string{b.Experiment, b.Variant}])
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

// setModel fills the compiler model's figures of s from its baseline b.
func setModel(s *Check, b analysis.CellFact, r *analysis.Run, flow *spec.Dataflow, backward bool) {
	if flow == nil {
		return
	}
	seq, note := CellSequence(b, r.Kernels, flow)
	if note != "" {
		return
	}
	p, ok := PredictInductor(seq, flow.Outputs, backward, float64(r.Ceilings.L2Bytes), 0)
	if !ok {
		return
	}
	s.ModelKnown, s.ModelFused, s.ModelKernels = true, strings.Join(p.Desc, ", "), p.Kernels
	s.ModelKernelTimeNs, s.ModelCopyNs, s.ModelTimeNs = p.TimeNs, p.CopyNs, p.TimeNs
	if s.TimedRef() {
		s.ModelTimeNs = p.CallNs()
	}
	s.ErrModelKernels = p.Kernels - s.MeasKernels
	s.ErrModelTimePct = errPct(s.ModelTimeNs, s.MeasRefTimeNs)
	if s.DRAMKnown {
		s.ModelDRAMFlushedBytes, s.ModelDRAMWarmBytes = p.DRAMFlushed, p.DRAMWarm
		s.ErrModelWarmPct = errPct(p.DRAMWarm, s.MeasDRAMBytes)
		if s.MeasDRAMKernelBytes != 0 {
			s.ErrModelFlushedPct = errPct(p.DRAMFlushed, s.MeasDRAMKernelBytes)
		}
	}
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
func fusedEdges(chains []Chain, seq []Kernel, cand []string) (desc string, kernels int, dram, timeNs float64, known bool) {
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
