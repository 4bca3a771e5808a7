//go:build cgo

package nsys

// A reader of SQLite rows that steps a statement in C and hands Go a chunk
// of rows per call, their integers in one array and their texts in one
// buffer: the SQLite C API of the library go-sqlite3 builds into the
// binary, used without database/sql, whose driver boxes every value in an
// interface (an allocation for each integer past 255) and crosses into C
// once per row. The scans of an nsys export's large tables (runtime calls,
// kernels, NVTX events) read through it.

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
extern int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
extern int sqlite3_close(sqlite3 *db);
extern int sqlite3_busy_timeout(sqlite3 *db, int ms);
extern int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **stmt, const char **tail);
extern int sqlite3_step(sqlite3_stmt *stmt);
extern int sqlite3_finalize(sqlite3_stmt *stmt);
extern int sqlite3_column_count(sqlite3_stmt *stmt);
extern int sqlite3_column_type(sqlite3_stmt *stmt, int i);
extern int64_t sqlite3_column_int64(sqlite3_stmt *stmt, int i);
extern double sqlite3_column_double(sqlite3_stmt *stmt, int i);
extern const unsigned char *sqlite3_column_text(sqlite3_stmt *stmt, int i);
extern int sqlite3_column_bytes(sqlite3_stmt *stmt, int i);
extern const char *sqlite3_errmsg(sqlite3 *db);
extern int sqlite3_extended_errcode(sqlite3 *db);
extern const char *sqlite3_column_name(sqlite3_stmt *stmt, int i);

enum { rtRow = 100, rtDone = 101, rtInteger = 1, rtFloat = 2, rtText = 3, rtBlob = 4, rtNull = 5 };

// rt_fill steps stmt for up to max rows. Columns before textCol (all of
// them when textCol < 0) are integers: a row's go to out, a NULL as null, a
// float that is an integer as that integer (any other float, or an integer
// equal to null, stops the fill as a bad value). Column textCol, when there is one, is a text: its bytes
// go to arena (cap bytes; a row that does not fit is left for the next
// call), its end offset to ends (-1 less the offset for a NULL). It returns the rows filled;
// *rc is the last step's result (rtRow: more rows may follow; rtDone: no
// more; else an error), and an integer column holding a text or blob stops
// the fill with *bad set to its index (the row is not counted).
static int rt_fill(sqlite3_stmt *stmt, int ncol, int textCol, int64_t null, int64_t *out, int max,
                   char *arena, int cap, int64_t *ends, int *used, int *rc, int *bad, int *pending) {
	int n = 0, off = 0;
	*bad = -1;
	while (n < max) {
		if (!*pending) {
			*rc = sqlite3_step(stmt);
			if (*rc != rtRow) {
				break;
			}
		}
		*pending = 0;
		int nint = textCol < 0 ? ncol : textCol;
		if (textCol >= 0) {
			int t = sqlite3_column_type(stmt, textCol);
			if (t != rtNull) {
				const unsigned char *p = sqlite3_column_text(stmt, textCol);
				int len = sqlite3_column_bytes(stmt, textCol);
				if (off + len > cap) {
					if (n == 0) {
						*bad = -2 - len; // one text larger than the arena
						*pending = 1;
						*used = 0;
						return 0;
					}
					*pending = 1;
					break;
				}
				if (len > 0) {
					memcpy(arena + off, p, len);
				}
				off += len;
				ends[n] = off;
			} else {
				ends[n] = -off - 1;
			}
		}
		int64_t *row = out + (int64_t)n * nint;
		for (int i = 0; i < nint; i++) {
			switch (sqlite3_column_type(stmt, i)) {
			case rtInteger:
				row[i] = sqlite3_column_int64(stmt, i);
				if (row[i] == null && null == INT64_MIN) { // the value that stands for NULL
					*bad = i;
					*pending = 1;
					*used = off;
					return n;
				}
				break;
			case rtNull:
				row[i] = null;
				break;
			case rtFloat: {
				// A float is read only where it is an integer that int64
				// holds (and not the value that stands for NULL).
				double d = sqlite3_column_double(stmt, i);
				if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d || ((int64_t)d == null && null == INT64_MIN)) {
					*bad = i;
					*pending = 1;
					*used = off;
					return n;
				}
				row[i] = (int64_t)d;
				break;
			}
			default:
				*bad = i;
				*pending = 1;
				*used = off;
				return n;
			}
		}
		n++;
	}
	*used = off;
	return n;
}
*/
import "C"

