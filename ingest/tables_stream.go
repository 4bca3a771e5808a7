package ingest

// Streaming output: Stream has exports parsed into a Builder that hands each
// table's rows to a tableSink whenever knob.RowGroupRows of them have piled up,
// so the memory an ingest holds is bounded by one batch per table rather
// than by the trace. The sink writes each batch as one Parquet row group on
// a goroutine of its own while the parser goes on.

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// Written is what Stream wrote: the rows of each table, and the meta
// rows with key "warning" (also in the meta table).
type Written struct {
	Rows     map[string]int64
	Warnings []Meta
}

// WriteError is a failure to write the tables (not a bad input).
type WriteError struct {
	Dir string
	Err error
}

func (e *WriteError) Error() string { return "write " + e.Dir + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Stream builds tables with fill (a parser run over some exports) and
// persists them under dir as Tables.Write does (the same files, staged and
// swapped in the same way: on any error dir is left as it was). With the
// Parquet format the rows are written as fill adds them, one row group per
// StreamRowGroupRows rows of a table, and the Nsight Systems parser keeps
// its runtime-call index on disk past a size, so a trace of any length is
// ingested in bounded memory. The Arrow IPC format builds the tables in
// memory first (an IPC file cannot grow its dictionaries from batch to
// batch). keep, when not nil, names the tables whose rows are written
// (Parquet only): the others' files hold no rows, and a parser may leave
// out the work of making them (Builder.Keeps). The errors of fill are
// returned as it gives them; failures to write are *WriteError.
func Stream(dir, format string, mem memory.Allocator, keep []string, fill func(*Builder) error) (*Written, error) {
	if format == FormatArrow {
		b := NewBuilder(mem)
		defer b.Release()
		if err := fill(b); err != nil {
			return nil, err
		}
		t := b.Finish()
		defer t.Release()
		w := &Written{Rows: map[string]int64{}}
		for _, n := range TableNames {
			w.Rows[n] = t.NumRows(n)
		}
		w.Warnings = warnings(t.Metas())
		if err := t.Write(dir, format); err != nil {
			return nil, &WriteError{dir, err}
		}
		return w, nil
	}
	var drop map[string]bool
	if keep != nil {
		drop = map[string]bool{}
		for _, n := range TableNames {
			drop[n] = !slices.Contains(keep, n)
		}
	}
	st, err := stage(dir, format)
	if err != nil {
		return nil, &WriteError{dir, err}
	}
	defer st.cleanup()
	sink := newTableSink(st)
	b := NewBuilder(mem)
	defer b.Release()
	b.sink = sink
	b.drop = drop
	if err := fill(b); err != nil {
		serr := sink.close()
		if serr != nil && errors.Is(err, serr) {
			return nil, &WriteError{dir, err}
		}
		return nil, err
	}
	w := &Written{Rows: map[string]int64{}, Warnings: b.warns}
	for _, n := range TableNames {
		rec := b.b[n].NewRecordBatch()
		if drop[n] {
			empty := rec.NewSlice(0, 0)
			rec.Release()
			rec = empty
		}
		w.Rows[n] = sink.rows[n] + rec.NumRows()
		sink.put(n, rec, true)
	}
	if err := sink.close(); err != nil {
		return nil, &WriteError{dir, err}
	}
	if err := st.commit(); err != nil {
		return nil, &WriteError{dir, err}
	}
	return w, nil
}

// warnings picks the meta rows with key "warning".
func warnings(ms []Meta) []Meta {
	var out []Meta
	for _, m := range ms {
		if m.Key == "warning" {
			out = append(out, m)
		}
	}
	return out
}

// sinkBatch is one record bound for a table's file; last marks the final
// one, written even when empty so that every table has its file.
type sinkBatch struct {
	table string
	rec   arrow.RecordBatch
	last  bool
}

// tableSink writes batches of records into the staged Parquet files, one
// row group each, on a goroutine of its own. At most one batch waits while
// another is written.
type tableSink struct {
	st   *staging
	rows map[string]int64 // rows handed to put, per table
	ch   chan sinkBatch
	done chan error
	dead bool

	// Owned by the writing goroutine.
	files map[string]*pqarrow.FileWriter
	wrote map[string]int64

	mu  sync.Mutex
	err error // the first failure, for failed
}

func newTableSink(st *staging) *tableSink {
	s := &tableSink{st: st, rows: map[string]int64{}, ch: make(chan sinkBatch, 1), done: make(chan error, 1),
		files: map[string]*pqarrow.FileWriter{}, wrote: map[string]int64{}}
	go s.loop()
	return s
}

// put hands rec (owned by the sink from now on) to the writer.
func (s *tableSink) put(table string, rec arrow.RecordBatch, last bool) {
	s.rows[table] += rec.NumRows()
	s.ch <- sinkBatch{table, rec, last}
}

func (s *tableSink) loop() {
	var err error
	for b := range s.ch {
		if err == nil {
			if err = s.write(b); err != nil {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
			}
		}
		b.rec.Release()
	}
	for _, w := range s.files {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	s.done <- err
}

func (s *tableSink) write(b sinkBatch) error {
	w := s.files[b.table]
	if w == nil {
		f, err := s.st.create(b.table)
		if err != nil {
			return err
		}
		if w, err = newParquetWriter(b.rec.Schema(), f); err != nil {
			f.Close()
			return err
		}
		s.files[b.table] = w
	}
	if b.rec.NumRows() > 0 || b.last && s.wrote[b.table] == 0 {
		if err := w.Write(b.rec); err != nil {
			return fmt.Errorf("write table %s: %w", b.table, err)
		}
		s.wrote[b.table] += b.rec.NumRows()
	}
	return nil
}

// failed returns the first failure to write so far.
func (s *tableSink) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// close waits for the batches handed over and closes the files; the
// staged files are left to the staging's commit or cleanup.
func (s *tableSink) close() error {
	if s.dead {
		return s.failed()
	}
	s.dead = true
	close(s.ch)
	return <-s.done
}

// StreamRowGroupRows is the rows Stream gathers of a table before it
// writes them as one row group: up to three such batches of a table are in
// memory at once (one filling, one waiting, one being written).
const StreamRowGroupRows = 1 << 17

// BatchRows is the rows of a table a streaming Builder gathers before it
// hands them on: StreamRowGroupRows, or less where tests lower the row
// group (ingest/internal/knob).
func BatchRows() int64 { return min(knob.RowGroupRows, StreamRowGroupRows) }

// Streaming reports whether b hands its rows on as they pile up (Stream)
// rather than holding them all until Finish: a parser that holds rows back
// itself then hands them over a batch at a time (BatchRows).
func (b *Builder) Streaming() bool { return b.sink != nil }

// spill hands table n's rows to the sink once streamRows of them have
// piled up (only when b streams).
func (b *Builder) spill(n string) {
	if b.sink == nil {
		return
	}
	rb := b.b[n]
	if int64(rb.Field(0).Len()) < BatchRows() {
		return
	}
	if b.drop[n] {
		rb.NewRecordBatch().Release()
		return
	}
	b.sink.put(n, rb.NewRecordBatch(), false)
	rb.Reserve(int(BatchRows())) // the next batch: room at once, not by doubling
}

// Keeps reports whether the rows of table n are kept: a streaming Builder
// may drop a table's rows (Stream's keep), and a parser may then leave out the
// work of making them.
func (b *Builder) Keeps(n string) bool { return !b.drop[n] }

// Err returns the first failure to write the rows that a streaming Builder
// handed on (nil for an in-memory one), so that a parser can stop early.
func (b *Builder) Err() error {
	if b.sink == nil {
		return nil
	}
	return b.sink.failed()
}
