package nsys

// SQLite access for the Nsight Systems parser: read-only opening, the
// no-cgo check, and schema introspection (nsys exports add and drop tables
// and columns between schema versions, so every SELECT is built from what a
// file actually has).

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers "sqlite3" (a stub without cgo)

	"github.com/rooftool/rooftool/ingest"
)

// SQLite primary result codes (sqlite.org/rescode.html).
const (
	sqlitePerm     = 3
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadonly = 8
	sqliteCorrupt  = 11
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// sqliteBusyTimeout is how long a query waits on a database that another
// connection holds locked before it fails with "database is locked".
var sqliteBusyTimeout = 3 * time.Second

// sqliteDB is a read-only nsys export with its table and column names.
type sqliteDB struct {
	path   string // the export named in errors
	file   string // the SQLite file (path, or an export made of it)
	db     *sql.DB
	tables map[string]bool
	cols   map[string]map[string]bool // table -> column -> present
}

// sqliteDSN builds a read-only URI for path. Characters that a URI would
// take as a query or fragment are escaped.
func sqliteDSN(path string) string {
	u := url.URL{Path: path}
	p := u.EscapedPath()
	p = strings.ReplaceAll(p, "?", "%3F")
	p = strings.ReplaceAll(p, "#", "%23")
	return fmt.Sprintf("file:%s?mode=ro&_mutex=no&_busy_timeout=%d", p, sqliteBusyTimeout.Milliseconds())
}

// openSQLite opens path read-only and checks that it is a readable SQLite
// database. A go-sqlite3 built without cgo is reported as a build problem
// (not an InputError); a file that is not SQLite, is corrupt or is locked is
// an *InputError.
func openSQLite(path string) (*sqliteDB, error) {
	db, err := sql.Open("sqlite3", sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("ingest %s: open sqlite: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	s := &sqliteDB{path: path, file: path, db: db, tables: map[string]bool{}, cols: map[string]map[string]bool{}}
	var v string
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&v); err != nil {
		db.Close()
		if !sqliteCgo {
			return nil, fmt.Errorf("ingest %s: rooftool was built without cgo, so it cannot read SQLite (build with CGO_ENABLED=1): %w", path, err)
		}
		return nil, s.wrap("", err)
	}
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type IN ('table','view')")
	if err != nil {
		db.Close()
		return nil, s.wrap("sqlite_master", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			db.Close()
			return nil, s.wrap("sqlite_master", err)
		}
		s.tables[n] = true
	}
	if err := rows.Err(); err != nil {
		db.Close()
		return nil, s.wrap("sqlite_master", err)
	}
	return s, nil
}

func (s *sqliteDB) Close() error { return s.db.Close() }

// wrap turns a SQLite error into an *InputError naming the file and table,
// with a hint for the common causes.
func (s *sqliteDB) wrap(table string, err error) error {
	if code, ok := sqliteCode(err); ok {
		switch code {
		case sqliteBusy, sqliteLocked:
			return &ingest.InputError{File: s.path, Table: table, Err: fmt.Errorf("database is locked by another process (waited %v; is nsys still writing it?): %w", sqliteBusyTimeout, err)}
		case sqliteNotADB:
			return &ingest.InputError{File: s.path, Table: table, Err: fmt.Errorf("not an SQLite database, expected an Nsight Systems export: %w", err)}
		case sqliteCorrupt:
			return &ingest.InputError{File: s.path, Table: table, Err: fmt.Errorf("corrupt SQLite database (truncated copy? export it again with nsys export --type sqlite): %w", err)}
		case sqliteCantOpen, sqlitePerm, sqliteReadonly:
			return &ingest.InputError{File: s.path, Table: table, Err: fmt.Errorf("cannot open database: %w", err)}
		}
	}
	return &ingest.InputError{File: s.path, Table: table, Err: err}
}

// has reports whether the table exists.
func (s *sqliteDB) has(table string) bool { return s.tables[table] }

// columns returns the set of columns of table (empty if it does not exist).
func (s *sqliteDB) columns(table string) (map[string]bool, error) {
	if c, ok := s.cols[table]; ok {
		return c, nil
	}
	c := map[string]bool{}
	if s.has(table) {
		// Table names come from sqlite_master, never from input text
		// outside it; quote them anyway.
		rows, err := s.db.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			return nil, s.wrap(table, err)
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return nil, s.wrap(table, err)
			}
			c[n] = true
		}
		if err := rows.Err(); err != nil {
			return nil, s.wrap(table, err)
		}
	}
	s.cols[table] = c
	return c, nil
}

