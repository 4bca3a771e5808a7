package ingest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"strconv"
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

type rowChunk struct {
	ints []int64
	strs []sql.NullString
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
// and text; false at the end or on an error.
func (r *rowStream) next() ([]int64, sql.NullString, bool, error) {
	for r.i >= len(r.strs()) {
		if r.cur.ints != nil {
			select {
			case r.free <- rowChunk{ints: r.cur.ints[:0], strs: r.cur.strs[:0]}:
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
			return nil, sql.NullString{}, false, r.err
		}
		r.cur, r.i = c, 0
	}
	i := r.i
	r.i++
	return r.cur.ints[i*r.nint : (i+1)*r.nint : (i+1)*r.nint], r.cur.strs[i], true, nil
}

func (r *rowStream) strs() []sql.NullString { return r.cur.strs }

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

// readRows runs query for a rowStream.
func (s *sqliteDB) readRows(table, query string, nint int, null int64, r *rowStream) error {
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.wrap(table, err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("sqlite driver %T cannot query", dc)
		}
		rows, err := q.QueryContext(ctx, query, nil)
		if err != nil {
			return s.wrap(table, err)
		}
		defer rows.Close()
		if n := len(rows.Columns()); n != nint+1 {
			return fmt.Errorf("query on %s returned %d columns, want %d", table, n, nint+1)
		}
		dest := make([]driver.Value, nint+1)
		newChunk := func() rowChunk {
			select {
			case c := <-r.free:
				return c
			default:
				return rowChunk{ints: make([]int64, 0, scanChunk*nint), strs: make([]sql.NullString, 0, scanChunk)}
			}
		}
		send := func(c rowChunk) bool {
			select {
			case r.chunks <- c:
				return true
			case <-r.stop:
				return false
			}
		}
		c := newChunk()
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					if len(c.strs) > 0 {
						send(c)
					}
					return nil
				}
				return s.wrap(table, err)
			}
			for i, v := range dest[:nint] {
				var x int64
				switch v := v.(type) {
				case int64:
					x = v
				case float64:
					x = int64(v)
				case bool:
					if v {
						x = 1
					}
				case nil:
					x = null
				default:
					return &InputError{File: s.path, Table: table, Err: fmt.Errorf("column %s holds %T %v, expected an integer", rows.Columns()[i], v, v)}
				}
				c.ints = append(c.ints, x)
			}
			// The text as database/sql would convert it to a string.
			var t sql.NullString
			switch v := dest[nint].(type) {
			case string:
				t = sql.NullString{String: v, Valid: true}
			case []byte:
				t = sql.NullString{String: string(v), Valid: true}
			case int64:
				t = sql.NullString{String: strconv.FormatInt(v, 10), Valid: true}
			case float64:
				t = sql.NullString{String: strconv.FormatFloat(v, 'g', -1, 64), Valid: true}
			case bool:
				t = sql.NullString{String: strconv.FormatBool(v), Valid: true}
			case nil:
			default:
				t = sql.NullString{String: fmt.Sprint(v), Valid: true}
			}
			c.strs = append(c.strs, t)
			if len(c.strs) == scanChunk {
				if !send(c) {
					return nil
				}
				c = newChunk()
			}
		}
	})
}
