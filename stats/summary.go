package stats

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// Row is one line of a kernel summary as `nsys stats -r
// cuda_gpu_kern_sum` computes it, for one kernel name within one NVTX range.
// Durations are end - start of each launch, in ns.
type Row struct {
	Range     string  // NVTX range path (outer/inner, e.g. experiment/variant/shape), "" outside every range
	Name      string  // kernel name as Options.Names picks it
	TimePct   float64 // TotalNs as a percentage of the total of every kernel of Range (nsys "Time (%)")
	Instances int
	TotalNs   int64
	AvgNs     float64
	MedNs     float64 // the middle duration; the mean of the two middle ones for an even count
	MinNs     int64
	MaxNs     int64
	StdDevNs  float64 // sample standard deviation (n-1 denominator); 0 for a single instance
}

// Kernel names a summary groups by, as nsys spells the report's options.
const (
	NamesDemangled = "demangled" // templated, demangled name: nsys's default
	NamesBase      = "base"      // base name without template arguments and parameters
	NamesMangled   = "mangled"   // raw mangled name, the demangled one where there is none
)

// Orders of the kernels within a range.
const (
	SortTime      = "time"      // total time descending, then instances ascending, then name (nsys's order)
	SortInstances = "instances" // instances descending, then total time descending, then name
	SortName      = "name"      // name ascending
)

// Options shape a kernel summary. The zero value is nsys's report
// split by NVTX range.
type Options struct {
	Names string // NamesDemangled (""), NamesBase or NamesMangled
	// Range keeps the ranges whose path matches: a glob ('*' any run of
	// characters, '/' included; '?' one character; [...] a class) that
	// must match the whole path, or else a substring. Kernels outside
	// every range match as "-". "" keeps every range.
	Range      string
	RangedOnly bool   // leave out the kernels outside every NVTX range
	Sort       string // SortTime (""), SortInstances or SortName
	Top        int    // keep the first Top kernels of each range; 0 keeps all
	// Flat summarises every kernel together, ranges ignored: exactly the
	// rows of `nsys stats -r cuda_gpu_kern_sum`, whose report has no ranges.
	Flat bool
}

// Validate reports an option out of its set.
func (o Options) Validate() error {
	switch o.Names {
	case "", NamesDemangled, NamesBase, NamesMangled:
	default:
		return fmt.Errorf("kernel names %q: want demangled, base or mangled", o.Names)
	}
	switch o.Sort {
	case "", SortTime, SortInstances, SortName:
	default:
		return fmt.Errorf("sort %q: want time, instances or name", o.Sort)
	}
	if o.Top < 0 {
		return fmt.Errorf("top %d: want 0 (all) or more", o.Top)
	}
	if _, err := RangeMatcher(o.Range); err != nil {
		return err
	}
	return nil
}

// UnrangedLabel is how a summary names the kernels outside every NVTX range.
const UnrangedLabel = "-"

// RangeMatcher returns the predicate of Options.Range over range
// paths ("" for kernels outside every range, matched as UnrangedLabel).
func RangeMatcher(pattern string) (func(path string) bool, error) {
	label := func(p string) string {
		if p == "" {
			return UnrangedLabel
		}
		return p
	}
	if pattern == "" {
		return func(string) bool { return true }, nil
	}
	if !strings.ContainsAny(pattern, "*?[") {
		return func(p string) bool { return strings.Contains(label(p), pattern) }, nil
	}
	re, err := globRegexp(pattern)
	if err != nil {
		return nil, fmt.Errorf("range pattern %q: %v", pattern, err)
	}
	return func(p string) bool { return re.MatchString(label(p)) }, nil
}