// colOr returns the quoted column name if table has it, else the SQL
// fallback expression.
func colOr(cols map[string]bool, prefix, name, fallback string) string {
	if cols[name] {
		return prefix + `"` + name + `"`
	}
	return fallback
}

// tableList names the tables of the database, sorted, for error messages.
func (s *sqliteDB) tableList(max int) string {
	var n []string
	for t := range s.tables {
		n = append(n, t)
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "no tables"
	}
	if len(n) > max {
		return strings.Join(n[:max], ", ") + fmt.Sprintf(", ... (%d tables)", len(n))
	}
	return strings.Join(n, ", ")
}

// mmapMax is the largest export scanInts maps into memory: a full-table
// scan of a mapped file copies no pages through read(2), but the mapped
// pages count in the process's resident set, which must stay bounded for
// exports of many gigabytes.
const mmapMax = 256 << 20

// scanChunk is how many rows scanInts reads ahead of fn.
const scanChunk = 1024

// scanInts runs query, whose columns must all be integers (use COALESCE for
// nullable ones), and calls fn with each row. It reads through the driver
// directly, database/sql's per-value conversion costing more than SQLite
// itself on million-row tables, and on a goroutine of its own, a chunk of
// rows ahead of fn, so that SQLite and fn run side by side. vals is reused
// between rows.
func (s *sqliteDB) scanInts(table, query string, ncol int, fn func(vals []int64) error) error {
	return s.scanIntsNull(table, query, ncol, 0, fn)
}

// sqlNull is how scanIntsNull can be asked to give a NULL.
const sqlNull = math.MinInt64

// scanIntsNull is scanInts giving null for a NULL (scanInts gives 0).
func (s *sqliteDB) scanIntsNull(table, query string, ncol int, null int64, fn func(vals []int64) error) error {
	chunks := make(chan []int64, 2)
	free := make(chan []int64, 3)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		defer close(chunks)
		done <- s.readInts(table, query, ncol, null, func(buf []int64) bool {
			select {
			case chunks <- buf:
				return true
			case <-stop:
				return false
			}
		}, free)
	}()
	var ferr error
	for buf := range chunks {
		if ferr == nil {
			for i := 0; i+ncol <= len(buf); i += ncol {
				if ferr = fn(buf[i : i+ncol : i+ncol]); ferr != nil {
					close(stop)
					break
				}
			}
		}
		select {
		case free <- buf[:0]:
		default:
		}
	}
	if err := <-done; ferr == nil {
		return err
	}
	return ferr
}

// readInts runs query and hands its rows, scanChunk at a time and ncol
// values a row (null for a NULL), to send (false: stop reading). Buffers
// come from free where it has one.
func (s *sqliteDB) readInts(table, query string, ncol int, null int64, send func([]int64) bool, free chan []int64) error {
	mmap := s.mmapSize()
	if nativeOK {
		return s.readNative(table, query, ncol, null, int64(mmap), send, free)
	}
	return s.queryRows(table, query, ncol, mmap, func(rows driver.Rows) error {
		dest := make([]driver.Value, ncol)
		newBuf := func() []int64 {
			select {
			case b := <-free:
				return b
			default:
				return make([]int64, 0, scanChunk*ncol)
			}
		}
		buf := newBuf()
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					if len(buf) > 0 {
						send(buf)
					}
					return nil
				}
				return s.wrap(table, err)
			}
			for i, v := range dest {
				x, ok := sqlInt(v, null)
				if !ok {
					return &ingest.InputError{File: s.path, Table: table, Err: &errBadValue{col: rows.Columns()[i], value: badValueText(v)}}
				}
				buf = append(buf, x)
			}
			if len(buf) == scanChunk*ncol {
				if !send(buf) {
					return nil
				}
				buf = newBuf()
			}
		}
	})
}

