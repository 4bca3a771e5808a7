package stats

// StreamSummary reads the kernels table of a directory a batch at a time
// (ingest.ScanKernels), only the columns it needs, and groups kernels by
// the integer ids of their dictionary values; its memory goes with the
// number of (range, name) groups, not with the number of kernels. Its
// groups and figures are those of KernelSummary over SummarySource: the
// same summaryKeeps picks the rows, the same GroupKey each kernel's
// group, durStats computes the figures. Exact medians take a second pass:
// the first counts each group's durations by bucket (durBucket: 1/16 of an
// octave) and writes each kept kernel's group and duration to a temporary
// file (durSpill, a few bytes a kernel), the second reads that file back
// and keeps only the durations of the buckets that hold the middle ones.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"

	"github.com/rooftool/rooftool/ingest"
)

// TimeError says the kernels' times cannot be summarised: some have
// none, or their sum does not fit int64 nanoseconds.
type TimeError struct{ Msg string }

func (e *TimeError) Error() string { return e.Msg }

// errFound stops a scan early.
var errFound = errors.New("found")

// tablesTimeline reports whether the kernels table under dir has a
// timeline row (nsys, Kineto), as SummarySource asks.
func tablesTimeline(dir string) (bool, error) {
	err := ingest.ScanKernels(dir, []string{"pass"}, func(b *ingest.KernelBatch) error {
		for _, i := range b.Pass.Idx {
			if i >= 0 && b.Pass.Dict[i] == ingest.PassTimeline {
				return errFound
			}
		}
		return nil
	})
	if err == errFound {
		return true, nil
	}
	return false, err
}

// groupTable maps a batch's (range key, name key) to a summary group: the
// keys number the values of the columns a kernel's range and name come
// from (range_path, else range; name, short_name, mangled).
type groupTable struct {
	dicts  [5][]string // range_path, range, name, short_name, mangled
	nk     int         // name keys
	dense  []int32     // rk*nk+nk -> group+1; 0 unknown, -1 left out
	sparse map[int64]int32
}

// tableDenseMax is the most cells of a dense groupTable.
const tableDenseMax = 1 << 22

