// Package callindex is the index of runtime calls that ties each kernel of
// a trace to its launching call: (process, correlation id) -> (thread,
// enclosing range). The Nsight Systems and Kineto parsers under ingest
// (ingest/nsys, ingest/kineto) build one per export; it imports nothing of
// rooftool.
//
// A trace of tens of millions of kernels has as many calls, so past Chunk
// calls the index lives in a temporary file: chunks of calls sorted in
// memory are written one after another, merged when they overlap, and
// looked up through the first key of each block of Block records, a few
// blocks cached. Kernels come in nearly the order of their calls, so
// lookups mostly hit the cached block.
package callindex

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Chunk is how many calls are sorted in memory at a time, and the most an
// index keeps in memory; Block is the records per block of an index on
// disk. Tests lower both.
var (
	Chunk = 1 << 20
	Block = 4096
)

// Rec is one runtime call: its key (PID, Corr), its Row (calls of one key
// are found in table order) and what a kernel takes from it.
type Rec struct {
	Corr, GTID, Row int64 // correlation id, thread (an nsys globalTid), row in table order
	Rng             int32 // the range's index among the export's ranges (id less the first range id), -1 if none
	Node            int32 // the parser's node of that range, -1 if none
	PID             int32 // 0 when calls are matched on the correlation id alone
}

const recSize = 36

func recCmp(a, b *Rec) int {
	if c := cmp.Compare(a.PID, b.PID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Corr, b.Corr); c != 0 {
		return c
	}
	return cmp.Compare(a.Row, b.Row)
}

// keyCmp compares the keys (pid, corr) of two calls.
func keyCmp(a, b *Rec) int {
	if c := cmp.Compare(a.PID, b.PID); c != 0 {
		return c
	}
	return cmp.Compare(a.Corr, b.Corr)
}

func (r *Rec) put(b []byte) {
	binary.LittleEndian.PutUint64(b, uint64(r.Corr))
	binary.LittleEndian.PutUint64(b[8:], uint64(r.GTID))
	binary.LittleEndian.PutUint64(b[16:], uint64(r.Row))
	binary.LittleEndian.PutUint32(b[24:], uint32(r.Rng))
	binary.LittleEndian.PutUint32(b[28:], uint32(r.Node))
	binary.LittleEndian.PutUint32(b[32:], uint32(r.PID))
}

func (r *Rec) get(b []byte) {
	r.Corr = int64(binary.LittleEndian.Uint64(b))
	r.GTID = int64(binary.LittleEndian.Uint64(b[8:]))
	r.Row = int64(binary.LittleEndian.Uint64(b[16:]))
	r.Rng = int32(binary.LittleEndian.Uint32(b[24:]))
	r.Node = int32(binary.LittleEndian.Uint32(b[28:]))
	r.PID = int32(binary.LittleEndian.Uint32(b[32:]))
}

// Builder collects calls in table order; its zero value is ready to use.
type Builder struct {
	chunk   []Rec
	dir     string   // temporary directory, once a chunk is written
	f       *os.File // the chunks, one after another
	w       *bufio.Writer
	runs    []int64 // start record of each chunk in f
	n       int64   // records in f
	last    Rec     // last record written
	overlap bool    // a chunk starts below the end of the one before
}

// Add adds the next call in table order.
func (b *Builder) Add(r Rec) error {
	switch {
	case b.chunk == nil:
		b.chunk = make([]Rec, 0, min(Chunk, 1<<16))
	case len(b.chunk) == cap(b.chunk) && cap(b.chunk) < Chunk:
		// Past a small trace's calls, the whole chunk at once: growing it
		// by doubling would hold the old and the new array together.
		b.chunk = append(make([]Rec, 0, Chunk), b.chunk...)
	}
	b.chunk = append(b.chunk, r)
	if len(b.chunk) >= Chunk {
		return b.spill()
	}
	return nil
}