// readNative is readInts through nativeRows.
func (s *sqliteDB) readNative(table, query string, ncol int, null, mmap int64, send func([]int64) bool, free chan []int64) error {
	r, err := openNative(s.file, query, ncol, -1, mmap)
	if err != nil {
		return s.wrap(table, err)
	}
	defer r.close()
	for {
		var buf []int64
		select {
		case buf = <-free:
		default:
			buf = make([]int64, 0, scanChunk*ncol)
		}
		n, _, err := r.fill(buf[:scanChunk*ncol], null, nil, nil)
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
		if !send(buf[:n*ncol]) {
			return nil
		}
	}
}

// errBadValue is a value of an integer column that is not a number.
type errBadValue struct {
	col, value string
}

func (e *errBadValue) Error() string {
	return fmt.Sprintf("column %s holds %s, expected an integer", e.col, e.value)
}

// errTextSize: the next row's text is longer than the buffer given to a
// nativeRows fill.
type errTextSize struct{ n int }

func (e *errTextSize) Error() string { return fmt.Sprintf("a text of %d bytes", e.n) }

// badIntText and badFloatText describe an integer column's value that is
// refused: an integer equal to the value standing for NULL (math.MinInt64,
// which no time or id of an export is), a float that is not an integer
// int64 holds.
func badIntText(v int64) string {
	return fmt.Sprintf("the integer %d (-2^63, which no time or id of an export is)", v)
}

func badFloatText(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0) || f < -(1<<63) || f >= 1<<63:
		return fmt.Sprintf("the REAL %g, out of the range of a 64-bit integer", f)
	case f != math.Trunc(f):
		return fmt.Sprintf("the REAL %s, not a whole number", strconv.FormatFloat(f, 'f', -1, 64))
	}
	return fmt.Sprintf("the REAL %g (-2^63, which no time or id of an export is)", f)
}

// badValueText describes a value sqlInt refuses.
func badValueText(v any) string {
	switch v := v.(type) {
	case int64:
		return badIntText(v)
	case float64:
		return badFloatText(v)
	case string:
		return strconv.Quote(v)
	case []byte:
		return "a blob"
	}
	return fmt.Sprintf("%T %v", v, v)
}

// sqlInt is an integer column's value as database/sql scanned it into an
// any: int64, float64 that is an integer, bool (0 or 1), NULL (null); false
// for any other type or value (a fraction; an integer equal to null where
// null is sqlNull).
func sqlInt(v any, null int64) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, v != null || null != sqlNull
	case float64:
		if !(v >= -(1<<63) && v < 1<<63) || v != math.Trunc(v) || int64(v) == null && null == sqlNull {
			return 0, false
		}
		return int64(v), true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	case nil:
		return null, true
	}
	return 0, false
}

// mmapSize is the SQLite mmap_size for reading the export: the whole file
// where it is at most mmapMax bytes, else 0 (read, not mapped).
func (s *sqliteDB) mmapSize() int {
	if st, err := os.Stat(s.file); err == nil && st.Size() <= mmapMax {
		return mmapMax
	}
	return 0
}

// queryRows runs query on one connection through the driver's own rows
// (no database/sql conversion), after setting mmap_size to mmap (a negative
// mmap leaves SQLite's setting as it is),
// checks that it returns ncol columns and hands the rows to each.
func (s *sqliteDB) queryRows(table, query string, ncol, mmap int, each func(driver.Rows) error) error {
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.wrap(table, err)
	}
	defer conn.Close()
	if mmap >= 0 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA mmap_size = %d", mmap)); err != nil {
			return s.wrap(table, err)
		}
	}
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
		if n := len(rows.Columns()); n != ncol {
			return fmt.Errorf("query on %s returned %d columns, want %d", table, n, ncol)
		}
		return each(rows)
	})
}
