package nsys

import (
	"database/sql"
	"fmt"
	"sync"
)

// splitRows is the rowid span of one range that scanSplit reads; tests
// lower it.
var splitRows int64 = 1 << 16

// scanSplit is scanIntsNull over a query that holds one %s for a rowid
// condition and lists its rows in rowid order: consecutive rowid ranges of
// table are read on two connections at once, alternating between them,
// and fn gets every row in rowid order, as from one scan, SQLite working
// on two cores. A table spanning fewer than four ranges is read in one
// scan.
func (s *sqliteDB) scanSplit(table, query string, ncol int, null int64, fn func(vals []int64) error) error {
	// Two queries: SQLite finds a lone min(rowid) or max(rowid) at an end
	// of the table's b-tree, but scans the whole table for both at once.
	var lo, hi sql.NullInt64
	if err := s.db.QueryRow(`SELECT min(rowid) FROM "` + table + `"`).Scan(&lo); err != nil {
		return s.wrap(table, err)
	}
	if err := s.db.QueryRow(`SELECT max(rowid) FROM "` + table + `"`).Scan(&hi); err != nil {
		return s.wrap(table, err)
	}
	if !lo.Valid || hi.Int64-lo.Int64 < 4*splitRows {
		return s.scanIntsNull(table, fmt.Sprintf(query, "1"), ncol, null, fn)
	}
	// A piece is a chunk of rows, or the end of a range.
	type piece struct {
		buf []int64
		end bool
	}
	const workers = 2
	var chs [workers]chan piece
	stop := make(chan struct{})
	errs := make(chan error, workers)
	free := make(chan []int64, 8) // used chunks, for the workers to fill again
	var wg sync.WaitGroup
	for w := range chs {
		// Room for a whole range: a worker reads its next range while
		// the rows of the other's are used.
		chs[w] = make(chan piece, int(splitRows)/scanChunk+2)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer close(chs[w])
			send := func(p piece) bool {
				select {
				case chs[w] <- p:
					return true
				case <-stop:
					return false
				}
			}
			for a := lo.Int64 + int64(w)*splitRows; a <= hi.Int64; a += workers * splitRows {
				q := fmt.Sprintf(query, fmt.Sprintf("rowid BETWEEN %d AND %d", a, a+splitRows-1))
				ok := true
				if err := s.readInts(table, q, ncol, null, func(buf []int64) bool {
					ok = send(piece{buf: buf})
					return ok
				}, free); err != nil {
					errs <- err
					return
				}
				if !ok || !send(piece{end: true}) {
					return
				}
			}
		}(w)
	}
	var ferr error
	for r := 0; ferr == nil; {
		p, ok := <-chs[r%workers]
		if !ok {
			break // no range r: none after it either
		}
		if p.end {
			r++
			continue
		}
		for i := 0; i+ncol <= len(p.buf); i += ncol {
			if ferr = fn(p.buf[i : i+ncol : i+ncol]); ferr != nil {
				break
			}
		}
		select {
		case free <- p.buf[:0]:
		default:
		}
	}
	close(stop)
	wg.Wait()
	if ferr != nil {
		return ferr
	}
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
