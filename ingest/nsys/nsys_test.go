//go:build cgo

package nsys

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rooftool/rooftool/internal/testgz"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
	"github.com/rooftool/rooftool/ingest/internal/knob"
)

// TestNsysRealFiles pins what each committed real export yields. Every
// figure was checked by hand with the sqlite3 CLI; the query is beside it.
func TestNsysRealFiles(t *testing.T) {
	type want struct {
		file      string
		kernels   int   // SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL
		names     int   // SELECT count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL
		shorts    int   // SELECT count(DISTINCT shortName) FROM CUPTI_ACTIVITY_KIND_KERNEL
		totalNs   int64 // SELECT sum(end-start) FROM CUPTI_ACTIVITY_KIND_KERNEL
		withRange int   // kernels whose launching runtime call lies in an NVTX push/pop range (query below)
		ranges    int   // SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59,60)
		copies    int   // SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY, plus the same of _MEMSET where there is one
		gpus      int   // SELECT count(*) FROM TARGET_INFO_GPU
		gpu0      string
		schema    string        // SELECT value FROM EXPORT_META_DATA (or META_DATA_EXPORT) WHERE name='EXPORT_SCHEMA_VERSION'
		first     ingest.Kernel // first kernel by rowid: SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1 (+ StringIds, RUNTIME.globalTid)
	}
	cases := []want{
		{file: "gpu4/report.sqlite", kernels: 4, names: 1, shorts: 1, totalNs: 116670, copies: 12, gpus: 1, gpu0: "Tesla T4", schema: "3.0.0",
			first: ingest.Kernel{Name: "vecAdd(double *, double *, double *, int)", ShortName: "vecAdd", Mangled: "_Z6vecAddPdS_S_i",
				Context: 1, Stream: 13, CorrelationID: 123, PID: 200206, TID: 200206, GridX: 1024, GridY: 1, GridZ: 1,
				BlockX: 256, BlockY: 1, BlockZ: 1, Registers: 16, StartNs: 548779327, DurationNs: 22560}},
		{file: "cutlass_benchmark/report1.sqlite.gz", kernels: 6, names: 1, shorts: 1, totalNs: 162000609, copies: 4, gpus: 4, gpu0: "NVIDIA A100-PCIE-40GB", schema: "3.1.7"},
		{file: "cuda-kernel-library/report2.sqlite", kernels: 1, names: 1, shorts: 1, totalNs: 1448207, copies: 227, gpus: 1, gpu0: "NVIDIA RTX A4500", schema: "3.24.18",
			first: ingest.Kernel{Name: "vectorAdd(int *, int *, int *, int)", ShortName: "vectorAdd", Mangled: "_Z9vectorAddPiS_S_i",
				Context: 1, Stream: 7, CorrelationID: 121, PID: 102981, TID: 102981, GridX: 4096, GridY: 1, GridZ: 1,
				BlockX: 256, BlockY: 1, BlockZ: 1, Registers: 16, StartNs: 333195999, DurationNs: 1448207}},
		// DLProf: nsys 2022.1, schema 2.9.1, PyTorch NVTX ranges. withRange was
		// checked with:
		//   WITH kr AS (SELECT k.rowid kid, r.globalTid g, r.start rs, r.end re
		//     FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
		//     ON r.correlationId = k.correlationId AND r.globalTid/0x1000000 = k.globalPid/0x1000000)
		//   SELECT (SELECT n.text FROM NVTX_EVENTS n WHERE n.eventType=59 AND n.globalTid=kr.g
		//     AND n.start<=kr.rs AND kr.re<=n.end ORDER BY n.start DESC LIMIT 1) t, count(*) FROM kr GROUP BY 1
		// -> cudnn_convolution seq 0: 23, seq 3: 21, add_ seq 2: 1, add_ seq 5: 1 (all at depth 6).
		{file: "DLProf/nsys_profile.sqlite", kernels: 46, names: 26, shorts: 21, totalNs: 346684, withRange: 46, ranges: 82, copies: 12 + 4, gpus: 1,
			gpu0: "NVIDIA GeForce RTX 2070 SUPER", schema: "2.9.1"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tb, err := ingesttest.File(parseExport, nsysRealdata+c.file, ingest.Options{}, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Release()
			ks := tb.Kernels()
			names, shorts := map[string]bool{}, map[string]bool{}
			var total int64
			with := 0
			for _, k := range ks {
				names[k.Name], shorts[k.ShortName] = true, true
				total += k.DurationNs
				if k.Range != "" {
					with++
				}
				if k.Source != ingest.SourceNsys || k.Pass != ingest.PassTimeline || k.File != strings.TrimSuffix(filepath.Base(c.file), ".gz") {
					t.Fatalf("kernel row source/pass/file = %s/%s/%s", k.Source, k.Pass, k.File)
				}
			}
			if len(ks) != c.kernels || len(names) != c.names || len(shorts) != c.shorts || total != c.totalNs || with != c.withRange {
				t.Errorf("kernels %d names %d shorts %d total %d ns with range %d; want %d %d %d %d %d",
					len(ks), len(names), len(shorts), total, with, c.kernels, c.names, c.shorts, c.totalNs, c.withRange)
			}
			if n := tb.NumRows(ingest.TableRanges); n != int64(c.ranges+c.copies) {
				t.Errorf("ranges %d, want %d NVTX ranges and %d copies", n, c.ranges, c.copies)
			}
			g := tb.GPUs()
			if len(g) != c.gpus || g[0].Name != c.gpu0 || g[0].Device != 0 {
				t.Errorf("gpus %d, first %+v; want %d, %q", len(g), g[0], c.gpus, c.gpu0)
			}
			schema := ""
			for _, m := range tb.Metas() {
				if m.Key == "EXPORT_SCHEMA_VERSION" {
					schema = m.Value
				}
			}
			if schema != c.schema {
				t.Errorf("EXPORT_SCHEMA_VERSION %q, want %q", schema, c.schema)
			}
			if c.first.Name != "" {
				got := ks[0]
				w := c.first
				w.Source, w.File, w.Pass = ingest.SourceNsys, filepath.Base(c.file), ingest.PassTimeline
				if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", w) {
					t.Errorf("first kernel\n got %+v\nwant %+v", got, w)
				}
			}
		})
	}
}

