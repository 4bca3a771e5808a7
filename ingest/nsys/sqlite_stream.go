package nsys

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rooftool/rooftool/ingest"
)

// rowStream reads the rows of a query of nint integer columns and one text
// column, in the query's order, on a goroutine of its own a chunk ahead of
// the reader, which pulls them one at a time (next). Unlike scanInts it
// leaves the reader in charge of the pace, so that two streams can be
// merged.
type rowStream struct {
	nint   int
	chunks chan rowChunk
	free   chan rowChunk
	stop   chan struct{}
	done   chan error
	cur    rowChunk
	i      int // next row of cur
	err    error
	closed bool
}

// rowChunk is some rows: their integers, and their texts one after another
// in text, ends[i] the end of row i's (-1 less it for a NULL).
type rowChunk struct {
	ints  []int64
	text  string
	ends  []int64
	arena []byte // where text was gathered, to be reused
}

// streamRows starts query (columns: nint integers, a NULL read as null,
// then one text) on a connection of its own.
func (s *sqliteDB) streamRows(table, query string, nint int, null int64) *rowStream {
	r := &rowStream{nint: nint, chunks: make(chan rowChunk, 2), free: make(chan rowChunk, 3), stop: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		defer close(r.chunks)
		r.done <- s.readRows(table, query, nint, null, r)
	}()
	return r
}

// next returns the next row's integers (valid until the following call)
// and text (valid: false for a NULL); false at the end or on an error.
func (r *rowStream) next() (ints []int64, text string, valid, ok bool, err error) {
	for r.i >= len(r.cur.ends) {
		if r.cur.ints != nil {
			select {
			case r.free <- rowChunk{ints: r.cur.ints[:0], ends: r.cur.ends[:0], arena: r.cur.arena[:0]}:
			default:
			}
			r.cur = rowChunk{}
		}
		c, ok := <-r.chunks
		if !ok {
			if r.err == nil && !r.closed {
				r.err = <-r.done
				r.closed = true
			}
			return nil, "", false, false, r.err
		}
		r.cur, r.i = c, 0
	}
	i := r.i
	r.i++
	ints = r.cur.ints[i*r.nint : (i+1)*r.nint : (i+1)*r.nint]
	e := r.cur.ends[i]
	if e < 0 {
		return ints, "", false, true, nil
	}
	b := int64(0)
	if i > 0 {
		if b = r.cur.ends[i-1]; b < 0 {
			b = -b - 1
		}
	}
	return ints, r.cur.text[b:e], true, true, nil
}

// close stops the reading goroutine and waits for it.
func (r *rowStream) close() {
	if r.closed {
		return
	}
	r.closed = true
	close(r.stop)
	for range r.chunks {
	}
	<-r.done
}

// rowArena is the text bytes a rowStream chunk starts with.
const rowArena = 256 << 10

// readRows runs query for a rowStream.
func (s *sqliteDB) readRows(table, query string, nint int, null int64, r *rowStream) error {
	newChunk := func() rowChunk {
		select {
		case c := <-r.free:
			return c
		default:
			return rowChunk{ints: make([]int64, 0, scanChunk*nint), ends: make([]int64, 0, scanChunk), arena: make([]byte, 0, rowArena)}
		}
	}
	send := func(c rowChunk) bool {
		c.text = string(c.arena)
		select {
		case r.chunks <- c:
			return true
		case <-r.stop:
			return false
		}
	}
	if nativeOK {
		mmap := int64(s.mmapSize())
		nr, err := openNative(s.file, query, nint+1, nint, mmap)
		if err != nil {
			return s.wrap(table, err)
		}
		defer nr.close()
		for {
			c := newChunk()
			n, used, err := nr.fill(c.ints[:scanChunk*nint], null, c.arena[:cap(c.arena)], c.ends[:scanChunk])
			var big *errTextSize
			if errors.As(err, &big) {
				if big.n > ingest.MaxFieldBytes {
					return &ingest.InputError{File: s.path, Table: table, Err: fmt.Errorf("a text of %d bytes, longer than the limit of %s", big.n, ingest.SizeMiB(ingest.MaxFieldBytes))}
				}
				c.arena = make([]byte, 0, big.n)
				n, used, err = nr.fill(c.ints[:scanChunk*nint], null, c.arena[:cap(c.arena)], c.ends[:scanChunk])
			}
			if err != nil {
				var bv *errBadValue
				if errors.As(err, &bv) {
					return &ingest.InputError{File: s.path, Table: table, Err: err}
				}
				return s.wrap(table, err)
			}
			if n == 0 {
				return nil
			}
			c.ints, c.ends, c.arena = c.ints[:n*nint], c.ends[:n], c.arena[:used]
			if !send(c) {
				return nil
			}
		}
	}
	return s.queryRows(table, query, nint+1, -1, func(rows driver.Rows) error {
		dest := make([]driver.Value, nint+1)
		c := newChunk()
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					if len(c.ends) > 0 {
						send(c)
					}
					return nil
				}
				return s.wrap(table, err)
			}
			for i, v := range dest[:nint] {
				x, ok := sqlInt(v, null)
				if !ok {
					return &ingest.InputError{File: s.path, Table: table, Err: &errBadValue{col: rows.Columns()[i], value: badValueText(v)}}
				}
				c.ints = append(c.ints, x)
			}
			// The text as database/sql would convert it to a string.
			switch v := dest[nint].(type) {
			case string:
				c.arena = append(c.arena, v...)
			case []byte:
				c.arena = append(c.arena, v...)
			case int64:
				c.arena = strconv.AppendInt(c.arena, v, 10)
			case float64:
				c.arena = strconv.AppendFloat(c.arena, v, 'g', -1, 64)
			case bool:
				c.arena = strconv.AppendBool(c.arena, v)
			case nil:
			default:
				c.arena = fmt.Append(c.arena, v)
			}
			if dest[nint] == nil {
				c.ends = append(c.ends, -int64(len(c.arena))-1)
			} else {
				c.ends = append(c.ends, int64(len(c.arena)))
			}
			if len(c.ends) == scanChunk {
				if !send(c) {
					return nil
				}
				c = newChunk()
			}
		}
	})
}