// globRegexp translates a glob into an anchored regexp: '*' matches any
// run of characters ('/' included), '?' one character, [...] a class
// ([!...] or [^...] negated); everything else is literal.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(glob) && (glob[j] == '!' || glob[j] == '^') {
				j++
			}
			if j < len(glob) && glob[j] == ']' {
				j++
			}
			for j < len(glob) && glob[j] != ']' {
				j++
			}
			if j >= len(glob) {
				return nil, fmt.Errorf("unclosed [")
			}
			class := glob[i+1 : j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

// SummarySource picks the kernel rows a summary counts: the timeline
// (nsys, Kineto) when the tables have one, else the ncu kernel pass. A
// non-empty source restricts it to that source ("nsys", "ncu", "kineto").
// ncu range-pass rows are never kernels and are always left out.
func SummarySource(kernels []ingest.Kernel, source string) []ingest.Kernel {
	hasTimeline := false
	for _, k := range kernels {
		if k.Pass == ingest.PassTimeline {
			hasTimeline = true
			break
		}
	}
	var out []ingest.Kernel
	for _, k := range kernels {
		if summaryKeeps(k.Pass, k.Source, source, hasTimeline) {
			out = append(out, k)
		}
	}
	return out
}

// summaryKeeps is SummarySource's choice for a kernel row of the given
// pass and source, where timeline says whether the rows hold a timeline
// row at all.
func summaryKeeps(pass, src, source string, timeline bool) bool {
	switch {
	case pass == ingest.PassRange:
		return false
	case source != "":
		return src == source
	case timeline:
		return pass == ingest.PassTimeline
	}
	return true
}

// summaryNameOrder is the order in which a kernel's names are tried for
// the name it is grouped by, as indices into (name, short_name, mangled):
// the first non-empty one is taken.
func summaryNameOrder(names string) [3]int {
	switch names {
	case NamesBase:
		return [3]int{1, 0, 2}
	case NamesMangled:
		return [3]int{2, 0, 1}
	}
	return [3]int{0, 1, 2}
}

// summaryName is the name a kernel is grouped by.
func summaryName(k *ingest.Kernel, names string) string {
	cand := [3]string{k.Name, k.ShortName, k.Mangled}
	for _, i := range summaryNameOrder(names) {
		if cand[i] != "" {
			return cand[i]
		}
	}
	return ""
}

// Summary is a kernel summary: its rows, and per range path how many
// rows Options.Top left out.
type Summary struct {
	Rows    []Row
	LeftOut map[string]int
	// NameFallbacks counts the kernels grouped by another name than
	// Options.Names asks for, because the export has none of that
	// kind for them (NameFallback): with NamesMangled, kernels without a
	// mangled name listed by their demangled one.
	NameFallbacks int
}

// NameFallback reports whether k lacks the name opts.Names asks for, so
// that GroupKey groups it by the next name it has.
func NameFallback(k *ingest.Kernel, names string) bool {
	cand := [3]string{k.Name, k.ShortName, k.Mangled}
	return cand[summaryNameOrder(names)[0]] == ""
}

// KernelSummary groups kernels by (NVTX range path, name) and computes,
// per group, the figures of `nsys stats -r cuda_gpu_kern_sum`: total,
// instances, mean, median, min, max and sample standard deviation of the
// durations, and the group's share of its range's kernel time. A kernel
// with no path falls back to its innermost range; nested ranges that end
// in the same name (every variant's "B=8,T=4096,..." of a profile run)
// stay apart. Over an export without NVTX ranges the rows are nsys's
// report, row for row.
//
// Ranges come in path order, the kernels outside every range last; the
// kernels of a range in opts.Sort order, cut to opts.Top.
func KernelSummary(kernels []ingest.Kernel, opts Options) (Summary, error) {
	if err := opts.Validate(); err != nil {
		return Summary{}, err
	}
	match, _ := RangeMatcher(opts.Range)
	type key struct{ rng, name string }
	groups := map[key][]int64{}
	fallbacks := map[key]int{}
	for i := range kernels {
		rng, name, ok := GroupKey(&kernels[i], opts, match)
		if !ok {
			continue
		}
		kk := key{rng, name}
		groups[kk] = append(groups[kk], kernels[i].DurationNs)
		if NameFallback(&kernels[i], opts.Names) {
			fallbacks[kk]++
		}
	}
	gs := make([]Group, 0, len(groups))
	for kk, d := range groups {
		gs = append(gs, Group{Range: kk.rng, Name: kk.name, Durations: d, Fallbacks: fallbacks[kk]})
	}
	return SummariseGroups(gs, opts)
}

// GroupKey returns the (range path, name) group that KernelSummary puts
// k in, and false when opts leave k out; match is RangeMatcher(opts.Range).
// A caller that streams kernel rows groups them with it and hands the
// groups to SummariseGroups.
func GroupKey(k *ingest.Kernel, opts Options, match func(string) bool) (rng, name string, ok bool) {
	rng = k.RangePath
	if rng == "" {
		rng = k.Range
	}
	if rng == "" && opts.RangedOnly || !match(rng) {
		return "", "", false
	}
	if opts.Flat {
		rng = ""
	}
	return rng, summaryName(k, opts.Names), true
}

// Group is the durations of the kernels of one (range path, name)
// group; SummariseGroups sorts Durations in place.
type Group struct {
	Range, Name string
	Durations   []int64
	Fallbacks   int // of its kernels, those without the name asked for (NameFallback)
}

// SummariseGroups is KernelSummary over kernels already grouped by
// GroupKey, one group per key.
func SummariseGroups(groups []Group, opts Options) (Summary, error) {
	if err := opts.Validate(); err != nil {
		return Summary{}, err
	}
	rows := make([]Row, 0, len(groups))
	fb := 0
	for _, g := range groups {
		rows = append(rows, summarise(g.Range, g.Name, g.Durations))
		fb += g.Fallbacks
	}
	s := arrangeRows(rows, opts)
	s.NameFallbacks = fb
	return s, nil
}

// arrangeRows sets each row's share of its range's time and orders the
// rows: ranges by path, the kernels outside every range last; the rows of
// a range in opts.Sort order, cut to opts.Top.
func arrangeRows(all []Row, opts Options) Summary {
	byRange := map[string][]Row{}
	for _, r := range all {
		byRange[r.Range] = append(byRange[r.Range], r)
	}
	ranges := make([]string, 0, len(byRange))
	for r := range byRange {
		ranges = append(ranges, r)
	}
	sort.Slice(ranges, func(i, j int) bool {
		a, b := ranges[i], ranges[j]
		if (a == "") != (b == "") {
			return b == "" // the kernels outside every range last
		}
		return a < b
	})
	less := summaryLess(opts.Sort)
	s := Summary{Rows: []Row{}, LeftOut: map[string]int{}}
	for _, r := range ranges {
		rows := byRange[r]
		var total int64
		for _, x := range rows {
			total += x.TotalNs
		}
		for i := range rows {
			if total > 0 {
				rows[i].TimePct = float64(rows[i].TotalNs) * 100 / float64(total)
			}
		}
		sort.Slice(rows, func(i, j int) bool { return less(&rows[i], &rows[j]) })
		if opts.Top > 0 && len(rows) > opts.Top {
			s.LeftOut[r] = len(rows) - opts.Top
			rows = rows[:opts.Top]
		}
		s.Rows = append(s.Rows, rows...)
	}
	return s
}

// summarise computes one row from the durations of its launches.
func summarise(rng, name string, d []int64) Row {
	slices.Sort(d)
	var st durStats
	for _, v := range d {
		st.add(v)
	}
	n := len(d)
	if n%2 == 0 {
		return st.row(rng, name, d[n/2-1], d[n/2])
	}
	return st.row(rng, name, d[n/2], d[n/2])
}

// durStats are the figures of a group's durations that do not depend on
// their order: count, sum, sum of squares (exact, 128 bits: durations are
// at least 0 and sum to at most MaxInt64, so their squares sum to less
// than 2^126), least and greatest.
type durStats struct {
	n          int
	total      int64
	sqHi, sqLo uint64
	min, max   int64
}

func (s *durStats) add(v int64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.total += v
	hi, lo := bits.Mul64(uint64(v), uint64(v))
	var c uint64
	s.sqLo, c = bits.Add64(s.sqLo, lo, 0)
	s.sqHi += hi + c
}

// row is the summary row of the durations, whose middle ones (by rank
// (n-1)/2 and n/2, equal for an odd count) are m1 and m2. The sample
// standard deviation is computed exactly, sqrt((n*sum(v^2) - sum(v)^2) /
// (n*(n-1))), the quotient rounded once to float64: it depends on the
// durations alone, not on the order they are summed in.
func (s *durStats) row(rng, name string, m1, m2 int64) Row {
	n := s.n
	med := float64(m2)
	if n%2 == 0 {
		med = (float64(m1) + float64(m2)) / 2
	}
	var sd float64
	if n > 1 {
		sq := new(big.Int).Lsh(new(big.Int).SetUint64(s.sqHi), 64)
		sq.Or(sq, new(big.Int).SetUint64(s.sqLo))
		nb := big.NewInt(int64(n))
		sq.Mul(sq, nb)
		t := big.NewInt(s.total)
		sq.Sub(sq, t.Mul(t, t))
		den := new(big.Int).Mul(nb, big.NewInt(int64(n-1)))
		v, _ := new(big.Rat).SetFrac(sq, den).Float64()
		sd = math.Sqrt(v)
	}
	return Row{Range: rng, Name: name, Instances: n, TotalNs: s.total,
		AvgNs: float64(s.total) / float64(n), MedNs: med, MinNs: s.min, MaxNs: s.max, StdDevNs: sd}
}

// summaryLess orders the rows of one range.
func summaryLess(by string) func(a, b *Row) bool {
	switch by {
	case SortInstances:
		return func(a, b *Row) bool {
			if a.Instances != b.Instances {
				return a.Instances > b.Instances
			}
			if a.TotalNs != b.TotalNs {
				return a.TotalNs > b.TotalNs
			}
			return a.Name < b.Name
		}
	case SortName:
		return func(a, b *Row) bool {
			if a.Name != b.Name {
				return a.Name < b.Name
			}
			return a.TotalNs > b.TotalNs
		}
	}
	return func(a, b *Row) bool {
		if a.TotalNs != b.TotalNs {
			return a.TotalNs > b.TotalNs
		}
		if a.Instances != b.Instances {
			return a.Instances < b.Instances
		}
		return a.Name < b.Name
	}
}
