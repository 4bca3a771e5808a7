package analysis

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// Cross-pass warning codes (METHOD.md, "Cross-checks between passes"). Each
// carries the figures it rests on and voids the claims that rest on them.
const (
	// The ncu range pass covers less of the cell than its kernel pass:
	// its DRAM bytes are not the variant's.
	WarnRangePartial = "range-partial"
	// The passes of one cell saw different kernels (or picks, or knobs).
	WarnPassesDiffer = "passes-differ"
	// Wall time well above device time: the timing pass measured host
	// overhead of an isolated call, not GPU work.
	WarnHostBound = "host-bound"
	// Timing samples fall into two separate groups: the median is not a
	// stable figure.
	WarnBimodal = "bimodal"
)

// Thresholds of the cross-checks (Options fields of the same names
// override them). A range pass's coverage is judged by
// rundir.Coverage.Complete, with the runner's rundir.MinRangeCoverage.
const (
	DefaultHostBoundFactor = 1.5  // wall / device time above this is host-bound (GPU idle > 1/3 of the span)
	DefaultBimodalGap      = 0.10 // a gap between sorted samples of this share of the median splits them
	DefaultBimodalShare    = 0.10 // ... when each side holds at least this share of the samples
)

// rangeFacts is what the ncu range pass measured over one cell's range.
type rangeFacts struct {
	timeNs, l2Bytes float64
	seen            bool
}

// coverage is the range facts rf over c's kernel pass as the runner
// records it (rundir.Coverage): the time ratio, and the L2-bytes ratio
// where the kernel pass measured L2 bytes.
func coverage(c *CellFact, rf rangeFacts) *rundir.Coverage {
	return &rundir.Coverage{
		Time: rundir.CoverageRatio(rf.timeNs, c.KernelPassTimeNs), L2Bytes: rundir.CoverageRatio(rf.l2Bytes, c.L2Bytes),
		KernelTimeNs: c.KernelPassTimeNs, RangeTimeNs: rf.timeNs, KernelL2Bytes: c.L2Bytes, RangeL2Bytes: rf.l2Bytes,
	}
}

// rangeMethod is how ncu replayed replay (1-based; 0: the tables do not
// say) of key's range pass, from the run's manifest: the replay's own
// method, else the pass's; rundir.MethodRange where the manifest is absent
// or does not say.
func rangeMethod(m *rundir.Manifest, key cellkey.Key, replay int) string {
	if m == nil {
		return rundir.MethodRange
	}
	st, ok := m.Pass(key.Experiment, key.Variant, key.Shape, rundir.PassRange)
	if !ok {
		return rundir.MethodRange
	}
	for _, r := range st.Replays {
		if r.Replay == replay && r.Method != "" {
			return r.Method
		}
	}
	if st.Method != "" {
		return st.Method
	}
	return rundir.MethodRange
}

// checkRange compares each replay of the range pass with the kernel pass
// of the same cell. A complete range moves at least the L2 bytes its
// kernels move (L2 reuse between kernels is served from L2 and still
// counted there) and lasts at least as long as they do (range replay adds
// overhead); app-range's duration holds the whole application's replay, so
// only its bytes count. Each replay is judged as the runner judges it,
// rundir.Coverage.Complete with the replay's method (method): one that
// falls short marks the cell's range partial. The range figures set are
// the least complete incomplete replay's (lowest Coverage.Score), else the
// replay with the fewest L2 bytes.
func checkRange(c *CellFact, rs []rangeReplay, method func(replay int) string) {
	if c.KernelPassTimeNs <= 0 {
		return
	}
	var least, worst rangeFacts
	worstScore := 0.0
	for _, rp := range rs {
		if !rp.facts.seen {
			continue
		}
		if !least.seen || rp.facts.l2Bytes < least.l2Bytes {
			least = rp.facts
		}
		m := method(rp.replay)
		cov := coverage(c, rp.facts)
		if sc := cov.Score(m); !cov.Complete(m) && (!worst.seen || sc < worstScore) {
			worst, worstScore = rp.facts, sc
		}
	}
	rf := least
	if worst.seen {
		rf = worst
	}
	if !rf.seen {
		return
	}
	c.RangeTimeNs, c.RangeL2Bytes = rf.timeNs, rf.l2Bytes
	cov := RangeCoverage{Time: rf.timeNs / c.KernelPassTimeNs}
	if c.L2Bytes > 0 {
		cov.L2Bytes = rf.l2Bytes / c.L2Bytes
	}
	c.RangeCoverage = &cov
	if !worst.seen {
		return
	}
	c.RangePartial = true
	c.Warnings = append(c.Warnings, Warning{Code: WarnRangePartial, Metric: "dram_bytes",
		Msg: fmt.Sprintf("the ncu range pass covers %.1f%% of the kernel pass's GPU time (%.0f us of %.0f us) and %.1f%% of its L2 bytes (%.3g GB of %.3g GB): its %.3g GB of DRAM are not the variant's",
			pctDown(cov.Time), rf.timeNs/1e3, c.KernelPassTimeNs/1e3, pctDown(cov.L2Bytes), rf.l2Bytes/1e9, c.L2Bytes/1e9, c.DRAMBytesRange/1e9)})
}

