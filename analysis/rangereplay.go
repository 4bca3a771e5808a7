package analysis

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/spec"
)

// rangeReplay is one replay of a cell's ncu range pass: the range rows of
// one export, summed (one export is one ncu process over the cell's range).
type rangeReplay struct {
	replay   int    // 1-based (meta range_replay); 0 where the tables do not say
	file     string // the export's base name
	facts    rangeFacts
	dram     float64 // DRAM read + write bytes
	dramSeen bool
}

// rangeReplays gathers the ncu range rows of t by cell and export, each
// export one replay, ordered by replay (then file name). Rows of two exports
// of one cell are two replays, never one sum.
func rangeReplays(t *ingest.Tables, byKernel metricIndex) map[cellkey.Key][]rangeReplay {
	index := map[string]int{} // "<exp>/<variant>/<file>" -> replay
	for _, m := range t.Metas() {
		if m.Source == ingest.SourceNCU && m.Key == ingest.MetaRangeReplay {
			if n, err := strconv.Atoi(m.Value); err == nil {
				index[m.File] = n
			}
		}
	}
	byFile := map[cellkey.Key]map[string]*rangeReplay{}
	for _, k := range t.Kernels() {
		if k.Source != ingest.SourceNCU || k.Pass != ingest.PassRange || k.Experiment == "" || k.Variant == "" || k.Shape == "" {
			continue
		}
		key := k.Key()
		files := byFile[key]
		if files == nil {
			files = map[string]*rangeReplay{}
			byFile[key] = files
		}
		rp := files[k.File]
		if rp == nil {
			rp = &rangeReplay{replay: index[k.Experiment+"/"+k.Variant+"/"+k.File], file: k.File}
			files[k.File] = rp
		}
		m := byKernel[k.ID]
		d, okD := m.get(metric.Duration)
		l2, okL2 := m.get(metric.L2Bytes)
		rp.facts.timeNs, rp.facts.l2Bytes = rp.facts.timeNs+d, rp.facts.l2Bytes+l2
		rp.facts.seen = rp.facts.seen || (okD && okL2)
		r, okR := m.get(metric.DRAMRead)
		w, okW := m.get(metric.DRAMWrite)
		if okR || okW {
			rp.dram += r + w
			rp.dramSeen = true
		} else if tot, ok := m.get(metric.DRAMBytes); ok {
			rp.dram += tot
			rp.dramSeen = true
		}
	}
	out := map[cellkey.Key][]rangeReplay{}
	for key, files := range byFile {
		rs := make([]rangeReplay, 0, len(files))
		for _, rp := range files {
			rs = append(rs, *rp)
		}
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].replay != rs[j].replay {
				return rs[i].replay < rs[j].replay
			}
			return rs[i].file < rs[j].file
		})
		out[key] = rs
	}
	return out
}

// applyRangeReplays sets c's range-pass DRAM bytes from its replays:
// DRAMBytesRangeReplays each replay's, DRAMBytesRange their median. It
// reports false when no replay measured DRAM bytes.
func applyRangeReplays(c *CellFact, rs []rangeReplay) bool {
	var dram []float64
	for _, rp := range rs {
		if rp.dramSeen {
			dram = append(dram, rp.dram)
		}
	}
	if len(dram) == 0 {
		return false
	}
	c.DRAMBytesRangeReplays = dram
	c.DRAMBytesRange = spec.SpreadOf(dram).Center
	return true
}

// rangeMedians sets c's range time and L2 bytes to the medians over its
// replays (after checkRange, which set the least complete replay's).
func rangeMedians(c *CellFact, rs []rangeReplay) {
	var ts, l2 []float64
	for _, rp := range rs {
		if rp.facts.seen {
			ts, l2 = append(ts, rp.facts.timeNs), append(l2, rp.facts.l2Bytes)
		}
	}
	if len(ts) > 1 && c.RangeTimeNs > 0 {
		c.RangeTimeNs, c.RangeL2Bytes = Median(ts), Median(l2)
	}
}

// Warning codes of the range pass's replays.
const (
	// WarnDRAMOneReplay: the range pass replayed the cell once, so its DRAM
	// bytes have no spread; a DRAM verdict on them is a point verdict.
	WarnDRAMOneReplay = "dram-one-replay"
	// WarnDRAMDisagree: two variants of one experiment and shape run the
	// same kernels (the same kernel-name sequence in the ncu kernel pass)
	// yet the ranges of their replays' DRAM bytes do not overlap.
	WarnDRAMDisagree = "dram-disagree"
)

// checkRangeAgreement compares, within each experiment and shape, the range
// DRAM bytes of variants that run the same kernels (kernel-pass names in
// order, kfByCell): where both have two or more replays and their ranges
// (min..max) do not overlap, each cell gets a WarnDRAMDisagree warning with
// the figures. Cells of one replay have no spread to compare within.
func checkRangeAgreement(cells []CellFact, kfByCell map[cellkey.Key][]KernelFact) {
	seq := func(c *CellFact) string {
		kf := kfByCell[c.Key()]
		if len(kf) == 0 {
			return ""
		}
		names := make([]string, len(kf))
		for i, f := range kf {
			names[i] = f.Name
		}
		return strings.Join(names, "\x00")
	}
	for i := range cells {
		a := &cells[i]
		if len(a.DRAMBytesRangeReplays) < 2 {
			continue
		}
		for j := i + 1; j < len(cells); j++ {
			b := &cells[j]
			if b.Experiment != a.Experiment || b.Shape != a.Shape || len(b.DRAMBytesRangeReplays) < 2 {
				continue
			}
			s := seq(a)
			if s == "" || s != seq(b) {
				continue
			}
			alo, ahi := minMax(a.DRAMBytesRangeReplays)
			blo, bhi := minMax(b.DRAMBytesRangeReplays)
			if alo <= bhi && blo <= ahi {
				continue
			}
			msg := fmt.Sprintf("%s and %s run the same %d kernels, but their range-pass DRAM bytes do not agree within their spread: %.2f-%.2f MB (n=%d) against %.2f-%.2f MB (n=%d)",
				a.Variant, b.Variant, len(kfByCell[a.Key()]),
				alo/1e6, ahi/1e6, len(a.DRAMBytesRangeReplays), blo/1e6, bhi/1e6, len(b.DRAMBytesRangeReplays))
			a.Warnings = append(a.Warnings, Warning{Code: WarnDRAMDisagree, Msg: msg})
			b.Warnings = append(b.Warnings, Warning{Code: WarnDRAMDisagree, Msg: msg})
		}
	}
}

// minMax is the least and the greatest of xs (0, 0 for none).
func minMax(xs []float64) (lo, hi float64) {
	for i, x := range xs {
		if i == 0 || x < lo {
			lo = x
		}
		if i == 0 || x > hi {
			hi = x
		}
	}
	return lo, hi
}