func TestNsysDLProfAttribution(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingesttest.File(parseExport, nsysRealdata+"DLProf/nsys_profile.sqlite", ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	got := map[string]int{}
	for _, k := range tb.Kernels() {
		got[k.Range]++
		if n := strings.Count(k.RangePath, "/aten::"); n < 3 {
			t.Errorf("kernel %s: path %q lacks the aten:: nesting", k.ShortName, k.RangePath)
		}
		if k.Experiment != "" {
			t.Errorf("experiment %q set from a path without a shape", k.Experiment)
		}
	}
	want := map[string]int{"aten::cudnn_convolution, seq = 0": 23, "aten::cudnn_convolution, seq = 3": 21, "aten::add_, seq = 2": 1, "aten::add_, seq = 5": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("innermost ranges %v, want %v", got, want)
	}
	// Nesting, checked with: SELECT max(c) FROM (SELECT (SELECT count(*) FROM
	// NVTX_EVENTS o WHERE o.eventType=59 AND o.globalTid=n.globalTid AND
	// o.start<=n.start AND n.end<=o.end AND o.rowid<>n.rowid) c FROM
	// NVTX_EVENTS n WHERE n.eventType=59) -> 6 enclosing ranges at most.
	maxDepth := int32(0)
	for _, r := range tb.Ranges() {
		maxDepth = max(maxDepth, r.Depth)
		if (r.Depth == 0) != (r.ParentID == nil) {
			t.Errorf("range %d depth %d parent %v", r.ID, r.Depth, r.ParentID)
		}
	}
	if maxDepth != 6 {
		t.Errorf("max depth %d, want 6", maxDepth)
	}
}

func TestNsysNoKernelTable(t *testing.T) {
	_, err := ingesttest.File(parseExport, nsysRealdata+"WeatherBench2/report1.sqlite", ingest.Options{}, nil)
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.Table != "CUPTI_ACTIVITY_KIND_KERNEL" || !strings.Contains(err.Error(), "no CUDA kernel activity") || !errors.Is(err, ingest.ErrNoKernels) {
		t.Fatalf("err = %v, want an InputError naming CUPTI_ACTIVITY_KIND_KERNEL and 'no CUDA kernel activity' that is ErrNoKernels", err)
	}
}

func TestNsysBadInput(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.sqlite")
	ingesttest.CopyFile(t, nsysRealdata+"DLProf/nsys_profile.sqlite", trunc, 200000)
	header := filepath.Join(dir, "header.sqlite")
	ingesttest.CopyFile(t, nsysRealdata+"DLProf/nsys_profile.sqlite", header, 100)
	other := filepath.Join(dir, "other.sqlite")
	db, err := sql.Open("sqlite3", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('x')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	noStrings := filepath.Join(dir, "nostrings.sqlite")
	db, _ = sql.Open("sqlite3", noStrings)
	if _, err := db.Exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, shortName INT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, c := range []struct {
		path, table, want string
	}{
		{trunc, "", "corrupt SQLite"},
		{header, "", "SQLite"},
		{other, "", "not an Nsight Systems export"},
		{noStrings, "StringIds", "missing"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tb, err := ingesttest.File(parseExport, c.path, ingest.Options{}, mem)
			if err == nil {
				tb.Release()
				t.Fatal("no error")
			}
			var ie *ingest.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Fatalf("err = %v (%T), want an InputError naming the file and saying %q", err, err, c.want)
			}
			if c.table != "" && ie.Table != c.table {
				t.Errorf("table %q, want %q", ie.Table, c.table)
			}
		})
	}
}

