package main

import (
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/internal/progress"
)

// workProgress shows long work on stderr where stderr is a terminal (a
// progress.Line); elsewhere (a pipe, a file, a test) it is nil and prints
// nothing, its methods doing nothing on nil.
type workProgress struct{ line *progress.Line }

// newWorkProgress returns the progress line of io's stderr, nil when
// stderr is not a terminal.
func newWorkProgress(io *IO) *workProgress {
	if io == nil || !io.ErrIsTTY {
		return nil
	}
	return &workProgress{progress.New(io.Err)}
}

// Start shows a fresh line described by what, replacing the line shown.
func (p *workProgress) Start(what string) {
	if p != nil {
		p.line.Start(what)
	}
}

// Stop wipes the line shown, if any.
func (p *workProgress) Stop() {
	if p != nil {
		p.line.Stop()
	}
}

// Watch hooks the line to the parse of each input (progress.Line.Inputs).
func (p *workProgress) Watch(inputs []ingest.Input) {
	if p == nil {
		return
	}
	paths := make([]string, len(inputs))
	for i := range inputs {
		paths[i] = inputs[i].Path
	}
	for i, fn := range p.line.Inputs(paths) {
		inputs[i].Progress = fn
	}
}
