package ingest

import (
	"errors"
	"fmt"
	"strings"
)

// InputError reports input that is not a valid export: a bad file, not a
// failure of rooftool. Commands exit with status 2 on it.
type InputError struct {
	File  string // path as given
	Line  int    // 1-based line, 0 if not applicable
	Table string // SQLite table or JSON key, "" if not applicable
	Err   error
}

// Error is "FILE[:LINE][: table T]: what is wrong"; the command that read
// the file names itself in front.
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Table != "" {
		b.WriteString(": table ")
		b.WriteString(e.Table)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// BadInput builds the *InputError of a bad file: FILE[:LINE][: table T]:
// the message format and args make.
func BadInput(file string, line int, table string, format string, args ...any) error {
	return &InputError{File: file, Line: line, Table: table, Err: fmt.Errorf(format, args...)}
}

// ErrNoKernels is what the *InputError of an export that holds no kernel
// at all (nsys without CUDA kernel activity, a Kineto trace of
// range-profiler counters only) is, by errors.Is.
var ErrNoKernels = errors.New("the export holds no kernels")

// noKernelsError is a message that is ErrNoKernels.
type noKernelsError struct{ msg string }

func (e noKernelsError) Error() string        { return e.msg }
func (e noKernelsError) Is(target error) bool { return target == ErrNoKernels }

// NoKernels builds the *InputError of an export without kernels (one that
// is ErrNoKernels).
func NoKernels(file string, table string, format string, args ...any) error {
	return &InputError{File: file, Table: table, Err: noKernelsError{fmt.Sprintf(format, args...)}}
}

// Options annotate the rows of one input. Empty fields leave what the
// parser found.
type Options struct {
	Experiment, Variant, Shape string // the cell, when the caller knows it
	Pass                       string // PassKernel or PassRange for ncu exports
	// Replay is which replay (1-based) of its cell's range pass an ncu
	// range export is (meta key MetaRangeReplay); 0: not said.
	Replay    int
	NCU, Nsys string // paths of the ncu / nsys binaries for .ncu-rep / .nsys-rep
	// Cells, when set, keeps only the kernels of these cells ("variant/shape")
	// and those outside any cell: an export that holds several cells, of
	// which some were measured again elsewhere, contributes the rest.
	Cells []string
	// Progress, when set, is told how far the parse of the export has got:
	// called with 0 when it starts, with the kernel rows read so far every
	// 65536 of them, and with all of them when it ends. It runs on the
	// parsing goroutine, so it should return quickly.
	Progress func(kernels int64)
}

// Input is one file to ingest.
type Input struct {
	Path string
	Options
}

// Append appends every row of t to b, renumbering kernel and range ids
// past those b holds already (several files' tables merged into one set).
func (b *Builder) Append(t *Tables) error { return copyRows(b, t, nil) }

// AppendCells appends the rows of t to b as Append does, but keeps only the
// kernels of the cells named in cells ("variant/shape") and those outside
// any cell (no variant), with their metrics; the other tables' rows are
// all appended.
func (b *Builder) AppendCells(t *Tables, cells []string) error {
	keep := map[string]bool{}
	for _, c := range cells {
		keep[c] = true
	}
	return copyRows(b, t, keep)
}

// copyRows appends t's rows to b, keeping the kernels of the cells in keep
// and those outside any cell; keep nil keeps every kernel.
func copyRows(b *Builder, t *Tables, keep map[string]bool) error {
	kid := map[int64]int64{}
	for _, k := range t.Kernels() {
		if keep != nil && k.Variant != "" && !keep[k.Variant+"/"+k.Shape] {
			continue
		}
		old := k.ID
		kid[old] = b.AddKernel(k)
	}
	for _, m := range t.Metrics() {
		if id, ok := kid[m.KernelID]; ok {
			m.KernelID = id
			b.AddMetric(m)
		}
	}
	ranges := t.Ranges()
	base := b.NextRangeID()
	rid := map[int64]int64{}
	for i, r := range ranges {
		rid[r.ID] = base + int64(i)
	}
	for _, r := range ranges {
		if r.ParentID != nil {
			p := rid[*r.ParentID]
			r.ParentID = &p
		}
		b.AddRange(r)
	}
	for _, g := range t.GPUs() {
		b.AddGPU(g)
	}
	for _, m := range t.Metas() {
		b.AddMeta(m)
	}
	for _, x := range t.Timings() {
		b.AddTiming(x)
	}
	return nil
}