func TestNsysLocked(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "locked.sqlite")
	ingesttest.CopyFile(t, nsysRealdata+"gpu4/report.sqlite", p, -1)
	w, err := sql.Open("sqlite3", "file:"+p+"?_txlock=exclusive")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tx, err := w.Begin() // BEGIN EXCLUSIVE: readers get SQLITE_BUSY
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`CREATE TABLE lockme (x INT)`); err != nil {
		t.Fatal(err)
	}
	old := sqliteBusyTimeout
	sqliteBusyTimeout = 300 * time.Millisecond
	defer func() { sqliteBusyTimeout = old }()
	t0 := time.Now()
	_, err = ingesttest.File(parseExport, p, ingest.Options{}, nil)
	var ie *ingest.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("err = %v, want an InputError saying the database is locked", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("took %v with a %v busy timeout", d, sqliteBusyTimeout)
	}
}

// synthDB writes a small nsys-like export. full selects the schema 3.x
// columns (mangledName, graphNodeId, globalPid, textId, domainId,
// META_DATA_EXPORT); without it the file looks like an older export.
func synthDB(t testing.TB, path string, full bool) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const pid, tidA, tidB = 100, 101, 102
	gA, gB := int64(pid)<<24|tidA, int64(pid)<<24|tidB
	g2 := int64(200)<<24 | 201
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`)
	for i, s := range []string{"void k1<int>(float*)", "k1", "_Z2k1Pf", "k2(void)", "k2", "lib-range", "cudaLaunchKernel"} {
		exec(`INSERT INTO StringIds VALUES (?, ?)`, i+1, s)
	}
	kcols := "start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT, demangledName INT, shortName INT, registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT"
	if full {
		kcols += ", globalPid INT, mangledName INT, graphNodeId INT"
	}
	exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (` + kcols + `)`)
	kern := func(start, end, corr, name, short, mangled, gpid, graph int64) {
		if full {
			var gn any
			if graph != 0 {
				gn = graph
			}
			exec(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,7,?,?,?,32,10,2,1,128,1,1,0,1024,?,?,?)`, start, end, corr, name, short, gpid, mangled, gn)
		} else {
			exec(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,7,?,?,?,32,10,2,1,128,1,1,0,1024)`, start, end, corr, name, short)
		}
	}
	pidOnly := int64(pid) << 24
	kern(200, 210, 1, 1, 2, 3, pidOnly, 0)         // launched in swiglu/fused/M=1,N=2
	kern(220, 230, 2, 4, 5, -1, pidOnly, 0)        // launched inside lib-range too: default domain wins
	kern(600, 610, 3, 1, 2, 3, pidOnly, 0)         // swiglu/unfused/M=1,N=2
	kern(1200, 1210, 4, 4, 5, -1, pidOnly, 0)      // outside push/pop ranges (only a start/end range)
	kern(300, 310, 5, 1, 2, 3, pidOnly, 0)         // thread B: "other"
	kern(700, 710, 6, 4, 5, -1, pidOnly, 0)        // no runtime row
	kern(800, 805, 7, 1, 2, 3, pidOnly, 42)        // graph launch, node 42
	kern(806, 809, 7, 4, 5, -1, pidOnly, 43)       // same launch, node 43
	kern(900, 901, 1, 4, 5, -1, int64(200)<<24, 0) // process 200 reuses correlation id 1
	exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT, returnValue INT)`)
	rt := func(start, end, g, corr int64) {
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,1,?,?,7,0)`, start, end, g, corr)
	}
	rt(125, 129, gA, 1)
	rt(131, 135, gA, 2)
	rt(530, 540, gA, 3)
	rt(1100, 1110, gA, 4)
	rt(150, 160, gB, 5)
	rt(992, 995, gA, 7)
	rt(0, 5, g2, 1)
	ncols := "start INT, end INT, eventType INT, text TEXT, globalTid INT"
	if full {
		ncols += ", domainId INT, textId INT"
	}
	exec(`CREATE TABLE NVTX_EVENTS (` + ncols + `)`)
	nv := func(start int64, end any, et int, text any, g int64, dom, textID any) {
		if full {
			exec(`INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?,?)`, start, end, et, text, g, dom, textID)
		} else {
			exec(`INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?)`, start, end, et, text, g)
		}
	}
	nv(100, 1000, 59, "swiglu", gA, 0, nil)
	nv(110, 500, 59, "fused", gA, 0, nil)
	nv(120, 400, 59, "M=1,N=2", gA, 0, nil)
	nv(510, 990, 59, "unfused", gA, 0, nil)
	nv(520, 980, 59, "M=1,N=2", gA, 0, nil)
	nv(50, 1500, 60, "phase", gA, 0, nil)
	nv(0, 2000, 59, "other", gB, 0, nil)
	nv(1900, nil, 59, "open", gB, 0, nil)
	if full {
		nv(10, nil, 75, "mydomain", gA, 1, nil)
		nv(130, 140, 59, nil, gA, 1, 6)
	} else {
		nv(130, 140, 59, "lib-range", gA, 0, nil)
	}
	exec(`CREATE TABLE TARGET_INFO_GPU (id INT, name TEXT, computeMajor INT, computeMinor INT, smCount INT, totalMemory INT, memoryBandwidth INT, l2CacheSize INT, clockRate INT)`)
	exec(`INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 9, 0, 132, 85028569088, 3352320000000, 52428800, 1980000000)`)
	meta := "EXPORT_META_DATA"
	if full {
		meta = "META_DATA_EXPORT"
	}
	exec(`CREATE TABLE ` + meta + ` (name TEXT, value TEXT)`)
	exec(`INSERT INTO `+meta+` VALUES ('EXPORT_SCHEMA_VERSION', ?)`, map[bool]string{true: "3.20.3", false: "2.9.1"}[full])
}

