package launch

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress reports the sweep's progress. Units are (cell, pass) pairs.
type Progress interface {
	Start(total int)
	// Begin names what runs now, e.g. "swiglu ncu: 5 cells".
	Begin(what string)
	// Done adds n finished units and a one-line summary of them.
	Done(n int, summary string)
	Finish()
}

// NewProgress returns a progress bar with the current cells and an ETA when
// tty is true, else plain lines (one per finished runner process).
func NewProgress(w io.Writer, tty bool) Progress {
	if w == nil {
		return nopProgress{}
	}
	if tty {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w}
}

type nopProgress struct{}

func (nopProgress) Start(int)        {}
func (nopProgress) Begin(string)     {}
func (nopProgress) Done(int, string) {}
func (nopProgress) Finish()          {}

type lineProgress struct {
	w           io.Writer
	total, done int
}

func (p *lineProgress) Start(total int) { p.total = total }
func (p *lineProgress) Begin(string)    {}
func (p *lineProgress) Done(n int, summary string) {
	p.done += n
	fmt.Fprintf(p.w, "[%d/%d] %s\n", p.done, p.total, summary)
}
func (p *lineProgress) Finish() {}

type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(total int) {
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("starting"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionShowDescriptionAtLineEnd(),
	)
}

func (p *barProgress) Begin(what string) {
	if p.bar != nil {
		p.bar.Describe(what)
	}
}

func (p *barProgress) Done(n int, summary string) {
	if p.bar == nil {
		return
	}
	p.bar.Describe(summary)
	_ = p.bar.Add(n)
}

// Clear wipes the bar so that a warning line prints cleanly; the next
// update draws it again.
func (p *barProgress) Clear() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

func (p *barProgress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
