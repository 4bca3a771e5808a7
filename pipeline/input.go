package pipeline

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// InputKind is what a command's input arguments name.
type InputKind int

const (
	// KindExports: raw exports (ncu CSV or .ncu-rep, nsys SQLite or
	// .nsys-rep, Kineto JSON, timing JSON), not yet ingested.
	KindExports InputKind = iota
	// KindTables: one directory of ingested tables without a manifest
	// (rooftool ingest -o DIR, or a run's tables/ folder).
	KindTables
	// KindRun: one run, a directory with a manifest and its tables, or a
	// committed run named by its name (InputOptions.Committed).
	KindRun
)

// InputOptions say what a command takes beside exports and tables, and
// the GPU it names.
type InputOptions struct {
	// Committed lets one argument that is no path on disk name a run
	// committed under testdata/runs (Open); of several arguments, each
	// must then be on disk. Without it such an argument is an export, which
	// the ingest refuses when it is read.
	Committed bool
	GPU       string // --gpu: a catalog GPU whose roofs fill in what the input does not state
	Ceilings  string // --ceilings: measured ceilings in place of the input's own ceilings.json
}

// Input is what a command was given, opened once (OpenInput): which kind
// it is, the run or tables it names, and the GPU it is judged against.
type Input struct {
	Kind InputKind
	Args []string // as the user named them
	// Run is the run of KindRun; for KindTables the directory opened as a
	// run (it has no manifest); nil for exports.
	Run *rundir.Run
	// TablesDir is the folder on disk that holds the tables: the
	// directory given or its tables/ (KindTables, KindRun on disk); "" for
	// exports and a committed run.
	TablesDir string
	GPU       GPU
	// runTables: the directory given holds its tables in tables/ (a run
	// directory, with or without a manifest), so its ceilings.json counts.
	runTables bool
}

// OpenInput opens what a command's user named: one run (a run directory,
// or with opts.Committed a committed run's name), one directory of
// ingested tables, or export files. It checks --gpu against the catalog,
// that no export is given twice (DistinctInputs) and reads --ceilings.
// What is not of a kind it takes is bad input (exit 2) naming the path
// and what was expected: a directory without tables (*ingest.InputError),
// a missing argument among several (*ingest.InputError), one that names
// no run on disk or committed (Open's error), a bad flag
// (*BadInputError). Exports are not read here: a missing or unreadable
// file is the ingest's error when they are.
func OpenInput(args []string, opts InputOptions) (*Input, error) {
	g, err := ResolveGPU(opts.GPU, "")
	if err != nil {
		return nil, err
	}
	var committed *rundir.Run
	if opts.Committed {
		for _, p := range args {
			if _, err := os.Stat(p); err == nil || p == "" {
				continue // "" names no committed run: an export, for the ingest to refuse
			}
			if len(args) > 1 {
				return nil, &ingest.InputError{File: p, Err: errors.New("no such file or directory (of several inputs each is an export; a run is given alone)")}
			}
			if committed, err = Open(p); err != nil {
				return nil, err // where it looked, as report, diff and project say
			}
		}
	}
	if err := DistinctInputs(args); err != nil {
		return nil, err
	}
	if opts.Ceilings != "" {
		m, err := ResolveGPU("", opts.Ceilings)
		if err != nil {
			return nil, err
		}
		g.Measured = m.Measured
	}
	in := &Input{Kind: KindExports, Args: args, GPU: g}
	if len(args) != 1 {
		return in, nil
	}
	if committed != nil {
		in.Kind, in.Run = KindRun, committed
		return in, nil
	}
	p := args[0]
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return in, nil
	}
	if err := checkTablesDir(p); err != nil {
		return nil, err
	}
	run, err := rundir.Open(p)
	if _, merr := os.Stat(filepath.Join(p, rundir.ManifestFile)); merr == nil {
		if err != nil {
			return nil, err // its manifest does not read
		}
		in.Kind = KindRun
	} else {
		if err != nil {
			return nil, &ingest.InputError{File: p, Err: err}
		}
		in.Kind = KindTables
	}
	in.Run, in.TablesDir = run, tablesDirOf(p)
	in.runTables = in.TablesDir != p
	return in, nil
}

// tablesDirOf is the folder of a directory's tables: its tables/ where it
// has one (a run directory), else the directory itself.
func tablesDirOf(dir string) string {
	if st, err := os.Stat(dir + "/" + rundir.TablesDir); err == nil && st.IsDir() {
		return dir + "/" + rundir.TablesDir
	}
	return dir
}

