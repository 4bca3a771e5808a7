package suggest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/internal/tableout"
)

// The output of rooftool suggest (Suggestions): JSON, CSV and the text
// table of the chains or of the checks against a run.

// JSONVersion is the "rooftool_suggest" field of the JSON output.
const JSONVersion = 3

// Suggestions are what rooftool suggest found: chains (Chain) with the
// kernels not offered as folds (NotOffered), or with AgainstRun the
// predictions set against a run's measurements (Check). JSON,
// keys sorted: "rooftool_suggest" (JSONVersion), "model"
// (ChainModel), and "chains" with "not_offered", or "checks".
type Suggestions struct {
	AgainstRun bool
	Chains     []Chain
	NotOffered []NotOffered
	Checks     []Check
}

// JSON is the document suggest --format json writes.
func (s *Suggestions) JSON() any {
	doc := map[string]any{"rooftool_suggest": JSONVersion, "model": ChainModel}
	if s.AgainstRun {
		doc["checks"] = s.Checks
		return doc
	}
	if s.Chains == nil {
		s.Chains = []Chain{}
	}
	if s.NotOffered == nil {
		s.NotOffered = []NotOffered{}
	}
	doc["chains"], doc["not_offered"] = s.Chains, s.NotOffered
	return doc
}

// CSV is the checks, or the chains, in base units under the JSON's names.
func (s *Suggestions) CSV() tableout.Table {
	if s.AgainstRun {
		return checkRows(s.Checks, false)
	}
	return chainRows(s.Chains, false)
}

// WriteText writes the table suggest prints: the checks, or the chains
// with their notes and the kernels not offered, then what the columns
// mean.
func (s *Suggestions) WriteText(w io.Writer) error {
	if s.AgainstRun {
		if err := checkRows(s.Checks, true).WriteText(w, tableout.Columns); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w, "\nTIME MEAS is baseline minus candidate by TIME REFERENCE: the timing pass's medians (device loops, else wall loops where neither cell is host-bound) with the difference's 95% interval, else one profiled call's kernel sums (the note says why); every time ERR is against it. MODEL TIME is on the reference's basis: against the timing pass the call's GPU time (MODEL KERNEL TIME less MODEL COPIES, the addend copies addmm adds), against a profiled call the kernel time. NSYS is the nsys timeline's kernel-sum difference of one call.")
		return err
	}
	if len(s.Chains) == 0 {
		fmt.Fprintln(w, "no chain: no GEMM followed on its stream by kernels without tensor work that an epilogue could hold")
	} else if err := chainRows(s.Chains, true).WriteText(w, tableout.Columns); err != nil {
		return err
	}
	var notes []string
	for _, c := range s.Chains {
		if c.Note != "" && !slices.Contains(notes, c.Note) {
			notes = append(notes, c.Note)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "\nnote: %s", n)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	if len(s.NotOffered) > 0 {
		fmt.Fprintln(w, "\nNot offered as folds:")
		for _, n := range s.NotOffered {
			fmt.Fprintf(w, "  %s kernel %d %s: %s\n", suggestTrim(n.Range, 48), n.Index, suggestTrim(n.Kernel, 40), n.Reason)
		}
	}
	_, err := fmt.Fprintln(w, "\nFOLDED TIME is the folded kernels' time; TIME SAVED that less the epilogue's reads of their other operands at the sequence's streaming DRAM rate (a prediction, not a bound: a fused kernel that also changes its main loop saves more, a slower epilogue less); DRAM SAVED is on the kernel pass's bytes (L2 flushed before each kernel), WARM L2 with the residency rule of the model; DRAM and time saved need ncu bytes (- where absent). See rooftool suggest --help for the model.")
	return err
}