// sameDict reports whether two dictionaries of a scan are the same slice
// (a scan hands each file's dictionary on from batch to batch).
func sameDict(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// StreamSummary is KernelSummary(SummarySource(kernels, source), opts) over
// the kernels table under dir, read batch by batch. Kernels without a time,
// or times whose sum overflows int64 nanoseconds, are a *TimeError.
func StreamSummary(dir, source string, opts Options) (Summary, error) {
	if err := opts.Validate(); err != nil {
		return Summary{}, err
	}
	match, _ := RangeMatcher(opts.Range)
	timeline := false
	if source == "" {
		var err error
		if timeline, err = tablesTimeline(dir); err != nil {
			return Summary{}, err
		}
	}
	sc := &summaryScan{source: source, timeline: timeline, opts: opts, match: match, order: summaryNameOrder(opts.Names),
		index: map[gkey]int32{}}
	cols := []string{"source", "pass", "range", "range_path", "name", "short_name", "mangled", "duration_ns"}
	sp, err := newDurSpill()
	if err != nil {
		return Summary{}, err
	}
	defer sp.remove()
	sc.spill = sp
	if err := ingest.ScanKernels(dir, cols, sc.batch); err != nil {
		return Summary{}, err
	}
	if sc.noTime > 0 {
		return Summary{}, &TimeError{Msg: fmt.Sprintf("%d kernel(s) have no time (%q first): their export states neither gpu__time_duration.sum nor sm__cycles_elapsed.avg with sm__cycles_elapsed.avg.per_second, so there is nothing to sum", sc.noTime, sc.first)}
	}
	second := false
	for i := range sc.groups {
		second = sc.groups[i].plan() || second
	}
	if second {
		if err := sp.replay(func(g int32, v int64) { sc.groups[g].again(v) }); err != nil {
			return Summary{}, err
		}
	}
	rows := make([]Row, len(sc.groups))
	for i := range sc.groups {
		g := &sc.groups[i]
		m1, m2, err := g.middle()
		if err != nil {
			return Summary{}, err
		}
		rows[i] = g.st.row(g.rng, g.name, m1, m2)
	}
	sum := arrangeRows(rows, opts)
	sum.NameFallbacks = sc.fallback
	return sum, nil
}

type gkey struct{ rng, name string }

// summaryScan is StreamSummary's state across batches and scans.
type summaryScan struct {
	source   string
	timeline bool
	opts     Options
	match    func(string) bool
	order    [3]int
	index    map[gkey]int32
	groups   []streamGroup
	gt       *groupTable
	spill    *durSpill
	total    int64  // every kept kernel's time: no group's or range's sum exceeds it
	noTime   int    // kept kernels without a time (duration_ns null)
	fallback int    // kept kernels without the name asked for (NameFallback)
	first    string // the first of them, named in the error
}

// batch adds the kept rows of b to their groups and the spill.
func (sc *summaryScan) batch(b *ingest.KernelBatch) error {
	str := func(c ingest.StrCol, i int32) string {
		if i < 0 {
			return ""
		}
		return c.Dict[i]
	}
	// Which (pass, source) values count: keep[(pass+1)*ns+source+1],
	// a null value at index 0.
	ns := len(b.Source.Dict) + 1
	keep := make([]bool, (len(b.Pass.Dict)+1)*ns)
	for p := -1; p < len(b.Pass.Dict); p++ {
		for s := -1; s < len(b.Source.Dict); s++ {
			keep[(p+1)*ns+s+1] = summaryKeeps(str(b.Pass, int32(p)), str(b.Source, int32(s)), sc.source, sc.timeline)
		}
	}
	d := [5][]string{b.RangePath.Dict, b.Range.Dict, b.Name.Dict, b.ShortName.Dict, b.Mangled.Dict}
	gt := sc.gt
	if gt == nil || !sameDict(gt.dicts[0], d[0]) || !sameDict(gt.dicts[1], d[1]) || !sameDict(gt.dicts[2], d[2]) ||
		!sameDict(gt.dicts[3], d[3]) || !sameDict(gt.dicts[4], d[4]) {
		gt = &groupTable{dicts: d, nk: len(d[2]) + len(d[3]) + len(d[4]) + 1}
		if rk := len(d[0]) + len(d[1]) + 1; rk*gt.nk <= tableDenseMax {
			gt.dense = make([]int32, rk*gt.nk)
		} else {
			gt.sparse = map[int64]int32{}
		}
		sc.gt = gt
	}
	nRP, nN, nS := int32(len(d[0])), int32(len(d[2])), int32(len(d[3]))
	base := [3]int32{1, 1 + nN, 1 + nN + nS}
	for i := 0; i < b.Rows; i++ {
		if !keep[int(b.Pass.Idx[i]+1)*ns+int(b.Source.Idx[i]+1)] {
			continue
		}
		// Range key: 0 none, 1.. range_path values, then range values.
		// Name key: 0 none, then name, short_name, mangled values. Each
		// is the value GroupKey reads: the first non-empty one.
		var rk, nk int32
		fb := true // the name asked for, sc.order[0], is missing
		if j := b.RangePath.Idx[i]; j >= 0 && d[0][j] != "" {
			rk = 1 + j
		} else if j := b.Range.Idx[i]; j >= 0 && d[1][j] != "" {
			rk = 1 + nRP + j
		}
		names := [3]int32{b.Name.Idx[i], b.ShortName.Idx[i], b.Mangled.Idx[i]}
		for x, c := range sc.order {
			if j := names[c]; j >= 0 && d[2+c][j] != "" {
				nk, fb = base[c]+j, x > 0
				break
			}
		}
		cell := int64(rk)*int64(gt.nk) + int64(nk)
		var g int32
		if gt.dense != nil {
			g = gt.dense[cell]
		} else {
			g = gt.sparse[cell]
		}
		if g == 0 {
			k := ingest.Kernel{RangePath: str(b.RangePath, b.RangePath.Idx[i]), Range: str(b.Range, b.Range.Idx[i]),
				Name: str(b.Name, b.Name.Idx[i]), ShortName: str(b.ShortName, b.ShortName.Idx[i]), Mangled: str(b.Mangled, b.Mangled.Idx[i])}
			g = -1
			if rng, name, ok := GroupKey(&k, sc.opts, sc.match); ok {
				x, seen := sc.index[gkey{rng, name}]
				if !seen {
					x = int32(len(sc.groups))
					sc.index[gkey{rng, name}] = x
					sc.groups = append(sc.groups, streamGroup{rng: rng, name: name})
				}
				g = x + 1
			}
			if gt.dense != nil {
				gt.dense[cell] = g
			} else {
				gt.sparse[cell] = g
			}
		}
		if g <= 0 {
			continue
		}
		if fb {
			sc.fallback++
		}
		grp := &sc.groups[g-1]
		if !b.DurationValid[i] {
			if sc.noTime == 0 {
				sc.first = grp.name
			}
			sc.noTime++
			continue
		}
		v := b.DurationNs[i]
		if v < 0 || sc.total > math.MaxInt64-v {
			return &TimeError{Msg: fmt.Sprintf("kernel times sum past %d ns (int64): kernel %q adds %d ns to %d ns", int64(math.MaxInt64), grp.name, v, sc.total)}
		}
		sc.total += v
		grp.add(v)
		sc.spill.put(g-1, v)
	}
	return sc.spill.err
}

// durSpill is the (group, duration) of every kept kernel in scan order, in
// a temporary file, two unsigned varints a kernel.
type durSpill struct {
	f   *os.File
	buf []byte // not yet written
	err error
}

const spillBuf = 1 << 20

func newDurSpill() (*durSpill, error) {
	f, err := os.CreateTemp("", "rooftool-stats-*")
	if err != nil {
		return nil, err
	}
	return &durSpill{f: f, buf: make([]byte, 0, spillBuf)}, nil
}

func (s *durSpill) put(g int32, v int64) {
	s.buf = binary.AppendUvarint(binary.AppendUvarint(s.buf, uint64(g)), uint64(v))
	if len(s.buf) > spillBuf-2*binary.MaxVarintLen64 {
		s.flush()
	}
}

func (s *durSpill) flush() {
	if _, err := s.f.Write(s.buf); err != nil && s.err == nil {
		s.err = err
	}
	s.buf = s.buf[:0]
}

// replay calls fn with each (group, duration) written.
func (s *durSpill) replay(fn func(g int32, v int64)) error {
	if s.flush(); s.err != nil {
		return s.err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	buf := make([]byte, spillBuf)
	have := 0 // bytes in buf not yet decoded, at its start
	for {
		n, err := io.ReadFull(s.f, buf[have:])
		end := have + n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = nil
		} else if err != nil {
			return err
		}
		last := n == 0 || end < len(buf)
		i := 0
		for {
			// A whole pair, or the end of the file, ahead.
			if !last && end-i < 2*binary.MaxVarintLen64 {
				break
			}
			if i == end {
				break
			}
			g, a := binary.Uvarint(buf[i:end])
			if a <= 0 {
				return fmt.Errorf("stats: temporary file %s damaged", s.f.Name())
			}
			v, b := binary.Uvarint(buf[i+a : end])
			if b <= 0 {
				return fmt.Errorf("stats: temporary file %s damaged", s.f.Name())
			}
			fn(int32(g), int64(v))
			i += a + b
		}
		if last {
			return nil
		}
		have = copy(buf, buf[i:end])
	}
}

func (s *durSpill) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// keepVals is how many durations a group keeps as they are; past that it
// counts them by bucket and its median takes the second pass. histSparse is
// how many buckets a group lists before it holds a count for every
// bucket. Tests lower both.
var (
	keepVals   = 64
	histSparse = 24
)

// Duration buckets: durations below 32 ns have a bucket each; above, a
// bucket spans 1/16 of an octave (the five leading bits). Buckets are in
// duration order.
const (
	bucketSub = 4
	nBuckets  = 1<<(bucketSub+1) + (64-bucketSub-2)<<bucketSub
)

func durBucket(v int64) int {
	if v < 1<<(bucketSub+1) {
		return int(v)
	}
	e := bits.Len64(uint64(v)) // 6..63
	t := int(v >> (e - bucketSub - 1))
	return 1<<(bucketSub+1) + (e-bucketSub-2)<<bucketSub + t - 1<<bucketSub
}

// bucketSpan returns the least and greatest duration of bucket k.
func bucketSpan(k int) (lo, hi int64) {
	if k < 1<<(bucketSub+1) {
		return int64(k), int64(k)
	}
	j := k - 1<<(bucketSub+1)
	e := j>>bucketSub + bucketSub + 2
	t := uint64(j&(1<<bucketSub-1) + 1<<bucketSub)
	sh := uint(e - bucketSub - 1)
	l, h := t<<sh, (t+1)<<sh-1
	if h > math.MaxInt64 {
		h = math.MaxInt64
	}
	return int64(l), int64(h)
}

// streamGroup is one (range, name) group of StreamSummary.
type streamGroup struct {
	rng, name string
	st        durStats
	vals      []int64 // every duration, while there are at most keepVals
	// Past keepVals: counts by bucket, a list of (bucket, count) while it
	// is short, else one count per bucket.
	hb    []uint16
	hn    []int64
	hd    []int64
	hlast int
	// The second pass: the durations in [lo, hi] counted by value; below
	// of them lie under lo.
	lo, hi int64
	below  int64
	counts map[int64]int64
	lastV  int64
	lastN  int64 // durations equal to lastV not yet in counts
}

func (g *streamGroup) add(v int64) {
	g.st.add(v)
	if g.hb == nil && g.hd == nil {
		if len(g.vals) < keepVals {
			g.vals = append(g.vals, v)
			return
		}
		for _, x := range g.vals {
			g.count(durBucket(x))
		}
		g.vals = nil
	}
	g.count(durBucket(v))
}

// count adds one duration to bucket k.
func (g *streamGroup) count(k int) {
	if g.hd != nil {
		g.hd[k]++
		return
	}
	if g.hlast < len(g.hb) && int(g.hb[g.hlast]) == k {
		g.hn[g.hlast]++
		return
	}
	for i, x := range g.hb {
		if int(x) == k {
			g.hn[i]++
			g.hlast = i
			return
		}
	}
	if len(g.hb) < histSparse {
		g.hb = append(g.hb, uint16(k))
		g.hn = append(g.hn, 1)
		g.hlast = len(g.hb) - 1
		return
	}
	g.hd = make([]int64, nBuckets)
	for i, x := range g.hb {
		g.hd[x] = g.hn[i]
	}
	g.hd[k]++
	g.hb, g.hn = nil, nil
}

// plan readies the second pass and reports whether the group needs it: the buckets
// of the middle durations (ranks (n-1)/2 and n/2) give the span [lo, hi]
// whose durations it counts.
func (g *streamGroup) plan() bool {
	if g.hb == nil && g.hd == nil {
		return false
	}
	counts := g.hd
	if counts == nil {
		counts = make([]int64, nBuckets)
		for i, x := range g.hb {
			counts[x] = g.hn[i]
		}
	}
	n := int64(g.st.n)
	r1, r2 := (n-1)/2, n/2
	var seen int64
	k1 := -1
	for k, c := range counts {
		if c == 0 {
			continue
		}
		if k1 < 0 && seen+c > r1 {
			k1 = k
			g.below = seen
			g.lo, _ = bucketSpan(k)
		}
		if seen+c > r2 {
			_, g.hi = bucketSpan(k)
			break
		}
		seen += c
	}
	g.hb, g.hn, g.hd = nil, nil, nil
	g.counts = map[int64]int64{}
	g.lastV, g.lastN = -1, 0
	return true
}

// again counts v in the second pass if it lies in [lo, hi].
func (g *streamGroup) again(v int64) {
	if g.counts == nil || v < g.lo || v > g.hi {
		return
	}
	if v == g.lastV {
		g.lastN++
		return
	}
	if g.lastN > 0 {
		g.counts[g.lastV] += g.lastN
	}
	g.lastV, g.lastN = v, 1
}

// middle returns the durations of ranks (n-1)/2 and n/2.
func (g *streamGroup) middle() (int64, int64, error) {
	n := g.st.n
	if g.counts == nil {
		slices.Sort(g.vals)
		return g.vals[(n-1)/2], g.vals[n/2], nil
	}
	if g.lastN > 0 {
		g.counts[g.lastV] += g.lastN
		g.lastN = 0
	}
	vals := make([]int64, 0, len(g.counts))
	for v := range g.counts {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	r1, r2 := int64(n-1)/2, int64(n)/2
	seen := g.below
	m1, m2 := int64(-1), int64(-1)
	for _, v := range vals {
		seen += g.counts[v]
		if m1 < 0 && seen > r1 {
			m1 = v
		}
		if seen > r2 {
			m2 = v
			break
		}
	}
	if m1 < 0 || m2 < 0 {
		return 0, 0, fmt.Errorf("stats: the durations read back differ from those counted (group %q %q)", g.rng, g.name)
	}
	return m1, m2, nil
}