func TestNsysSynthetic(t *testing.T) {
	for _, full := range []bool{true, false} {
		name := map[bool]string{true: "schema3", false: "schema2"}[full]
		t.Run(name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			p := filepath.Join(t.TempDir(), "synth.sqlite")
			synthDB(t, p, full)
			tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Release()
			ks := tb.Kernels()
			if len(ks) != 9 {
				t.Fatalf("%d kernels, want 9", len(ks))
			}
			type exp struct{ rng, path, cell string }
			want := []exp{
				{"M=1,N=2", "swiglu/fused/M=1,N=2", "swiglu/fused/M=1,N=2"},
				{"M=1,N=2", "swiglu/fused/M=1,N=2", "swiglu/fused/M=1,N=2"},
				{"M=1,N=2", "swiglu/unfused/M=1,N=2", "swiglu/unfused/M=1,N=2"},
				{"", "", "//"},
				{"other", "other", "//"},
				{"", "", "//"},
				{"swiglu", "swiglu", "//"},
				{"swiglu", "swiglu", "//"},
				{"", "", "//"},
			}
			if !full {
				// Without globalPid the kernel of process 200 cannot be told
				// apart: correlation id 1 is taken by the first call read.
				want[8] = exp{"M=1,N=2", "swiglu/fused/M=1,N=2", "swiglu/fused/M=1,N=2"}
				// Without domains lib-range is a default-domain range nested
				// in the shape range, so it is the innermost one.
				want[1] = exp{"lib-range", "swiglu/fused/M=1,N=2/lib-range", "//"}
			}
			for i, w := range want {
				k := ks[i]
				if got := (exp{k.Range, k.RangePath, k.Experiment + "/" + k.Variant + "/" + k.Shape}); got != w {
					t.Errorf("kernel %d (corr %d): %+v, want %+v", i, k.CorrelationID, got, w)
				}
			}
			if ks[5].TID != 0 || ks[0].TID != 101 || ks[4].TID != 102 || ks[0].PID != 100 {
				t.Errorf("pid/tid: %d/%d %d %d", ks[0].PID, ks[0].TID, ks[4].TID, ks[5].TID)
			}
			checkGolden(t, filepath.Join("testdata", "synthetic_"+name+".golden"), ingesttest.DumpTables(tb))

			// Options override the cell.
			tb2, err := ingesttest.File(parseExport, p, ingest.Options{Experiment: "E", Shape: "S"}, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer tb2.Release()
			k := tb2.Kernels()[0]
			if k.Experiment != "E" || k.Variant != "fused" || k.Shape != "S" {
				t.Errorf("override: %q/%q/%q", k.Experiment, k.Variant, k.Shape)
			}
		})
	}
}