import (
	"fmt"
	"strconv"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// nativeRows is one statement's rows, read in chunks (fill).
type nativeRows struct {
	path    string
	db      *C.sqlite3
	stmt    *C.sqlite3_stmt
	ncol    int
	textCol int // -1: none
	rc      C.int
	pending C.int
	done    bool
	cols    []string
}

// nativeOK says whether this build reads SQLite through nativeRows.
const nativeOK = true

// openNative opens path read-only on a connection of its own and prepares
// query, whose ncol columns are integers but for column textCol (-1: none).
// mmap is the PRAGMA mmap_size to set first.
func openNative(path, query string, ncol, textCol int, mmap int64) (*nativeRows, error) {
	r := &nativeRows{path: path, ncol: ncol, textCol: textCol}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	const openReadOnly, openNoMutex = 0x1, 0x8000
	if rc := C.sqlite3_open_v2(cpath, &r.db, openReadOnly|openNoMutex, nil); rc != 0 {
		err := r.err(rc)
		r.close()
		return nil, err
	}
	C.sqlite3_busy_timeout(r.db, C.int(sqliteBusyTimeout.Milliseconds()))
	for _, q := range []string{"PRAGMA mmap_size = " + strconv.FormatInt(mmap, 10), query} {
		if err := r.prepare(q); err != nil {
			r.close()
			return nil, err
		}
		if q == query {
			break
		}
		for r.rc = C.sqlite3_step(r.stmt); r.rc == 100; r.rc = C.sqlite3_step(r.stmt) {
		}
		C.sqlite3_finalize(r.stmt)
		r.stmt = nil
		if r.rc != 101 {
			err := r.err(r.rc)
			r.close()
			return nil, err
		}
	}
	if n := int(C.sqlite3_column_count(r.stmt)); n != ncol {
		r.close()
		return nil, fmt.Errorf("query returned %d columns, want %d", n, ncol)
	}
	return r, nil
}

func (r *nativeRows) prepare(q string) error {
	cq := C.CString(q)
	defer C.free(unsafe.Pointer(cq))
	if rc := C.sqlite3_prepare_v2(r.db, cq, -1, &r.stmt, nil); rc != 0 {
		return r.err(rc)
	}
	return nil
}

// err is the SQLite error of result code rc, as go-sqlite3 would give it
// (sqliteDB.wrap reads its code).
func (r *nativeRows) err(rc C.int) error {
	msg := "unable to open database file"
	xrc := C.int(rc)
	if r.db != nil {
		msg = C.GoString(C.sqlite3_errmsg(r.db))
		xrc = C.sqlite3_extended_errcode(r.db)
	}
	return fmt.Errorf("%s: %w", msg, sqlite3.Error{Code: sqlite3.ErrNo(rc & 0xff), ExtendedCode: sqlite3.ErrNoExtended(xrc)})
}

// fill reads up to len(out)/nint rows (nint: the integer columns), their
// integers into out and, with a text column, their texts into arena with
// each row's end offset in ends (-1 less the offset for a NULL). It returns the rows read and
// the bytes of arena used; 0 rows and no error at the end.
func (r *nativeRows) fill(out []int64, null int64, arena []byte, ends []int64) (int, int, error) {
	if r.done {
		return 0, 0, nil
	}
	nint := r.ncol
	if r.textCol >= 0 {
		nint = r.textCol
	}
	max := len(out) / max(nint, 1)
	if r.textCol >= 0 {
		max = min(max, len(ends))
	}
	var outp *C.int64_t
	if len(out) > 0 {
		outp = (*C.int64_t)(unsafe.Pointer(&out[0]))
	}
	var ap *C.char
	var ep *C.int64_t
	if len(arena) > 0 {
		ap = (*C.char)(unsafe.Pointer(&arena[0]))
	}
	if len(ends) > 0 {
		ep = (*C.int64_t)(unsafe.Pointer(&ends[0]))
	}
	var used, bad C.int
	n := int(C.rt_fill(r.stmt, C.int(r.ncol), C.int(r.textCol), C.int64_t(null), outp, C.int(max), ap, C.int(len(arena)), ep, &used, &r.rc, &bad, &r.pending))
	switch {
	case bad >= 0:
		i := C.int(bad)
		v := "a blob"
		switch C.sqlite3_column_type(r.stmt, i) {
		case 1:
			v = badIntText(int64(C.sqlite3_column_int64(r.stmt, i)))
		case 2:
			v = badFloatText(float64(C.sqlite3_column_double(r.stmt, i)))
		case 3:
			n := C.sqlite3_column_bytes(r.stmt, i)
			v = strconv.Quote(C.GoStringN((*C.char)(unsafe.Pointer(C.sqlite3_column_text(r.stmt, i))), min(n, 64)))
			if n > 64 {
				v += fmt.Sprintf(" (%d bytes)", n)
			}
		}
		return n, int(used), &errBadValue{col: r.colName(int(bad)), value: v}
	case bad < -1:
		return 0, 0, &errTextSize{-2 - int(bad)}
	}
	if r.pending == 0 && r.rc != 100 {
		// Done, or failed: a statement stepped again after its last row
		// would start over.
		r.done = true
		if r.rc != 101 {
			return n, int(used), r.err(r.rc)
		}
	}
	return n, int(used), nil
}

func (r *nativeRows) colName(i int) string {
	return C.GoString(C.sqlite3_column_name(r.stmt, C.int(i)))
}

func (r *nativeRows) close() {
	if r.stmt != nil {
		C.sqlite3_finalize(r.stmt)
		r.stmt = nil
	}
	if r.db != nil {
		C.sqlite3_close(r.db)
		r.db = nil
	}
}
