//go:build cgo

package nsys

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// writeCopiesExport writes an nsys export of one cell's NVTX ranges
// (ex > eager > n=4) holding a kernel, two device-to-device copies of
// 536,870,912 bytes, a host-to-device copy of 1,048,576 bytes and a memset
// of 4,096 bytes, and a device-to-device copy of 2,048 bytes outside any
// range.
func writeCopiesExport(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO StringIds VALUES (1, 'k'), (2, 'k')`,
		`CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT, domainId INT, textId INT)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT, returnValue INT)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT, demangledName INT, shortName INT, registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT, globalPid INT, mangledName INT, graphNodeId INT)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL, deviceId INT, contextId INT, streamId INT, correlationId INT, globalPid INT, bytes INT NOT NULL, copyKind INT NOT NULL, srcKind INT, dstKind INT)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT NOT NULL, end INT NOT NULL, deviceId INT, contextId INT, streamId INT, correlationId INT, globalPid INT, value INT, bytes INT NOT NULL, memKind INT)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const pid, g = 7 << 24, 7<<24 | 1
	ins := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i, s := range []string{"ex", "eager", "n=4"} {
		ins(`INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, ?, 0, NULL)`, 100+i, 1000-i, s, g)
	}
	for corr := int64(1); corr <= 6; corr++ {
		start := 200 + 100*corr
		if corr == 6 {
			start = 2000 // outside the ranges
		}
		ins(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, 7, 0)`, start, start+5, g, corr)
	}
	ins(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (5000, 5100, 0, 1, 7, 1, 1, 2, 32, 1, 1, 1, 128, 1, 1, 0, 0, ?, NULL, NULL)`, pid)
	ins(`INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5200, 5300, 0, 1, 7, 2, ?, 536870912, 8, 3, 3)`, pid)
	ins(`INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5400, 5500, 0, 1, 7, 3, ?, 536870912, 8, 3, 3)`, pid)
	ins(`INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5600, 5700, 0, 1, 7, 4, ?, 1048576, 1, 2, 3)`, pid)
	ins(`INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (5800, 5900, 0, 1, 7, 5, ?, 0, 4096, 3)`, pid)
	ins(`INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (6000, 6100, 0, 1, 7, 6, ?, 2048, 8, 3, 3)`, pid)
}

// TestNsysCopies: each copy and memset is a range under its launching
// call's NVTX range, and CellCopies sums the cell's as DRAM traffic.
func TestNsysCopies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copies.sqlite")
	writeCopiesExport(t, path)
	tb, err := ingesttest.File(parseExport, path, ingest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	var texts []string
	for _, r := range tb.Ranges() {
		if r.Kind == ingest.RangeMemcpy || r.Kind == ingest.RangeMemset {
			texts = append(texts, r.Path)
		}
	}
	want := []string{
		"ex/eager/n=4/memcpy DtoD 536870912 B", "ex/eager/n=4/memcpy DtoD 536870912 B", "ex/eager/n=4/memcpy HtoD 1048576 B",
		"memcpy DtoD 2048 B", "ex/eager/n=4/memset 4096 B",
	}
	if len(texts) != len(want) {
		t.Fatalf("copy ranges %q, want %q", texts, want)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Errorf("copy range %d: %q, want %q", i, texts[i], want[i])
		}
	}
	got := ingest.CellCopies(tb)
	// By hand: two copies within the device read and write their bytes,
	// 2 x 2 x 536,870,912 = 2,147,483,648; the host-to-device copy writes
	// 1,048,576 once; the memset writes 4,096 once; the copy outside the
	// range belongs to no cell.
	tot, ok := got[cellkey.New("ex", "eager", "n=4")]
	if !ok || len(got) != 1 {
		t.Fatalf("CellCopies = %v, want one cell ex/eager/n=4", got)
	}
	if tot.Count != 4 || tot.Bytes != 1074794496 || tot.DRAMBytes != 2148536320 || tot.DtoDBytes != 1073741824 {
		t.Errorf("ex/eager/n=4 copies %+v, want 4 copies of 1,074,794,496 bytes, 2,148,536,320 of DRAM traffic, 1,073,741,824 device to device", tot)
	}
}