func TestFindNsys(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"2025.9.1", "2025.10.2"} {
		p := filepath.Join(dir, v, "bin")
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, "nsys"), []byte("#!/bin/sh\n"), 0o755)
	}
	old := nsysGlobs
	nsysGlobs = []string{filepath.Join(dir, "*", "bin", "nsys")}
	defer func() { nsysGlobs = old }()
	t.Setenv("PATH", t.TempDir())
	got, err := Find("")
	if err != nil || got != filepath.Join(dir, "2025.10.2", "bin", "nsys") {
		t.Errorf("Find = %q, %v; want the 2025.10.2 one", got, err)
	}
	if _, err := Find(filepath.Join(dir, "nope")); err == nil {
		t.Error("override to a missing file: no error")
	}
	nsysGlobs = nil
	if _, err := Find(""); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestNsysRepLibdw(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "nsys")
	os.WriteFile(fake, []byte("#!/bin/sh\necho 'QdstrmImporter: error while loading shared libraries: libdw.so.1: cannot open shared object file' >&2\nexit 1\n"), 0o755)
	rep := filepath.Join(dir, "r.nsys-rep")
	os.WriteFile(rep, []byte("x"), 0o644)
	_, err := ingesttest.File(parseExport, rep, ingest.Options{Nsys: fake}, nil)
	if err == nil || !strings.Contains(err.Error(), "libdw.so.1") || !strings.Contains(err.Error(), "LD_LIBRARY_PATH") {
		t.Fatalf("err = %v, want the libdw fix", err)
	}
}

// TestNsysRepExport runs a fake nsys that "exports" a synthetic SQLite.
func TestNsysRepExport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.sqlite")
	synthDB(t, src, true)
	fake := filepath.Join(dir, "nsys")
	// args: export --type sqlite --output OUT FILE
	os.WriteFile(fake, []byte("#!/bin/sh\ncp '"+src+"' \"$5\"\n"), 0o755)
	rep := filepath.Join(dir, "cell.nsys-rep")
	os.WriteFile(rep, []byte("x"), 0o644)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingesttest.File(parseExport, rep, ingest.Options{Nsys: fake}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if n := tb.NumRows(ingest.TableKernels); n != 9 || tb.Kernels()[0].File != "cell.nsys-rep" {
		t.Errorf("%d kernels, file %q", n, tb.Kernels()[0].File)
	}
}