// RangeCoverage is the range pass over the kernel pass of one cell.
type RangeCoverage struct {
	Time    float64 `json:"time"`     // range gpu__time_duration / sum over the kernel pass
	L2Bytes float64 `json:"l2_bytes"` // range lts__t_bytes / sum over the kernel pass
}

// checkKernelNames compares the kernels the ncu kernel pass profiled with
// those the nsys timeline saw for the same cell, as multisets of names
// spelled alike (NormalizeKernelName). Either pass missing: nothing to say.
func checkKernelNames(c *CellFact, kf []KernelFact, tl []ingest.Kernel) {
	if len(kf) == 0 || len(tl) == 0 {
		return
	}
	count := map[string]int{}
	for _, f := range kf {
		count[NormalizeKernelName(f.Name)]++
	}
	for _, k := range tl {
		count[NormalizeKernelName(k.Name)]--
	}
	var onlyNCU, onlyNsys []string
	for n, d := range count {
		for ; d > 0; d-- {
			onlyNCU = append(onlyNCU, shorten(n))
		}
		for ; d < 0; d++ {
			onlyNsys = append(onlyNsys, shorten(n))
		}
	}
	if len(onlyNCU) == 0 && len(onlyNsys) == 0 {
		return
	}
	sort.Strings(onlyNCU)
	sort.Strings(onlyNsys)
	c.Warnings = append(c.Warnings, Warning{Code: WarnPassesDiffer,
		Msg: fmt.Sprintf("the ncu kernel pass (%d kernels) and nsys (%d kernels) ran different code: only in ncu: %s; only in nsys: %s",
			len(kf), len(tl), listOrNone(onlyNCU), listOrNone(onlyNsys))})
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// shorten keeps a kernel name readable in a warning: CUTLASS and cuBLAS
// names carry the tile in the name and are kept whole up to 120 bytes.
func shorten(n string) string {
	if len(n) > 120 {
		return n[:117] + "..."
	}
	return n
}

var (
	reCasts      = regexp.MustCompile(`\((?:unsigned |signed )?(?:int|long|long long|short|char|bool)\)`)
	reNamespaces = regexp.MustCompile(`(?:\(anonymous namespace\)|<unnamed>|[A-Za-z_]\w*)::`)
	reSpaces     = regexp.MustCompile(`\s+`)
)

// NormalizeKernelName spells a demangled kernel name the same way whichever
// tool printed it: ncu and nsys differ in namespace qualification
// ("at::native::" vs "at::"), integer template arguments ("(int)8" vs "8")
// and anonymous namespaces. Names without those (Triton, CUTLASS, cuBLAS)
// are unchanged.
func NormalizeKernelName(n string) string {
	n = reCasts.ReplaceAllString(n, "")
	n = reNamespaces.ReplaceAllString(n, "")
	return strings.TrimSpace(reSpaces.ReplaceAllString(n, " "))
}

// checkHostBound compares wall time with device time: the CUDA-graph
// replay of the call where the timing pass measured it, else the sum of the
// cell's kernels on the nsys timeline.
//
// A host-bound cell whose call was timed captured in a CUDA graph gets
// LaunchMethod "graph": its speedups are judged on the graph launch, as a
// model would launch it, and the warning says so (reports do not let it
// void a speedup judged that way). Where no graph could be timed, the
// warning says why (LaunchError, the capture's exception).
func checkHostBound(c *CellFact, opts Options) {
	c.LaunchMethod = LaunchEager
	dev, how := c.DeviceTimeMs()
	if dev <= 0 || c.Wall.N == 0 || c.Wall.Center <= 0 {
		return
	}
	c.HostRatio = c.Wall.Center / dev
	if c.HostRatio <= opts.HostBoundFactor {
		return
	}
	msg := fmt.Sprintf("%s: wall time %.1f us is %.2fx the device time %.1f us (%s): the GPU idles %.0f%% of the call, so the timing pass measured host overhead",
		c.Variant, c.Wall.Center*1e3, c.HostRatio, dev*1e3, how, 100*(1-1/c.HostRatio))
	if c.Device.N > 0 {
		c.LaunchMethod = LaunchGraph
		msg += "; its speedups are judged on the call launched as a CUDA graph"
	} else {
		why := c.LaunchError
		if why == "" {
			why = "the timing pass recorded no CUDA-graph replay of the call"
		}
		msg += "; no CUDA-graph launch could be timed: " + why
	}
	c.Warnings = append(c.Warnings, Warning{Code: WarnHostBound, Metric: "speedup", Msg: msg})
}

// Launch methods of a cell (CellFact.LaunchMethod) and of a paired record.
const (
	LaunchEager = "eager"
	LaunchGraph = "graph"
)

// DeviceTimeMs is the cell's GPU time per call free of host overhead, in
// ms, and how it was measured: the median of the timing pass's CUDA-graph
// replays of the call, else the sum of the cell's kernel durations (nsys
// timeline, else ncu kernel pass). 0: not measured.
func (c *CellFact) DeviceTimeMs() (float64, string) {
	if c.Device.N > 0 && c.Device.Center > 0 {
		return c.Device.Center, "CUDA-graph replay of the call, timing pass"
	}
	if c.GPUTimeNs > 0 {
		return c.GPUTimeNs / 1e6, "sum of kernel durations, one profiled call"
	}
	return 0, ""
}

// checkBimodal flags samples that split into two groups: sorted, the
// widest gap between neighbours exceeds gap x median and each side holds
// at least share of the samples.
func checkBimodal(c *CellFact, samples []float64, what string, opts Options) {
	n := len(samples)
	if n < 10 {
		return
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	med := s[n/2]
	best, at := 0.0, -1
	for i := 1; i < n; i++ {
		if g := s[i] - s[i-1]; g > best {
			best, at = g, i
		}
	}
	minSide := int(opts.BimodalShare*float64(n) + 0.999)
	if at < 0 || med <= 0 || best < opts.BimodalGap*med || at < minSide || n-at < minSide {
		return
	}
	c.Warnings = append(c.Warnings, Warning{Code: WarnBimodal, Metric: "speedup",
		Msg: fmt.Sprintf("%s: %s samples fall into two groups: %d at %.1f-%.1f us and %d at %.1f-%.1f us (median %.1f us)",
			c.Variant, what, at, s[0]*1e3, s[at-1]*1e3, n-at, s[at]*1e3, s[n-1]*1e3, med*1e3)})
}

// DRAM is the variant's DRAM bytes for the whole cell: the range pass
// (L2 reuse between kernels included), else the sum over the kernel pass
// with a note (per-kernel replay flushes caches before each kernel: not the
// traffic of the chain as it runs). A
// partial range is returned with a note too: the range-partial warning
// voids the claims that rest on it, and plots leave it out.
func (c *CellFact) DRAM() (float64, string) {
	switch {
	case c.DRAMBytesRange > 0 && c.RangePartial:
		return c.DRAMBytesRange, "from a range pass that covers part of the cell (range-partial)"
	case c.DRAMBytesRange > 0:
		return c.DRAMBytesRange, ""
	case c.DRAMBytesKernels > 0:
		return c.DRAMBytesKernels, "from the ncu kernel pass (no range pass): L2 flushed per kernel"
	}
	return 0, ""
}

// pctDown is a coverage ratio in percent cut (not rounded) to one decimal:
// 0.8955 is 89.5, never 90, the threshold it misses.
func pctDown(r float64) float64 { return math.Floor(r*1000+1e-9) / 10 }