// chainRows are the chains as a table: for CSV in base units under the
// JSON's names, for reading (human) scaled and shortened.
func chainRows(cs []Chain, human bool) tableout.Table {
	t := tableout.Table{Header: []string{"range", "stream", "index", "basis", "producer", "folded", "kernels_saved", "folded_time_ns", "time_saved_ns", "dram_saved_bytes", "dram_saved_warm_bytes"}}
	if human {
		t.Header = []string{"RANGE", "STREAM", "AT", "BASIS", "PRODUCER", "FOLDED", "KERNELS SAVED", "FOLDED TIME (us)", "TIME SAVED (us)", "DRAM SAVED (MB)", "WARM L2 (MB)"}
	}
	for _, c := range cs {
		folded := strings.Join(c.Folded, " | ")
		rng, prod := c.Range, c.Producer
		dram, saved, ts := "", strconv.FormatFloat(c.FoldedTimeNs, 'f', -1, 64), ""
		if c.TimeSavedKnown {
			ts = strconv.FormatFloat(c.TimeSavedNs, 'f', -1, 64)
		}
		warm := ""
		if c.DRAMKnown {
			dram, warm = strconv.FormatFloat(c.DRAMSavedBytes, 'f', -1, 64), strconv.FormatFloat(c.DRAMSavedWarmBytes, 'f', -1, 64)
		}
		if human {
			var short []string
			for i, f := range c.Folded {
				if i == 3 {
					short = append(short, fmt.Sprintf("+%d more", len(c.Folded)-3))
					break
				}
				short = append(short, suggestTrim(f, 32))
			}
			folded, rng, prod = strings.Join(short, " | "), suggestTrim(rng, 48), suggestTrim(prod, 40)
			saved = fmt.Sprintf("%.1f", c.FoldedTimeNs/1e3)
			dram, ts, warm = "-", "-", "-"
			if c.TimeSavedKnown {
				ts = fmt.Sprintf("%.1f", c.TimeSavedNs/1e3)
			}
			if c.DRAMKnown {
				dram, warm = fmt.Sprintf("%.2f", c.DRAMSavedBytes/1e6), fmt.Sprintf("%.2f", c.DRAMSavedWarmBytes/1e6)
			}
		}
		if rng == "" {
			rng = "-"
		}
		t.Rows = append(t.Rows, []string{rng, strconv.FormatInt(c.Stream, 10), strconv.Itoa(c.Index), c.Basis, prod, folded,
			strconv.Itoa(c.KernelsSaved), saved, ts, dram, warm})
	}
	return t
}

