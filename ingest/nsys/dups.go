package nsys

import "slices"

// rowHashes finds rows that repeat another row exactly, in bounded memory
// for exports of any size: one 64-bit hash per row, sorted once at the
// end (8 bytes a row, 80 MB for 10M kernels). Equal hashes of different
// rows are possible (about n^2/2^65: 3e-6 for 10M rows), so a count is
// "rows that repeat another", never a reason to drop one.
type rowHashes struct{ h []uint64 }

// add records one row, given as the values that identify it.
func (r *rowHashes) add(vals ...int64) {
	h := uint64(14695981039346656037)
	for _, v := range vals {
		h = (h ^ mix64(uint64(v))) * 1099511628211
	}
	r.h = append(r.h, h)
}

// mix64 is splitmix64's finaliser: every bit of v moves every bit of the
// result, so nearby values (timestamps, ids) do not collide.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// repeats is the number of rows whose values an earlier row already had.
func (r *rowHashes) repeats() int {
	slices.Sort(r.h)
	n := 0
	for i := 1; i < len(r.h); i++ {
		if r.h[i] == r.h[i-1] {
			n++
		}
	}
	r.h = nil
	return n
}

// streamOrder finds kernel rows that do not start after the row before
// them on their stream (device, context, stream), in row order. A stream
// runs one kernel at a time and nsys writes each stream's kernels in the
// order they ran, so an export without such rows holds no kernel twice: a
// repeated row starts where an earlier row of its stream started. Only
// where some are found is the table hashed row by row (rowHashes, a second
// scan), so a sound export costs one small map.
type streamOrder struct {
	// streams holds the first streamsInline streams met, each with its
	// latest start, searched from the one last hit: an export has a few
	// streams, and a row of the same stream as the one before it (most
	// rows) costs one comparison instead of a map lookup. Streams past
	// those go to more.
	streams [streamsInline]streamLatest
	nst     int
	hit     int
	more    map[[3]int64]int64
	n       int // rows not after their stream's previous row
}

const streamsInline = 16

type streamLatest struct {
	key   [3]int64
	start int64
}

func (s *streamOrder) add(dev, ctx, stream, start int64) {
	k := [3]int64{dev, ctx, stream}
	if h := &s.streams[s.hit]; s.nst > 0 && h.key == k {
		s.after(&h.start, start)
		return
	}
	for i := 0; i < s.nst; i++ {
		if h := &s.streams[i]; h.key == k {
			s.hit = i
			s.after(&h.start, start)
			return
		}
	}
	if s.nst < streamsInline {
		s.streams[s.nst] = streamLatest{k, start}
		s.hit = s.nst
		s.nst++
		return
	}
	if s.more == nil {
		s.more = map[[3]int64]int64{}
	}
	prev, ok := s.more[k]
	if !ok {
		s.more[k] = start
		return
	}
	s.after(&prev, start)
	s.more[k] = prev
}

// after counts start when it is not after *latest, else makes it the latest.
func (s *streamOrder) after(latest *int64, start int64) {
	if start <= *latest {
		s.n++
		return
	}
	*latest = start
}

// suspect reports whether a row did not start after its stream's previous.
func (s *streamOrder) suspect() bool { return s.n > 0 }

// repeatedRows counts the rows of a query that repeat another exactly, in
// a second scan (scanSplit of query, ncol columns): each row is hashed
// whole but for column rowidCol, the row id that tells every row apart.
func repeatedRows(db *sqliteDB, table, query string, ncol, rowidCol int) (int, error) {
	var h rowHashes
	err := db.scanSplit(table, query, ncol, sqlNull, func(v []int64) error {
		v[rowidCol] = 0
		h.add(v...)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return h.repeats(), nil
}
