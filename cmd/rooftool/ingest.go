package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// IngestOptions are the flags of `rooftool ingest`.
type IngestOptions struct {
	IO          *IO
	Files       []string
	OutDir      string
	TableFormat string // parquet | arrow
	NCU         string
	Nsys        string
	KeepGoing   bool // ingest the readable files, list the others, exit 1 if any was skipped
	Force       bool // write into a run directory's folder all the same
}

func newIngestCmd(io *IO) *cobra.Command {
	opts := &IngestOptions{IO: io}
	c := &cobra.Command{
		Use:   "ingest FILE... -o DIR",
		Short: "Read ncu CSV, nsys SQLite and Kineto JSON exports into Arrow tables",
		Long: `Ingest detects the format of each export (Nsight Compute CSV or .ncu-rep,
Nsight Systems SQLite or .nsys-rep, Kineto / PyTorch-profiler JSON(.gz),
rooftool timing JSON) and writes the tables kernels, metrics, ranges, gpus,
meta and timings to DIR as Parquet (or Arrow IPC with --table-format arrow).
Either every table is written or none is, and one unreadable file stops
the ingest. Parquet rows are written as they are read, so memory stays
bounded whatever the size of the exports (--table-format arrow and --keep-going
build the tables in memory first; a Kineto trace is read three times,
no kernel held); a string past 1 MiB, an ncu CSV line or a Kineto event
past 64 MiB and ranges nested past 1000 levels are refused (exit 2), and
past the memory limit (GOMEMLIMIT, else 3/4 of the machine's) ingest
stops with exit 1; past about a million CUDA runtime
calls, an nsys export's calls are indexed in a file in the temporary
directory ($TMPDIR), 36 bytes a call, removed when the ingest ends. With --keep-going the readable files are ingested, each
unreadable one is listed on stderr with the reason, and the exit status is
1 when any was skipped (nothing is written when none was readable). Two
files with the same content (SHA-256) are refused: one export given twice
would count its kernels twice. DIR inside a run directory (one holding
manifest.json, such as RUN/tables) is refused unless --force: the run's
report reads those tables. --format is the old name of --table-format; it
still works and says so on stderr. Where stderr is a terminal, one line
there shows the export being read and its kernels so far, wiped when the
ingest ends; in a pipe nothing is added.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if opts.OutDir == "" {
				return usageErrorf("ingest: -o DIR is required")
			}
			return runIngest(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "output", "o", "", "directory to write the tables to")
	c.Flags().StringVar(&opts.TableFormat, "table-format", ingest.FormatParquet, "table format: parquet or arrow")
	c.Flags().StringVar(&opts.NCU, "ncu", "", "ncu binary used to read .ncu-rep files (default: found on PATH)")
	c.Flags().StringVar(&opts.Nsys, "nsys", "", "nsys binary used to export .nsys-rep files (default: found on PATH or in Nsight installs)")
	c.Flags().BoolVar(&opts.KeepGoing, "keep-going", false, "ingest the readable files, list the unreadable ones and exit 1 if any was skipped")
	c.Flags().BoolVar(&opts.Force, "force", false, "write DIR even inside a run directory (one with "+rundir.ManifestFile+"), replacing the run's tables")
	mustRegisterCompletion(c, "table-format", completeOneOf(ingest.FormatParquet, ingest.FormatArrow))
	renamedFlag(c, io.Err, "format", "table-format")
	return c
}

func runIngest(ctx context.Context, opts *IngestOptions) (err error) {
	if opts.TableFormat != ingest.FormatParquet && opts.TableFormat != ingest.FormatArrow {
		return usageErrorf("ingest: --table-format %q: want parquet or arrow", opts.TableFormat)
	}
	if err := distinctInputs("ingest", opts.Files); err != nil {
		return err
	}
	if !opts.Force {
		if run, ok := enclosingRun(opts.OutDir); ok {
			return usageErrorf("ingest: -o %s is inside run directory %s (it has %s): its tables belong to that run, and replacing them changes its report; give another -o DIR, or --force to replace them",
				opts.OutDir, run, rundir.ManifestFile)
		}
	}
	// Hold DIR's advisory lock from before parsing until the tables are
	// written, so that a second ingest into DIR fails instead of
	// overwriting this one's tables. A DIR made here only for the lock is
	// removed again when nothing was written into it.
	created := false
	if st, serr := os.Stat(opts.OutDir); errors.Is(serr, fs.ErrNotExist) {
		if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
				return usageErrorf("ingest: -o %s: a part of the path is a file, not a directory: give a directory to write the tables to", opts.OutDir)
			}
			return fmt.Errorf("ingest: %w", err)
		}
		created = true
	} else if serr == nil && !st.IsDir() {
		return usageErrorf("ingest: -o %s is a %s, not a directory: give a directory to write the tables to", opts.OutDir, fileKind(st.Mode()))
	} else if errors.Is(serr, syscall.ENOTDIR) {
		return usageErrorf("ingest: -o %s: a part of the path is a file, not a directory: give a directory to write the tables to", opts.OutDir)
	}
	unlock, err := ingest.LockDir(opts.OutDir)
	if err != nil {
		if created {
			os.Remove(opts.OutDir)
		}
		return fmt.Errorf("ingest: %w", err)
	}
	defer func() {
		if uerr := unlock(); uerr != nil && err == nil {
			err = fmt.Errorf("ingest: remove lock: %w", uerr)
		}
		if created && err != nil {
			os.Remove(opts.OutDir) // only when empty: nothing was written
		}
	}()
	var inputs []ingest.Input
	for _, f := range opts.Files {
		inputs = append(inputs, ingest.Input{Path: f, Options: ingest.Options{NCU: opts.NCU, Nsys: opts.Nsys}})
	}
	progress := newWorkProgress(opts.IO)
	progress.watch(inputs)
	var (
		w       *ingest.Written
		skipped []skippedInput
	)
	if opts.KeepGoing {
		w, skipped, err = ingestReadable(inputs, opts.OutDir, opts.TableFormat)
	} else {
		// The rows are written as they are parsed (bounded memory); the
		// set appears in DIR only once every file is parsed.
		w, err = detect.WriteFiles(inputs, opts.OutDir, opts.TableFormat, nil)
	}
	progress.stop()
	for _, s := range skipped {
		fmt.Fprintf(opts.IO.Err, "skipped %s: %s\n", s.Path, s.Reason)
	}
	var werr *ingest.WriteError
	if errors.As(err, &werr) {
		return fmt.Errorf("ingest: %w", werr)
	}
	if err != nil {
		return err
	}
	if w == nil {
		return fmt.Errorf("ingest: none of the %d file(s) was readable; nothing written", len(inputs))
	}
	for _, m := range w.Warnings {
		fmt.Fprintf(opts.IO.Err, "warning: %s: %s\n", m.File, m.Value)
	}
	fmt.Fprintf(opts.IO.Err, "ingested %d file(s): %d kernels, %d metrics, %d ranges, %d timings -> %s\n",
		len(inputs)-len(skipped), w.Rows[ingest.TableKernels], w.Rows[ingest.TableMetrics],
		w.Rows[ingest.TableRanges], w.Rows[ingest.TableTimings], opts.OutDir)
	if len(skipped) > 0 {
		return fmt.Errorf("ingest: skipped %d of %d file(s)", len(skipped), len(inputs))
	}
	return nil
}

// fileKind names what a non-directory path is, in words.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "file of mode " + m.String()
}

// enclosingRun returns the run directory dir is in or is: the nearest of
// dir and its parents that holds a manifest.json.
func enclosingRun(dir string) (string, bool) {
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

// distinctInputs refuses (bad input) two inputs with the same content:
// the same export given twice would count each of its kernels twice.
// Files are compared by size, then by SHA-256 where sizes are equal, so
// only files that may be copies are read. cmd names the command in the
// error. Inputs that cannot be read are left to the parsers.
func distinctInputs(cmd string, paths []string) error {
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
				return fmt.Errorf("%s: %w", cmd, err)
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

// skippedInput is a file --keep-going left out, and why.
type skippedInput struct{ Path, Reason string }

// ingestReadable parses each input on its own, gathers the readable ones
// into one set of tables in memory, as detect.Files would have built from
// them alone, and writes it to dir; it writes nothing and returns nil when
// none was readable. Each file is parsed once, so a failure part-way
// through leaves no rows behind.
func ingestReadable(inputs []ingest.Input, dir, format string) (*ingest.Written, []skippedInput, error) {
	t, skipped, err := readableTables(inputs)
	if err != nil || t == nil {
		return nil, skipped, err
	}
	defer t.Release()
	w := &ingest.Written{Rows: map[string]int64{}}
	for _, n := range ingest.TableNames {
		w.Rows[n] = t.NumRows(n)
	}
	for _, m := range t.Metas() {
		if m.Key == "warning" {
			w.Warnings = append(w.Warnings, m)
		}
	}
	if err := t.Write(dir, format); err != nil {
		return nil, skipped, &ingest.WriteError{Dir: dir, Err: err}
	}
	return w, skipped, nil
}

// readableTables parses the readable inputs into one set of tables.
func readableTables(inputs []ingest.Input) (*ingest.Tables, []skippedInput, error) {
	b := ingest.NewBuilder(nil)
	defer b.Release()
	var skipped []skippedInput
	for _, in := range inputs {
		t, err := detect.File(in.Path, in.Options, nil)
		if err != nil {
			skipped = append(skipped, skippedInput{in.Path, skipReason(in.Path, err)})
			continue
		}
		err = b.Append(t)
		t.Release()
		if err != nil {
			return nil, skipped, err
		}
	}
	if len(skipped) == len(inputs) {
		return nil, skipped, nil
	}
	return b.Finish(), skipped, nil
}

// skipReason is err without the "ingest FILE" prefix the listing already
// names the file by.
func skipReason(path string, err error) string {
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.File != path {
		return err.Error()
	}
	var parts []string
	if ie.Line > 0 {
		parts = append(parts, fmt.Sprintf("line %d", ie.Line))
	}
	if ie.Table != "" {
		parts = append(parts, "table "+ie.Table)
	}
	parts = append(parts, ie.Err.Error())
	return strings.Join(parts, ": ")
}