// checkRows are the checks as a table: for CSV in base units under the
// JSON's names, for reading (human) scaled, each figure's unit in its
// header.
func checkRows(cs []Check, human bool) tableout.Table {
	t := tableout.Table{Header: []string{"experiment", "shape", "baseline", "candidate", "basis", "chains",
		"predicted_kernels_saved", "fused_kernels_saved", "measured_kernels_saved", "kernels_error",
		"predicted_dram_saved_bytes", "fused_dram_saved_bytes", "measured_dram_saved_bytes", "dram_error_pct",
		"measured_dram_saved_kernel_bytes", "dram_kernel_error_pct", "predicted_dram_saved_warm_bytes", "dram_warm_error_pct",
		"time_reference", "measured_time_saved_ns", "measured_time_saved_lo_ns", "measured_time_saved_hi_ns", "measured_time_samples",
		"predicted_folded_time_ns", "fused_folded_time_ns", "gpu_time_error_pct",
		"predicted_time_saved_ns", "predicted_time_error_pct", "measured_gpu_time_saved_ns",
		"measured_kernel_time_saved_ns", "kernel_time_error_pct", "fused",
		"model_kernels_saved", "model_kernels_error", "model_dram_saved_flushed_bytes", "model_dram_flushed_error_pct",
		"model_dram_saved_warm_bytes", "model_dram_warm_error_pct", "model_time_saved_ns", "model_time_error_pct",
		"model_kernel_time_saved_ns", "model_copy_time_ns", "model_fused", "time_reference_note", "note"}}
	if human {
		t.Header = []string{"EXPERIMENT", "SHAPE", "BASELINE", "CANDIDATE", "BASIS", "CHAINS",
			"KERNELS PRED", "FUSED", "MEAS", "ERR",
			"DRAM PRED (MB)", "FUSED (MB)", "MEAS (MB)", "ERR (%)", "MEAS KERNEL PASS (MB)", "ERR (%)", "DRAM WARM PRED (MB)", "ERR (%)",
			"TIME REFERENCE", "TIME MEAS (us)", "95% LO (us)", "95% HI (us)", "SAMPLES",
			"FOLDED TIME (us)", "FUSED (us)", "ERR (%)", "TIME SAVED (us)", "ERR (%)", "NSYS (us)", "MEAS KERNEL PASS (us)", "ERR (%)", "FUSED EDGES",
			"MODEL KERNELS", "ERR", "MODEL DRAM FLUSHED (MB)", "ERR (%)", "MODEL DRAM WARM (MB)", "ERR (%)", "MODEL TIME (us)", "ERR (%)",
			"MODEL KERNEL TIME (us)", "MODEL COPIES (us)", "MODEL FUSES", "TIME REFERENCE NOTE", "NOTE"}
	}
	f := func(v float64, scale float64, prec int) string {
		if human {
			return strconv.FormatFloat(v/scale, 'f', prec, 64)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	dash := func(s string) string {
		if human && s == "" {
			return "-"
		}
		return s
	}
	for _, c := range cs {
		pd, fd, md, ed, mk, ek, pw, ew := "", "", "", "", "", "", "", ""
		if c.DRAMKnown {
			pw, ew = f(c.PredDRAMWarm, 1e6, 2), f(c.ErrDRAMWarmPct, 1, 0)
			pd, md, ed = f(c.PredDRAMBytes, 1e6, 2), f(c.MeasDRAMBytes, 1e6, 2), f(c.ErrDRAMPct, 1, 0)
			if c.MeasDRAMKernelBytes != 0 {
				mk, ek = f(c.MeasDRAMKernelBytes, 1e6, 2), f(c.ErrDRAMKernelPct, 1, 0)
			}
		}
		kt, kte := dash(""), dash("")
		if c.MeasKernelTimeNs != 0 {
			kt, kte = f(c.MeasKernelTimeNs, 1e3, 1), f(c.ErrKernelTimePct, 1, 0)
		}
		pt, pte := dash(""), dash("")
		if c.PredTimeKnown {
			pt, pte = f(c.PredTimeNs, 1e3, 1), f(c.ErrPredTimePct, 1, 0)
		}
		fk, ft := "", ""
		if c.FusedKnown {
			fk, ft = strconv.Itoa(c.FusedKernels), f(c.FusedFoldedNs, 1e3, 1)
			if c.DRAMKnown {
				fd = f(c.FusedDRAMBytes, 1e6, 2)
			}
		}
		m := make([]string, 11)
		if c.ModelKnown {
			m[0], m[1], m[6], m[7] = strconv.Itoa(c.ModelKernels), strconv.Itoa(c.ErrModelKernels), f(c.ModelTimeNs, 1e3, 1), f(c.ErrModelTimePct, 1, 0)
			m[8], m[9], m[10] = f(c.ModelKernelTimeNs, 1e3, 1), f(c.ModelCopyNs, 1e3, 1), c.ModelFused
			if human {
				m[10] = suggestTrim(m[10], 60)
			}
			if c.DRAMKnown {
				m[4], m[5] = f(c.ModelDRAMWarmBytes, 1e6, 2), f(c.ErrModelWarmPct, 1, 0)
				if c.MeasDRAMKernelBytes != 0 {
					m[2], m[3] = f(c.ModelDRAMFlushedBytes, 1e6, 2), f(c.ErrModelFlushedPct, 1, 0)
				}
			}
		}
		for i := range m {
			m[i] = dash(m[i])
		}
		bound := func(v float64) string {
			if math.Abs(v) == analysis.Unbounded {
				return dash("")
			}
			return f(v, 1e3, 1)
		}
		row := []string{c.Experiment, c.Shape, c.Baseline, c.Candidate, c.Basis, strconv.Itoa(c.Chains),
			strconv.Itoa(c.PredKernels), dash(fk), strconv.Itoa(c.MeasKernels), strconv.Itoa(c.ErrKernels),
			dash(pd), dash(fd), dash(md), dash(ed), dash(mk), dash(ek), dash(pw), dash(ew),
			c.TimeRef, f(c.MeasRefTimeNs, 1e3, 1), bound(c.MeasRefLoNs), bound(c.MeasRefHiNs), strconv.Itoa(c.MeasRefN),
			f(c.PredFoldedNs, 1e3, 1), dash(ft), f(c.ErrTimePct, 1, 0), pt, pte, f(c.MeasTimeNs, 1e3, 1), kt, kte, dash(c.Fused)}
		t.Rows = append(t.Rows, append(append(row, m...), dash(c.TimeRefNote), dash(c.Note)))
	}
	return t
}

// suggestTrim shortens s to at most n runes, eliding the middle.
func suggestTrim(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	h := (n - 1) / 2
	return string(r[:h]) + "…" + string(r[len(r)-(n-1-h):])
}
