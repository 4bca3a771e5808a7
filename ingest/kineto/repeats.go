package kineto

import (
	"fmt"

	"github.com/rooftool/rooftool/ingest"
)

// Kineto traces: kernel events that repeat another (a launch written twice),
// found per stream as the third read of kineto.go adds kernels.

// repeatKey is what makes two kernel events one launch written twice.
type repeatKey struct {
	name                        string
	start, dur, corr, stream    int64
	dev, gx, gy, gz, bx, by, bz int32
}

// repeatFinder finds kernel events that repeat another exactly (name,
// start, duration, device, stream, correlation id and launch sizes: one
// launch written twice, as a concatenated or re-saved trace has them).
// A stream runs one kernel at a time and Kineto writes a stream's kernels
// in start order, so a repeat starts when its stream's latest kernel did:
// only the kernels of that start are kept per stream. A trace that has
// a stream out of start order (found in the first pass) is read again
// with every kernel's key kept.
type repeatFinder struct {
	last      map[[2]int64]*streamLast
	all       map[repeatKey]bool // every key, for a trace out of order
	unordered bool               // a stream is out of start order
	n         int
	first     string
}

type streamLast struct {
	start int64
	keys  []repeatKey
}

// restart readies the finder for a second read of the same kernels.
func (f *repeatFinder) restart() {
	f.last, f.n, f.first = nil, 0, ""
	if f.unordered {
		f.all = map[repeatKey]bool{}
	}
}

// seen reports whether r repeats a kernel seen before it, and counts it.
func (f *repeatFinder) seen(r *ingest.Kernel) bool {
	key := repeatKey{r.Name, r.StartNs, r.DurationNs, r.CorrelationID, r.Stream, r.Device, r.GridX, r.GridY, r.GridZ, r.BlockX, r.BlockY, r.BlockZ}
	dup := false
	if f.all != nil {
		dup = f.all[key]
		f.all[key] = true
	} else {
		if f.last == nil {
			f.last = map[[2]int64]*streamLast{}
		}
		sk := [2]int64{int64(r.Device), r.Stream}
		st := f.last[sk]
		switch {
		case st == nil:
			f.last[sk] = &streamLast{start: r.StartNs, keys: []repeatKey{key}}
		case r.StartNs > st.start:
			st.start, st.keys = r.StartNs, append(st.keys[:0], key)
		case r.StartNs == st.start:
			for i := range st.keys {
				if st.keys[i] == key {
					dup = true
				}
			}
			if !dup {
				st.keys = append(st.keys, key)
			}
		default:
			f.unordered = true
		}
	}
	if dup {
		if f.n == 0 {
			f.first = fmt.Sprintf("%q at %d ns", r.Name, r.StartNs)
		}
		f.n++
	}
	return dup
}