// sortChunk sorts the chunk by key, calls of one key in table order.
func (b *Builder) sortChunk() {
	if !slices.IsSortedFunc(b.chunk, func(x, y Rec) int { return recCmp(&x, &y) }) {
		slices.SortFunc(b.chunk, func(x, y Rec) int { return recCmp(&x, &y) })
	}
}

// spill writes the chunk, sorted, after the ones before it.
func (b *Builder) spill() error {
	b.sortChunk()
	if b.f == nil {
		dir, err := os.MkdirTemp("", "rooftool-calls-*")
		if err != nil {
			return err
		}
		b.dir = dir
		if b.f, err = os.Create(filepath.Join(dir, "runs")); err != nil {
			return err
		}
		b.w = bufio.NewWriterSize(b.f, 1<<20)
	}
	if b.n > 0 && recCmp(&b.chunk[0], &b.last) < 0 {
		b.overlap = true
	}
	b.runs = append(b.runs, b.n)
	var buf [recSize]byte
	for i := range b.chunk {
		b.chunk[i].put(buf[:])
		if _, err := b.w.Write(buf[:]); err != nil {
			return err
		}
	}
	b.n += int64(len(b.chunk))
	b.last = b.chunk[len(b.chunk)-1]
	b.chunk = b.chunk[:0]
	return nil
}