// checkTablesDir fails with bad input (exit 2) when dir, given where export
// files or a directory of tables are expected, holds no kernels table in
// itself or in tables/. Tables that are there but unreadable are left to
// the reader (exit 1).
func checkTablesDir(dir string) error {
	for _, d := range []string{filepath.Join(dir, rundir.TablesDir), dir} {
		for _, f := range []string{ingest.FormatParquet, ingest.FormatArrow} {
			if _, err := os.Stat(filepath.Join(d, ingest.TableKernels+"."+f)); err == nil {
				return nil
			}
		}
	}
	return &ingest.InputError{File: dir, Err: fmt.Errorf("is a directory without ingested tables (no %s.parquet or %s.arrow in it or in its tables/): give export files (ncu CSV, nsys SQLite, Kineto JSON) or a directory rooftool ingest or rooftool profile wrote",
		ingest.TableKernels, ingest.TableKernels)}
}

// Load loads and analyses the input's run (LoadWith) against its GPU:
// --gpu's catalog roofs fill in what the tables do not state, --ceilings
// stand in for the run's ceilings.json.
func (in *Input) Load(ctx context.Context, mem memory.Allocator) (*Result, error) {
	if in.Run == nil {
		return nil, fmt.Errorf("%v: not a run", in.Args)
	}
	return LoadWith(ctx, in.Run, Options{Mem: mem, GPU: in.GPU.Name, Measured: in.GPU.Measured})
}

// Tables reads the input's tables into memory: a directory's as they are,
// exports ingested (detect.Files), through mem (nil: the default
// allocator). The caller releases them.
func (in *Input) Tables(mem memory.Allocator) (*ingest.Tables, error) {
	switch {
	case in.TablesDir != "":
		return ingest.ReadDir(in.TablesDir, mem)
	case in.Run != nil:
		return in.Run.Tables(mem)
	}
	return ReadExports(in.Args, mem)
}

// ReadExports ingests export files into tables in memory (detect.Files).
func ReadExports(paths []string, mem memory.Allocator) (*ingest.Tables, error) {
	var files []ingest.Input
	for _, p := range paths {
		files = append(files, ingest.Input{Path: p})
	}
	return detect.Files(files, mem)
}

// DistinctInputs refuses (bad input) two inputs with the same content:
// the same export given twice would count each of its kernels twice.
// Files are compared by size, then by SHA-256 where sizes are equal, so
// only files that may be copies are read. Inputs that cannot be read are
// left to the parsers.
func DistinctInputs(paths []string) error {
	type file struct {
		path string
		size int64
	}
	bySize := map[int64][]file{}
	var sizes []int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if _, ok := bySize[st.Size()]; !ok {
			sizes = append(sizes, st.Size())
		}
		bySize[st.Size()] = append(bySize[st.Size()], file{p, st.Size()})
	}
	for _, size := range sizes {
		fs := bySize[size]
		if len(fs) < 2 {
			continue
		}
		seen := map[[sha256.Size]byte]string{}
		for _, f := range fs {
			d, err := fileDigest(f.path)
			if err != nil {
				return err
			}
			if first, ok := seen[d]; ok {
				return &ingest.InputError{File: f.path, Err: fmt.Errorf("has the same content as %s (SHA-256 %x): one export given twice would count each kernel twice; give it once", first, d[:8])}
			}
			seen[d] = f.path
		}
	}
	return nil
}

// fileDigest is the SHA-256 of the file at path.
func fileDigest(path string) ([sha256.Size]byte, error) {
	var d [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return d, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return d, fmt.Errorf("read %s: %w", path, err)
	}
	copy(d[:], h.Sum(nil))
	return d, nil
}

// EnclosingRun returns the run directory dir is in or is: the nearest of
// dir and its parents that holds a manifest (rundir.ManifestFile).
func EnclosingRun(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, rundir.ManifestFile)); err == nil && st.Mode().IsRegular() {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// NoTablesError is a run directory without its tables folder.
type NoTablesError struct{ Dir string }

func (e *NoTablesError) Error() string { return e.Dir + " has no tables" }

// CheckRunTables fails with *NoTablesError where run directory dir has no
// tables folder (rundir.TablesDir): a run whose passes all failed, say.
func CheckRunTables(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, rundir.TablesDir)); err != nil {
		return &NoTablesError{Dir: dir}
	}
	return nil
}

// DistinctInputsOf is DistinctInputs for command cmd, named in front of an
// error reading a file (an export given twice is bad input as it is).
func DistinctInputsOf(cmd string, paths []string) error {
	err := DistinctInputs(paths)
	var ie *ingest.InputError
	if err != nil && !errors.As(err, &ie) {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return err
}
