package ingest

import "github.com/rooftool/rooftool/ingest/internal/knob"

// progress counts the kernel rows read from one export for its
// Options.Progress.
type progress struct {
	fn      func(kernels int64)
	kernels int64
}

// kernel counts one kernel row; a nil progress counts nothing.
func (p *progress) kernel() {
	if p == nil {
		return
	}
	p.kernels++
	if p.kernels%knob.ProgressEvery == 0 {
		p.fn(p.kernels)
	}
}

// Watch hooks fn, where not nil, to b for the parse of one export: it is
// called with 0 now, every knob.ProgressEvery kernel rows, and with the
// kernel rows read when the returned function runs (at the end of the
// parse). While one export is watched, a second Watch does nothing.
func (b *Builder) Watch(fn func(kernels int64)) (done func()) {
	if fn == nil || b.progress != nil {
		return func() {}
	}
	p := &progress{fn: fn}
	b.progress = p
	p.fn(0)
	return func() {
		b.progress = nil
		p.fn(p.kernels)
	}
}