// TestKernelAppenderMatchesAddKernel ingests several exports into one
// builder with the cached-index appender and with AddKernel and compares.
func TestKernelAppenderMatchesAddKernel(t *testing.T) {
	synth := filepath.Join(t.TempDir(), "synth.sqlite")
	synthDB(t, synth, true)
	inputs := []ingest.Input{
		{Path: nsysRealdata + "DLProf/nsys_profile.sqlite"},
		{Path: synth, Options: ingest.Options{Variant: "V"}},
		{Path: nsysRealdata + "gpu4/report.sqlite"},
		{Path: nsysRealdata + "DLProf/nsys_profile.sqlite"},
	}
	run := func(slow bool) []ingest.Kernel {
		knob.SlowAppend = slow
		defer func() { knob.SlowAppend = false }()
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		tb, err := ingesttest.Files(parseExport, inputs, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer tb.Release()
		return tb.Kernels()
	}
	fast, slow := run(false), run(true)
	if len(fast) != 46+9+4+46 {
		t.Fatalf("%d kernels", len(fast))
	}
	if d := cmp.Diff(slow, fast); d != "" {
		t.Errorf("fast appender differs from AddKernel (-slow +fast):\n%s", d)
	}
}

// TestNsysUnpackedFallback: launch values wider than 16 bits (and a static
// shared size past 2^40) are read whole.
func TestNsysUnpackedFallback(t *testing.T) {
	p := filepath.Join(t.TempDir(), "wide.sqlite")
	synthDB(t, p, true)
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridY = 70000, blockZ = 600, registersPerThread = 70000, staticSharedMemory = 2199023255553 WHERE correlationId = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	ks := tb.Kernels()
	k := ks[2]
	if k.GridY != 70000 || k.BlockZ != 600 || k.Registers != 70000 || k.StaticSharedBytes != 2199023255553 || k.GridX != 10 || k.BlockX != 128 {
		t.Errorf("wide row: %s", ingesttest.KernelLine(k))
	}
	if k := ks[1]; k.GridY != 2 || k.GridZ != 1 || k.BlockX != 128 || k.BlockY != 1 || k.BlockZ != 1 || k.Registers != 32 || k.DynSharedBytes != 1024 {
		t.Errorf("packed row: %s", ingesttest.KernelLine(k))
	}
}

// TestNsysOddPath: characters a file: URI would misread (?, #, %, space).
func TestNsysOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b?c#d%20e")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "r?x.sqlite")
	ingesttest.CopyFile(t, nsysRealdata+"gpu4/report.sqlite", p, -1)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if n := tb.NumRows(ingest.TableKernels); n != 4 {
		t.Errorf("%d kernels, want 4", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "r")); err == nil {
		t.Error("opening created a file named after a truncated path")
	}
}

