package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/tableout"
)

// workProgress shows long work (ingesting exports, summarising tables) on
// stderr where stderr is a terminal: one line, redrawn in place, with a
// spinner, the export being read and the kernels read so far (or the step
// under way) and the time spent, wiped when the work ends so that what the
// command prints next starts on a clean line. Where stderr is not a
// terminal (a pipe, a file, a test) it is nil and prints nothing; its
// methods do nothing on nil.
type workProgress struct {
	io  *IO
	bar *progressbar.ProgressBar
	// counts are the kernel rows read from each input so far (ingest.Options.Progress).
	counts []int64
}

// newWorkProgress returns the progress line of io's stderr, nil when
// stderr is not a terminal.
func newWorkProgress(io *IO) *workProgress {
	if io == nil || !io.ErrIsTTY {
		return nil
	}
	return &workProgress{io: io}
}

// start shows a fresh line described by what (a spinner, what, and the
// time spent), replacing the line shown.
func (p *workProgress) start(what string) {
	if p == nil {
		return
	}
	p.stop()
	p.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(p.io.Err),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
	)
}

// stop wipes the line shown, if any.
func (p *workProgress) stop() {
	if p == nil || p.bar == nil {
		return
	}
	_ = p.bar.Finish()
	p.bar = nil
}

// watch hooks the progress line to the parse of each input: the line
// names the export being read (with its place among them) and counts the
// kernel rows of all of them.
func (p *workProgress) watch(inputs []ingest.Input) {
	if p == nil {
		return
	}
	p.counts = make([]int64, len(inputs))
	for i := range inputs {
		name := filepath.Base(inputs[i].Path)
		if len(inputs) > 1 {
			name = fmt.Sprintf("%s (%d of %d)", name, i+1, len(inputs))
		}
		inputs[i].Progress = func(kernels int64) { p.read(i, name, kernels) }
	}
}

// read records the kernel rows read from input i and shows them: the
// export being read and the kernels of all of them so far.
func (p *workProgress) read(i int, name string, kernels int64) {
	p.counts[i] = kernels
	var n int64
	for _, c := range p.counts {
		n += c
	}
	what := fmt.Sprintf("reading %s: %s kernels", name, tableout.Thousands(strconv.FormatInt(n, 10)))
	if p.bar == nil {
		p.start(what)
		return
	}
	p.bar.Describe(what)
}
