package suggest

import (
	"fmt"
	"math"

	"github.com/rooftool/rooftool/analysis"
)

// The measured time a fusion saved, as suggest --against-run sets its
// predictions against it: the timing pass's medians where both cells have
// a loop fit for it, else one profiled call, named.

// Time references of a measured saving (MeasuredTime.Ref).
const (
	// TimeRefDevice: both cells' device loops (the timing pass's CUDA-graph
	// replays of one call, no host overhead).
	TimeRefDevice = "timing pass, device loop"
	// TimeRefWall: both cells' wall loops (the timing pass's CUDA-event
	// timed calls), where a cell lacks a device loop and neither is
	// host-bound.
	TimeRefWall = "timing pass, wall loop"
	// TimeRefNsys: the kernel durations of one profiled call on the nsys
	// timeline, where the timing pass gives no fit pair of loops.
	TimeRefNsys = "nsys, one call"
	// TimeRefKernelPass: the ncu kernel pass's durations of one call, where
	// a cell has no nsys timeline either.
	TimeRefKernelPass = "ncu kernel pass, one call"
)

// MeasuredTime is the time a candidate saved over its baseline (baseline
// minus candidate), in ns, by the reference Ref: the difference of the two
// cells' timing-pass medians with its interval (DifferenceInterval), or
// the difference of one profiled call's kernel sums (no interval: Lo = Hi
// = Saved). Note says why the timing pass was not the reference, where it
// was not.
type MeasuredTime struct {
	Ref   string
	Saved float64
	Lo    float64
	Hi    float64
	N     int // samples in the smaller loop (0: one call)
	Note  string
}

// DifferenceInterval is base - cand (medians of two timing samples, ms)
// with an interval of at least the given confidence, bounded as
// RatioInterval bounds a ratio: each median's order-statistic interval at
// 1-(1-confidence)/2, from base.Lo - cand.Hi to base.Hi - cand.Lo, so the
// two miss together at most 1-confidence of the time (Bonferroni). A side
// too few samples cannot bound is -Unbounded or Unbounded.
func DifferenceInterval(base, cand []float64, confidence float64) (analysis.Interval, []analysis.Warning) {
	each := 1 - (1-confidence)/2
	b, wb := analysis.SummarizeMs(base, each)
	c, wc := analysis.SummarizeMs(cand, each)
	iv := analysis.Interval{Center: b.Center - c.Center, Lo: -analysis.Unbounded, Hi: analysis.Unbounded, N: min(b.N, c.N)}
	if b.Hi != analysis.Unbounded && c.Hi != analysis.Unbounded {
		iv.Lo, iv.Hi = b.Lo-c.Hi, b.Hi-c.Lo
	}
	return iv, append(wb, wc...)
}

// hostBound says why cell c's wall loop measures host overhead rather than
// its GPU time (wall median above DefaultHostBoundFactor x its device time:
// graph replay, else the nsys kernel sum), or "".
func hostBound(c *analysis.CellFact) string {
	dev, _ := c.DeviceTimeMs()
	if dev <= 0 || c.Wall.Center <= analysis.DefaultHostBoundFactor*dev {
		return ""
	}
	how := "its kernels in one profiled call"
	if c.Device.N > 0 {
		how = "its graph replay"
	}
	return fmt.Sprintf("%s's wall loop is host-bound (%.1f us, %.2fx %s)", c.Variant, c.Wall.Center*1e3, c.Wall.Center/dev, how)
}

// SavedTime is the time candidate c saved over baseline b: the timing
// pass's device loops where both cells have one, else its wall loops where
// both have one and neither is host-bound, else one profiled call (nsys
// timeline, else ncu kernel pass), with the reason in Note.
func SavedTime(b, c *analysis.CellFact, confidence float64) MeasuredTime {
	timed := func(xs, ys []float64, ref string) MeasuredTime {
		iv, _ := DifferenceInterval(xs, ys, confidence)
		m := MeasuredTime{Ref: ref, Saved: iv.Center * 1e6, Lo: iv.Lo, Hi: iv.Hi, N: iv.N}
		for _, p := range []*float64{&m.Lo, &m.Hi} {
			if math.Abs(*p) != analysis.Unbounded {
				*p *= 1e6
			}
		}
		return m
	}
	if len(b.DeviceSamplesMs) > 0 && len(c.DeviceSamplesMs) > 0 {
		return timed(b.DeviceSamplesMs, c.DeviceSamplesMs, TimeRefDevice)
	}
	var why string
	switch {
	case len(b.WallSamplesMs) == 0 || len(c.WallSamplesMs) == 0:
		why = "no timing pass for " + b.Variant
		if len(b.WallSamplesMs) > 0 {
			why = "no timing pass for " + c.Variant
		}
	case hostBound(b) != "":
		why = hostBound(b)
	case hostBound(c) != "":
		why = hostBound(c)
	default:
		return timed(b.WallSamplesMs, c.WallSamplesMs, TimeRefWall)
	}
	ref := TimeRefNsys
	if !analysis.HasTimeline(*b) || !analysis.HasTimeline(*c) {
		ref = TimeRefKernelPass
	}
	s := b.GPUTimeNs - c.GPUTimeNs
	return MeasuredTime{Ref: ref, Saved: s, Lo: s, Hi: s, Note: why}
}

// Covers says whether the interval of m holds v.
func (m MeasuredTime) Covers(v float64) bool { return m.Lo <= v && v <= m.Hi }