// TestNsysH100Run pins the nsys exports of the real profile run committed
// under testdata/runs (nsys 2025.3.1 on an H100, schema 3.20.3, NVTX
// experiment > variant > shape). Figures were checked with the sqlite3 CLI:
//
//	SELECT count(*), count(DISTINCT demangledName), count(DISTINCT shortName), sum(end-start) FROM CUPTI_ACTIVITY_KIND_KERNEL;
//	SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59,60);
//	CREATE TEMP TABLE kr AS SELECT k.rowid kid, r.globalTid g, r.start rs, r.end re FROM CUPTI_ACTIVITY_KIND_KERNEL k
//	  LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND r.globalTid/0x1000000 = k.globalPid/0x1000000;
//	SELECT (SELECT group_concat(text, '/') FROM (SELECT n.text FROM NVTX_EVENTS n WHERE n.eventType=59 AND n.globalTid=kr.g
//	  AND n.start<=kr.rs AND kr.re<=n.end ORDER BY n.start)) path, count(*) FROM kr GROUP BY 1;
//
// and the same path query over CUPTI_ACTIVITY_KIND_GRAPH_TRACE for graph
// launches. The profiled cells of scan_gate (and swiglu/unfused-graph) run
// as CUDA graphs, which nsys traces as whole graphs: their kernels are not
// in the kernel table, only cuda_graph ranges are.
func TestNsysH100Run(t *testing.T) {
	const run = ingesttest.Runs + "2026-11-22-h100-003504/raw/nsys/"
	type want struct {
		exp                    string
		kernels, names, shorts int
		totalNs                int64
		nvtx                   int
		copies                 int            // SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY, plus the same of _MEMSET
		paths                  map[string]int // kernels per range_path; "" = not in a range
		graphs                 map[string]int // cuda_graph ranges per parent path
	}
	gla, ssm := "B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=16", "B=16,T=512,d=768,H=12,dk=64,n=16"
	ssm2 := "B=16,T=2048,d=2048,H=16,dk=128,n=16"
	sw, sg := "M=512,N=4096,K=7168", "B=4,T=2048,d=256,dv=64"
	cases := []want{
		{"gla_proj", 3595, 79, 29, 1779792303, 21, 243 + 727, map[string]int{"": 3550,
			"gla_proj/compiled-fwdbwd/" + gla: 8, "gla_proj/compiled/" + gla: 8, "gla_proj/unfused-fwdbwd/" + gla: 10,
			"gla_proj/unfused/" + gla: 8, "gla_proj/wide-gemm-epilogue/" + gla: 1, "gla_proj/wide-gemm-fwdbwd/" + gla: 6,
			"gla_proj/wide-gemm/" + gla: 4}, map[string]int{}},
		{"swiglu", 15789, 26, 12, 1074422904, 15, 20 + 30, map[string]int{"": 15782,
			"swiglu/dual-acc-persistent/" + sw: 1, "swiglu/dual-acc/" + sw: 1, "swiglu/gemm2-epilogue/" + sw: 2, "swiglu/unfused/" + sw: 3},
			map[string]int{"": 459, "swiglu/unfused-graph/" + sw: 1}},
		{"scan_gate", 18574, 27, 10, 27955591, 9, 12 + 12, map[string]int{"": 18574},
			map[string]int{"": 2393, "scan_gate/megakernel/" + sg: 1, "scan_gate/semi-fused/" + sg: 1, "scan_gate/three-kernel/" + sg: 1}},
		{"gated_ssm", 33550, 41, 22, 4744128032, 18, 326 + 736, map[string]int{"": 33518,
			"gated_ssm/compiled/" + ssm2: 6, "gated_ssm/compiled/" + ssm: 6, "gated_ssm/eager/" + ssm2: 8, "gated_ssm/eager/" + ssm: 8,
			"gated_ssm/triton-epilogue/" + ssm2: 2, "gated_ssm/triton-epilogue/" + ssm: 2}, map[string]int{}},
	}
	for _, c := range cases {
		t.Run(c.exp, func(t *testing.T) {
			gz := run + c.exp + "/part-1.sqlite.gz"
			if _, err := os.Stat(gz); err != nil {
				t.Skipf("run export not present: %v", err)
			}
			p := filepath.Join(t.TempDir(), c.exp+".sqlite")
			if err := os.WriteFile(p, testgz.Read(t, gz), 0o644); err != nil {
				t.Fatal(err)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tb, err := ingesttest.File(parseExport, p, ingest.Options{}, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Release()
			ks := tb.Kernels()
			names, shorts, paths := map[string]bool{}, map[string]bool{}, map[string]int{}
			var total int64
			for _, k := range ks {
				names[k.Name], shorts[k.ShortName] = true, true
				total += k.DurationNs
				paths[k.RangePath]++
				if k.RangePath != "" {
					if want := k.Experiment + "/" + k.Variant + "/" + k.Shape; want != k.RangePath || k.Experiment != c.exp {
						t.Errorf("kernel in %q has cell %q", k.RangePath, want)
					}
				}
			}
			if len(ks) != c.kernels || len(names) != c.names || len(shorts) != c.shorts || total != c.totalNs {
				t.Errorf("kernels %d names %d shorts %d total %d; want %d %d %d %d", len(ks), len(names), len(shorts), total, c.kernels, c.names, c.shorts, c.totalNs)
			}
			if fmt.Sprint(paths) != fmt.Sprint(c.paths) {
				t.Errorf("kernels per path\n got %v\nwant %v", paths, c.paths)
			}
			nvtx, copies, graphs := 0, 0, map[string]int{}
			for _, r := range tb.Ranges() {
				switch r.Kind {
				case ingest.RangeMemcpy, ingest.RangeMemset:
					copies++
				case ingest.RangeCUDAGraph:
					parent := ""
					if i := strings.LastIndex(r.Path, "/"); i >= 0 {
						parent = r.Path[:i]
					}
					graphs[parent]++
				default:
					nvtx++
				}
			}
			if nvtx != c.nvtx || copies != c.copies || fmt.Sprint(graphs) != fmt.Sprint(c.graphs) {
				t.Errorf("nvtx ranges %d, copies %d, graphs per path %v; want %d, %d, %v", nvtx, copies, graphs, c.nvtx, c.copies, c.graphs)
			}
			if g := tb.GPUs(); len(g) != 1 || g[0].Name != "NVIDIA H100 80GB HBM3" {
				t.Errorf("gpus %+v", g)
			}
		})
	}
}
