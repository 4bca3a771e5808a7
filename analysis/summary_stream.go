package analysis

// StreamSummary reads the kernels table of a directory a batch at a time
// (ingest.ScanKernels) and keeps only the durations of each (range, name)
// group, so a table of a hundred million kernels never becomes a hundred
// million Kernel rows. Its groups and figures are those of KernelSummary
// over SummarySource: the same summaryKeeps picks the rows, the same
// SummaryKey each kernel's group, SummariseGroups computes the rows.

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/rooftool/rooftool/ingest"
)

// SummaryTimeError says the kernels' times cannot be summarised: some have
// none, or their sum does not fit int64 nanoseconds.
type SummaryTimeError struct{ Msg string }

func (e *SummaryTimeError) Error() string { return e.Msg }

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
// or times whose sum overflows int64 nanoseconds, are a *SummaryTimeError.
func StreamSummary(dir, source string, opts SummaryOptions) (Summary, error) {
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
	type gkey struct{ rng, name string }
	index := map[gkey]int32{}
	var groups []SummaryGroup
	var gt *groupTable
	str := func(c ingest.StrCol, i int32) string {
		if i < 0 {
			return ""
		}
		return c.Dict[i]
	}
	order := summaryNameOrder(opts.Names)
	var (
		total  int64  // every kept kernel's time: no group's or range's sum exceeds it
		noTime int    // kept kernels without a time (duration_ns null)
		first  string // the first of them, named in the error
	)
	cols := []string{"source", "pass", "range", "range_path", "name", "short_name", "mangled", "duration_ns"}
	err := ingest.ScanKernels(dir, cols, func(b *ingest.KernelBatch) error {
		// Which (pass, source) values count: keep[(pass+1)*ns+source+1],
		// a null value at index 0.
		ns := len(b.Source.Dict) + 1
		keep := make([]bool, (len(b.Pass.Dict)+1)*ns)
		for p := -1; p < len(b.Pass.Dict); p++ {
			for s := -1; s < len(b.Source.Dict); s++ {
				keep[(p+1)*ns+s+1] = summaryKeeps(str(b.Pass, int32(p)), str(b.Source, int32(s)), source, timeline)
			}
		}
		d := [5][]string{b.RangePath.Dict, b.Range.Dict, b.Name.Dict, b.ShortName.Dict, b.Mangled.Dict}
		if gt == nil || !sameDict(gt.dicts[0], d[0]) || !sameDict(gt.dicts[1], d[1]) || !sameDict(gt.dicts[2], d[2]) ||
			!sameDict(gt.dicts[3], d[3]) || !sameDict(gt.dicts[4], d[4]) {
			gt = &groupTable{dicts: d, nk: len(d[2]) + len(d[3]) + len(d[4]) + 1}
			if rk := len(d[0]) + len(d[1]) + 1; rk*gt.nk <= tableDenseMax {
				gt.dense = make([]int32, rk*gt.nk)
			} else {
				gt.sparse = map[int64]int32{}
			}
		}
		nRP, nN, nS := int32(len(d[0])), int32(len(d[2])), int32(len(d[3]))
		base := [3]int32{1, 1 + nN, 1 + nN + nS}
		for i := 0; i < b.Rows; i++ {
			if !keep[int(b.Pass.Idx[i]+1)*ns+int(b.Source.Idx[i]+1)] {
				continue
			}
			// Range key: 0 none, 1.. range_path values, then range values.
			// Name key: 0 none, then name, short_name, mangled values. Each
			// is the value SummaryKey reads: the first non-empty one.
			var rk, nk int32
			if j := b.RangePath.Idx[i]; j >= 0 && d[0][j] != "" {
				rk = 1 + j
			} else if j := b.Range.Idx[i]; j >= 0 && d[1][j] != "" {
				rk = 1 + nRP + j
			}
			names := [3]int32{b.Name.Idx[i], b.ShortName.Idx[i], b.Mangled.Idx[i]}
			for _, c := range order {
				if j := names[c]; j >= 0 && d[2+c][j] != "" {
					nk = base[c] + j
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
				if rng, name, ok := SummaryKey(&k, opts, match); ok {
					x, seen := index[gkey{rng, name}]
					if !seen {
						x = int32(len(groups))
						index[gkey{rng, name}] = x
						groups = append(groups, SummaryGroup{Range: rng, Name: name})
					}
					g = x + 1
				}
				if gt.dense != nil {
					gt.dense[cell] = g
				} else {
					gt.sparse[cell] = g
				}
			}
			if g > 0 {
				if !b.DurationValid[i] {
					if noTime == 0 {
						first = groups[g-1].Name
					}
					noTime++
					continue
				}
				d := b.DurationNs[i]
				if d < 0 || total > math.MaxInt64-d {
					return &SummaryTimeError{Msg: fmt.Sprintf("kernel times sum past %d ns (int64): kernel %q adds %d ns to %d ns", int64(math.MaxInt64), groups[g-1].Name, d, total)}
				}
				total += d
				groups[g-1].Durations = append(groups[g-1].Durations, d)
			}
		}
		return nil
	})
	if err != nil {
		return Summary{}, err
	}
	if noTime > 0 {
		return Summary{}, &SummaryTimeError{Msg: fmt.Sprintf("%d kernel(s) have no time (%q first): their export states neither gpu__time_duration.sum nor sm__cycles_elapsed.avg with sm__cycles_elapsed.avg.per_second, so there is nothing to sum", noTime, first)}
	}
	sortGroups(groups)
	return SummariseGroups(groups, opts)
}

// sortGroups sorts each group's durations, the groups shared among the
// CPUs (SummariseGroups then finds them sorted).
func sortGroups(groups []SummaryGroup) {
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return len(groups[b].Durations) - len(groups[a].Durations) })
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				slices.Sort(groups[i].Durations)
			}
		}()
	}
	for _, i := range order {
		work <- i
	}
	close(work)
	wg.Wait()
}
