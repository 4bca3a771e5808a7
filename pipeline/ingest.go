package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// IngestOptions adjust Ingest.
type IngestOptions struct {
	Format    string // table format: ingest.FormatParquet or ingest.FormatArrow
	KeepGoing bool   // ingest the readable exports, list the others (Skipped)
	Force     bool   // write into a run directory's folder all the same
}

// Skipped is an export IngestOptions.KeepGoing left out, and why.
type Skipped struct{ Path, Reason string }

// Ingest writes the tables of the exports inputs to dir: every table or
// none, and one unreadable export stops it; with opts.KeepGoing the
// readable ones, the others listed in Skipped (and an error where none was
// readable). It holds dir's advisory lock from before parsing until the
// tables are written, so that a second ingest into dir fails instead of
// overwriting this one's tables; a dir made only for the lock is removed
// again when nothing was written into it. A dir inside a run directory
// (one holding a manifest, such as RUN/tables) is refused unless
// opts.Force: the run's report reads those tables. A dir that is a file,
// a device or below a file is a *BadInputError.
func Ingest(inputs []ingest.Input, dir string, opts IngestOptions) (w *ingest.Written, skipped []Skipped, err error) {
	if !opts.Force {
		if run, ok := EnclosingRun(dir); ok {
			return nil, nil, &BadInputError{fmt.Errorf("-o %s is inside run directory %s (it has %s): its tables belong to that run, and replacing them changes its report; give another -o DIR, or --force to replace them",
				dir, run, rundir.ManifestFile)}
		}
	}
	notDir := &BadInputError{fmt.Errorf("-o %s: a part of the path is a file, not a directory: give a directory to write the tables to", dir)}
	created := false
	if st, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
				return nil, nil, notDir
			}
			return nil, nil, err
		}
		created = true
	} else if serr == nil && !st.IsDir() {
		return nil, nil, &BadInputError{fmt.Errorf("-o %s is a %s, not a directory: give a directory to write the tables to", dir, fileKind(st.Mode()))}
	} else if errors.Is(serr, syscall.ENOTDIR) {
		return nil, nil, notDir
	}
	unlock, err := ingest.LockDir(dir)
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return nil, nil, err
	}
	defer func() {
		if uerr := unlock(); uerr != nil && err == nil {
			err = fmt.Errorf("remove lock: %w", uerr)
		}
		if created && err != nil {
			os.Remove(dir) // only when empty: nothing was written
		}
	}()
	if !opts.KeepGoing {
		// The rows are written as they are parsed (bounded memory); the
		// set appears in dir only once every file is parsed.
		w, err = detect.WriteFiles(inputs, dir, opts.Format, nil)
		return w, nil, err
	}
	if w, skipped, err = ingestReadable(inputs, dir, opts.Format); err == nil && w == nil {
		err = fmt.Errorf("none of the %d file(s) was readable; nothing written", len(inputs))
	}
	return w, skipped, err
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

// ingestReadable parses each input on its own, gathers the readable ones
// into one set of tables in memory, as detect.Files would have built from
// them alone, and writes it to dir; it writes nothing and returns nil when
// none was readable. Each file is parsed once, so a failure part-way
// through leaves no rows behind.
func ingestReadable(inputs []ingest.Input, dir, format string) (*ingest.Written, []Skipped, error) {
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
func readableTables(inputs []ingest.Input) (*ingest.Tables, []Skipped, error) {
	b := ingest.NewBuilder(nil)
	defer b.Release()
	var skipped []Skipped
	for _, in := range inputs {
		t, err := detect.File(in.Path, in.Options, nil)
		if err != nil {
			skipped = append(skipped, Skipped{in.Path, skipReason(in.Path, err)})
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
