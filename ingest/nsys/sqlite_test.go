//go:build cgo

package nsys

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/testgz"

	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// scanSplit, reading rowid ranges of 3 rows on two connections, gives the
// rows of one plain scan in the same order, for the kernel and runtime
// tables of every real nsys export and of a 4600-kernel replica.
func TestScanSplitOrder(t *testing.T) {
	old := splitRows
	splitRows = 3
	defer func() { splitRows = old }()
	replica := filepath.Join(t.TempDir(), "replica.sqlite")
	makeNsysReplica(t, replica, 4600)
	paths := []string{replica}
	for _, p := range ingesttest.RealExports(t) {
		switch {
		case strings.HasSuffix(p, ".sqlite"):
			paths = append(paths, p)
		case strings.HasSuffix(p, ".sqlite.gz"): // committed gzipped
			plain := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(p), ".gz"))
			if err := os.WriteFile(plain, testgz.Read(t, p), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, plain)
		}
	}
	for _, p := range paths {
		db, err := openSQLite(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{tabKernel, tabRuntime} {
			if !db.has(table) {
				continue
			}
			q := `SELECT rowid, start, end, correlationId FROM "` + table + `" WHERE %s ORDER BY rowid`
			var whole, split []int64
			collect := func(dst *[]int64) func([]int64) error {
				return func(v []int64) error { *dst = append(*dst, v...); return nil }
			}
			if err := db.scanIntsNull(table, fmt.Sprintf(q, "1"), 4, sqlNull, collect(&whole)); err != nil {
				t.Fatal(err)
			}
			if err := db.scanSplit(table, q, 4, sqlNull, collect(&split)); err != nil {
				t.Fatal(err)
			}
			if len(whole) == 0 || !slices.Equal(whole, split) {
				t.Errorf("%s: %s: split scan gives %d values, one scan %d, or another order", p, table, len(split), len(whole))
			}
		}
		db.Close()
	}
}
