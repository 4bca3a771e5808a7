package progress

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/rooftool/rooftool/internal/tableout"
)

// Line is the progress line of a terminal. Its methods do nothing on nil.
type Line struct {
	w   io.Writer
	bar *progressbar.ProgressBar
	// counts are the kernel rows read from each input so far (Inputs).
	counts []int64
}

// New returns the progress line of w, a terminal.
func New(w io.Writer) *Line { return &Line{w: w} }

// Start shows a fresh line described by what (a spinner, what, and the
// time spent), replacing the line shown.
func (p *Line) Start(what string) {
	if p == nil {
		return
	}
	p.Stop()
	p.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
	)
}

// Stop wipes the line shown, if any.
func (p *Line) Stop() {
	if p == nil || p.bar == nil {
		return
	}
	_ = p.bar.Finish()
	p.bar = nil
}

// Inputs hooks the line to the reading of the exports at paths: it
// returns, for each, the function its reader calls with the kernel rows
// read so far (ingest.Input.Progress). The line names the export being
// read (with its place among them) and counts the kernel rows of all of
// them. On nil it returns nil functions.
func (p *Line) Inputs(paths []string) []func(kernels int64) {
	fns := make([]func(int64), len(paths))
	if p == nil {
		return fns
	}
	p.counts = make([]int64, len(paths))
	for i := range paths {
		name := filepath.Base(paths[i])
		if len(paths) > 1 {
			name = fmt.Sprintf("%s (%d of %d)", name, i+1, len(paths))
		}
		fns[i] = func(kernels int64) { p.read(i, name, kernels) }
	}
	return fns
}

// read records the kernel rows read from input i and shows them: the
// export being read and the kernels of all of them so far.
func (p *Line) read(i int, name string, kernels int64) {
	p.counts[i] = kernels
	var n int64
	for _, c := range p.counts {
		n += c
	}
	what := fmt.Sprintf("reading %s: %s kernels", name, tableout.Thousands(strconv.FormatInt(n, 10)))
	if p.bar == nil {
		p.Start(what)
		return
	}
	p.bar.Describe(what)
}