// Finish returns the index; the builder is spent.
func (b *Builder) Finish() (*Index, error) {
	if b.f == nil {
		b.sortChunk()
		return &Index{mem: b.chunk}, nil
	}
	if len(b.chunk) > 0 {
		if err := b.spill(); err != nil {
			return nil, b.fail(err)
		}
	}
	b.chunk = nil
	if err := b.w.Flush(); err != nil {
		return nil, b.fail(err)
	}
	f := b.f
	if b.overlap {
		m, err := mergeRuns(f, b.runs, b.n, b.dir)
		if err != nil {
			return nil, b.fail(err)
		}
		f.Close()
		os.Remove(f.Name())
		f = m
	}
	ix := &Index{f: f, dir: b.dir, n: b.n, lastBlk: -1}
	if err := ix.readFences(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

func (b *Builder) fail(err error) error {
	b.Close()
	return err
}

// Close removes what the builder wrote (after an error).
func (b *Builder) Close() {
	if b.f != nil {
		b.f.Close()
	}
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// runReader reads one sorted chunk of the runs file.
type runReader struct {
	r    *bufio.Reader
	left int64
	cur  Rec
	run  int
}

func (r *runReader) next() (bool, error) {
	if r.left == 0 {
		return false, nil
	}
	var buf [recSize]byte
	if _, err := io.ReadFull(r.r, buf[:]); err != nil {
		return false, err
	}
	r.cur.get(buf[:])
	r.left--
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if c := recCmp(&h[i].cur, &h[j].cur); c != 0 {
		return c < 0
	}
	return h[i].run < h[j].run // equal keys: the earlier chunk, table order
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns merges the sorted chunks of f (starting at the records in
// runs, n in all) into a new file in dir.
func mergeRuns(f *os.File, runs []int64, n int64, dir string) (*os.File, error) {
	out, err := os.Create(filepath.Join(dir, "calls"))
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	h := runHeap{}
	for i, start := range runs {
		end := n
		if i+1 < len(runs) {
			end = runs[i+1]
		}
		sec := io.NewSectionReader(f, start*recSize, (end-start)*recSize)
		r := &runReader{r: bufio.NewReaderSize(sec, 64<<10), left: end - start, run: i}
		ok, err := r.next()
		if err != nil {
			out.Close()
			return nil, err
		}
		if ok {
			h = append(h, r)
		}
	}
	heap.Init(&h)
	var buf [recSize]byte
	for h.Len() > 0 {
		r := h[0]
		r.cur.put(buf[:])
		if _, err := w.Write(buf[:]); err != nil {
			out.Close()
			return nil, err
		}
		ok, err := r.next()
		if err != nil {
			out.Close()
			return nil, err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return nil, err
	}
	return out, nil
}

// Index finds the first call (in table order) of a key.
type Index struct {
	mem  []Rec // the whole index, sorted, when it fits in memory
	next int   // the record after the last one found in mem

	f       *os.File
	dir     string
	n       int64
	fence   []Rec // first record of each block
	lastBlk int64 // block in blk, -1 if none
	blk     []Rec
	buf     []byte
}

func (ix *Index) readFences() error {
	nb := (ix.n + int64(Block) - 1) / int64(Block)
	ix.fence = make([]Rec, nb)
	var buf [recSize]byte
	for i := range ix.fence {
		if _, err := ix.f.ReadAt(buf[:], int64(i)*int64(Block)*recSize); err != nil {
			return err
		}
		ix.fence[i].get(buf[:])
	}
	return nil
}

// block loads block i into ix.blk.
func (ix *Index) block(i int64) ([]Rec, error) {
	if i == ix.lastBlk {
		return ix.blk, nil
	}
	start := i * int64(Block)
	cnt := min(int64(Block), ix.n-start)
	if cap(ix.buf) < int(cnt)*recSize {
		ix.buf = make([]byte, Block*recSize)
		ix.blk = make([]Rec, Block)
	}
	b := ix.buf[:cnt*recSize]
	if _, err := ix.f.ReadAt(b, start*recSize); err != nil {
		return nil, err
	}
	ix.blk = ix.blk[:cnt]
	for j := range ix.blk {
		ix.blk[j].get(b[j*recSize:])
	}
	ix.lastBlk = i
	return ix.blk, nil
}

// Find returns the first call with key (pid, corr), or false; a nil Index
// holds no call.
func (ix *Index) Find(pid, corr int64) (Rec, bool, error) {
	if ix == nil {
		return Rec{}, false, nil
	}
	key := Rec{PID: int32(pid), Corr: corr}
	lower := func(s []Rec) int {
		return sort.Search(len(s), func(i int) bool { return keyCmp(&s[i], &key) >= 0 })
	}
	if ix.f == nil {
		// Kernels mostly come in the order of their calls: try the record
		// after the last one found before searching.
		if i := ix.next; i < len(ix.mem) && keyCmp(&ix.mem[i], &key) == 0 && (i == 0 || keyCmp(&ix.mem[i-1], &key) < 0) {
			ix.next = i + 1
			return ix.mem[i], true, nil
		}
		i := lower(ix.mem)
		if i < len(ix.mem) && keyCmp(&ix.mem[i], &key) == 0 {
			ix.next = i + 1
			return ix.mem[i], true, nil
		}
		return Rec{}, false, nil
	}
	// The first record >= key is in the last block whose first record is
	// below key, or else it is the first record of the block after.
	var j int64
	if b := ix.lastBlk; b >= 0 && keyCmp(&ix.fence[b], &key) < 0 && (b+1 == int64(len(ix.fence)) || keyCmp(&ix.fence[b+1], &key) >= 0) {
		j = b + 1 // the cached block is the one
	} else {
		j = int64(lower(ix.fence))
	}
	if j > 0 {
		blk, err := ix.block(j - 1)
		if err != nil {
			return Rec{}, false, err
		}
		if i := lower(blk); i < len(blk) {
			if keyCmp(&blk[i], &key) == 0 {
				return blk[i], true, nil
			}
			return Rec{}, false, nil
		}
	}
	if j < int64(len(ix.fence)) && keyCmp(&ix.fence[j], &key) == 0 {
		return ix.fence[j], true, nil
	}
	return Rec{}, false, nil
}

// Close removes the index's file.
func (ix *Index) Close() {
	if ix == nil || ix.f == nil {
		return
	}
	ix.f.Close()
	os.RemoveAll(ix.dir)
}
