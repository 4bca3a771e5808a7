package kineto

// Kineto / PyTorch-profiler Chrome traces (.json, .json.gz). The file is
// streamed with encoding/json tokens, traceEvents decoded one event at a
// time, three times (kinetoPass): the first checks every event and keeps
// the user annotations, the second indexes the CUDA runtime/driver calls
// by correlation id (in a temporary file past a million, as an nsys
// export's are), the third attributes each kernel and adds it. No kernel
// is held past a batch, so memory does not grow with the kernels.
//
// Kernel attribution: the CUDA runtime call with the kernel's correlation id,
// inside the innermost user_annotation on the same thread; failing that, the
// innermost gpu_user_annotation on the kernel's device and stream that
// contains the kernel.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/callindex"
)

// Parse reads the Kineto trace (Chrome trace JSON, plain or gzipped) at
// in.Path into b: its kernels, user annotations and GPUs.
func Parse(b *ingest.Builder, in ingest.Input) error {
	open := func() (io.Reader, func(), error) {
		f, err := os.Open(in.Path)
		if err != nil {
			return nil, nil, &ingest.InputError{File: in.Path, Err: err}
		}
		br := bufio.NewReaderSize(f, 1<<16)
		if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
			zr, err := gzip.NewReader(br)
			if err != nil {
				f.Close()
				return nil, nil, ingest.BadInput(in.Path, 0, "", "gzip: %v", err)
			}
			return zr, func() { zr.Close(); f.Close() }, nil
		}
		return br, func() { f.Close() }, nil
	}
	return parseKinetoPasses(b, in, open)
}

// kEvent is one traceEvents entry; only the fields rooftool reads.
type kEvent struct {
	Ph   string          `json:"ph"`
	Cat  string          `json:"cat"`
	Name string          `json:"name"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	Ts   json.Number     `json:"ts"`
	Dur  json.Number     `json:"dur"`
	Args json.RawMessage `json:"args"`
}

// kArgs are the args of kernel and runtime events.
type kArgs struct {
	Device      *json.Number  `json:"device"`
	Context     *json.Number  `json:"context"`
	Stream      *json.Number  `json:"stream"`
	Correlation *json.Number  `json:"correlation"`
	Grid        []json.Number `json:"grid"`
	Block       []json.Number `json:"block"`
	Registers   *json.Number  `json:"registers per thread"`
	Shared      *json.Number  `json:"shared memory"`
}

// kSpan is a timed event on one thread (or one device stream).
type kSpan struct {
	pid, tid   string // as printed in the trace, the thread key
	start, end int64  // ns
	name, cat  string
	seq        int // position in the file, for stable order
	// filled by nesting
	id     int64
	parent int
	depth  int32
	comps  []string
}

type kKernel struct {
	ev    kSpan
	args  kArgs
	corr  int64
	hasCr bool
}

// kinetoError names the file and the key for bad input.
func kinetoError(in ingest.Input, key string, format string, a ...any) error {
	return ingest.BadInput(in.Path, 0, key, format, a...)
}

// kinetoReader holds what one trace contributes until every event is read
// (kernels may come before the calls and annotations that attribute them).
type kinetoReader struct {
	in        ingest.Input
	file      string
	dec       *json.Decoder
	space     *spaceReader // the decoder's input: offset maps its positions back to the file's
	limit     *valueLimit  // between space and the decoder: bounds one value
	pass      kinetoPass
	cpuAnn    []kSpan // user_annotation
	gpuAnn    []kSpan // gpu_user_annotation
	metas     []ingest.Meta
	gpus      []ingest.GPU
	sawEvents bool
	seq       int
	raw       json.RawMessage // the event being read, reused
	// profRanges counts cuda_profiler_range events: CUPTI range-profiler
	// counters per kernel, which carry no kernel timeline.
	profRanges int

	nKernels int          // kernel events (the first pass)
	rep      repeatFinder // kernel events that repeat another
	threads  map[[2]string]int64
	thread   [][2]string // pid, tid of the calls' threads, by index
	calls    *callindex.Builder
	callQ    []kSpan // calls read, not yet attributed (the second pass)
	callR    []callindex.Rec
	cpuIdx   *spanIndex
	gpuIdx   *spanIndex
	ix       *callindex.Index
	b        *ingest.Builder
	kernQ    []kSpan // kernels read, not yet attributed and added (the third pass)
	rowQ     []ingest.Kernel
	corrQ    []int64
	hasCrQ   []bool
}

// kinetoPass is which of the three reads of a trace is under way: the
// first checks every event and keeps the annotations, the second indexes
// the runtime calls (in a file past a million, as nsys's are), the third
// attributes each kernel and adds it. No pass holds the kernels, so a
// trace of any number of kernels is ingested in bounded memory.
type kinetoPass int

const (
	passCheck kinetoPass = iota
	passCalls
	passKernels
)

// kinetoQueue is how many calls or kernels are attributed at a time.
const kinetoQueue = 1 << 14

// offset is the decoder's position as a byte of the file.
func (k *kinetoReader) offset() int64 { return k.space.Offset(k.dec.InputOffset()) }

// parseKineto reads a trace held by r; r is read again for each pass
// where it can seek (a file, a bytes.Reader), else the trace is refused
// after its first pass.
func parseKineto(b *ingest.Builder, in ingest.Input, r io.Reader) error {
	first := true
	open := func() (io.Reader, func(), error) {
		if !first {
			sk, ok := r.(io.Seeker)
			if !ok {
				return nil, nil, fmt.Errorf("ingest: a Kineto trace is read three times; %T cannot seek", r)
			}
			if _, err := sk.Seek(0, io.SeekStart); err != nil {
				return nil, nil, err
			}
		}
		first = false
		return r, func() {}, nil
	}
	return parseKinetoPasses(b, in, open)
}

// parseKinetoPasses reads the trace open gives three times (kinetoPass).
func parseKinetoPasses(b *ingest.Builder, in ingest.Input, open func() (io.Reader, func(), error)) error {
	k := &kinetoReader{in: in, file: filepath.Base(in.Path), b: b, threads: map[[2]string]int64{}}
	defer func() {
		if k.calls != nil {
			k.calls.Close()
		}
		k.ix.Close()
	}()
	for _, pass := range []kinetoPass{passCheck, passCalls, passKernels} {
		r, done, err := open()
		if err != nil {
			return err
		}
		k.pass = pass
		err = k.read(r)
		done()
		if err != nil {
			return err
		}
		switch pass {
		case passCheck:
			if !k.sawEvents {
				return kinetoError(in, "traceEvents", "missing: not a Kineto / Chrome trace (top-level keys: %s)", metaKeys(k.metas))
			}
			if k.nKernels == 0 && k.profRanges > 0 {
				// A trace of the CUPTI range profiler (Kineto's CUDA_PROFILER_RANGE
				// activity): per-kernel counters with no kernel timeline. Refused
				// rather than ingested as zero kernels.
				return ingest.NoKernels(in.Path, "traceEvents", "holds %d cuda_profiler_range events (CUPTI range-profiler counters) and no kernel events: "+
					"rooftool reads kernels from the Kineto kernel timeline; profile again with ProfilerActivity.CUDA and without the CUPTI range profiler", k.profRanges)
			}
			if k.nKernels == 0 {
				return ingest.NoKernels(in.Path, "traceEvents", "holds no kernel events (cat \"kernel\"): rooftool reads kernels from the Kineto kernel timeline; profile with ProfilerActivity.CUDA")
			}
			if err := k.emitRanges(b); err != nil {
				return err
			}
			k.calls = &callindex.Builder{}
		case passCalls:
			if err := k.flushCalls(); err != nil {
				return err
			}
			c := k.calls
			k.calls = nil
			if k.ix, err = c.Finish(); err != nil {
				return &ingest.InputError{File: in.Path, Table: "traceEvents", Err: err}
			}
			k.rep.restart()
		case passKernels:
			if err := k.flushKernels(); err != nil {
				return err
			}
			if k.rep.n > 0 {
				b.AddMeta(ingest.Meta{Source: ingest.SourceKineto, File: k.file, Key: "warning", Value: fmt.Sprintf(
					"%d kernel events repeat another exactly (name, start, duration, device, stream, correlation id, launch sizes; the first: %s): each counted once", k.rep.n, k.rep.first)})
			}
		}
	}
	return nil
}

// read reads the whole trace once, in the current pass.
func (k *kinetoReader) read(r io.Reader) error {
	// A UTF-8 byte-order mark before the JSON is skipped (byte offsets in
	// errors count from after it).
	br := bufio.NewReaderSize(r, 1<<16)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	k.space = newSpaceReader(br)
	k.limit = &valueLimit{r: k.space}
	k.dec = json.NewDecoder(k.limit)
	k.dec.UseNumber()
	k.seq, k.sawEvents = 0, false
	k.metas, k.gpus = k.metas[:0], k.gpus[:0]
	dec, in := k.dec, k.in
	t, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return kinetoError(in, "", "empty file, expected a Kineto / Chrome JSON trace")
		}
		return k.syntax(err)
	}
	switch t {
	case json.Delim('['):
		// Chrome trace "array format": the file is the event list.
		if err := k.events(true); err != nil {
			return err
		}
	case json.Delim('{'):
		if err := k.object(); err != nil {
			return err
		}
	default:
		return kinetoError(in, "", "top level is %v, expected a JSON object with traceEvents", t)
	}
	if _, err := dec.Token(); err != io.EOF {
		return kinetoError(in, "", "data after the trace at byte %d, expected the end of the file", k.offset())
	}
	return nil
}

func (k *kinetoReader) syntax(err error) error {
	if errors.Is(err, errValueTooLong) {
		return kinetoError(k.in, "", "a JSON value (one event, or one top-level member) at byte %d is longer than the limit of %s: not a trace rooftool reads",
			k.space.Offset(k.limit.mark), ingest.SizeMiB(ingest.MaxLineBytes))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return kinetoError(k.in, "", "truncated JSON at byte %d: the trace ends before its closing brackets", k.offset())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return kinetoError(k.in, "", "at byte %d: a JSON %s where %s was expected", k.offset(), te.Value, te.Type)
	}
	return kinetoError(k.in, "", "malformed JSON at byte %d: %v", k.offset(), err)
}

// object reads the members of the top-level object (its '{' consumed).
func (k *kinetoReader) object() error {
	dec := k.dec
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return k.syntax(err)
		}
		key, _ := kt.(string)
		if seen[key] {
			// encoding/json would keep the last, and traceEvents twice
			// would merge two traces: which one is meant is not said.
			return kinetoError(k.in, key, "the top-level object holds this key twice (the second at byte %d): which one is the trace's is ambiguous", k.offset())
		}
		seen[key] = true
		k.limit.mark = dec.InputOffset()
		switch key {
		case "traceEvents":
			if err := k.events(false); err != nil {
				return err
			}
		case "deviceProperties":
			var props []map[string]any
			if err := dec.Decode(&props); err != nil {
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					return kinetoError(k.in, "deviceProperties", "holds a JSON %s, expected an array of objects", te.Value)
				}
				return k.syntax(err)
			}
			for _, p := range props {
				k.gpus = append(k.gpus, kinetoGPU(k.file, p))
			}
		default:
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return k.syntax(err)
			}
			val := string(v)
			var s string
			if json.Unmarshal(v, &s) == nil {
				val = s
			}
			k.metas = append(k.metas, ingest.Meta{Source: ingest.SourceKineto, File: k.file, Key: key, Value: val})
		}
	}
	if _, err := dec.Token(); err != nil { // closing }
		return k.syntax(err)
	}
	return nil
}

// events reads the traceEvents array one event at a time.
func (k *kinetoReader) events(opened bool) error {
	dec := k.dec
	k.sawEvents = true
	if !opened {
		t, err := dec.Token()
		if err != nil {
			return k.syntax(err)
		}
		if d, ok := t.(json.Delim); !ok || d != '[' {
			return kinetoError(k.in, "traceEvents", "is %v, expected an array of events", t)
		}
	}
	for dec.More() {
		var ev kEvent
		k.limit.mark = dec.InputOffset()
		if err := dec.Decode(&k.raw); err != nil {
			return k.syntax(err)
		}
		if !k.mayNeed(k.raw) {
			k.seq++
			continue
		}
		if err := json.Unmarshal(k.raw, &ev); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return kinetoError(k.in, "traceEvents", "event %d: field %q is a JSON %s, expected %s", k.seq, te.Field, te.Value, te.Type)
			}
			return k.syntax(err)
		}
		i := k.seq
		k.seq++
		if key, dup := repeatedKey(k.raw, eventKeys); dup {
			return kinetoError(k.in, "traceEvents", "event %d (%s %q) gives %q twice: which one the trace means is ambiguous", i, ev.Cat, ev.Name, key)
		}
		if ev.Ph != "X" {
			continue
		}
		cat := ev.Cat
		if cat == "cuda_profiler_range" {
			k.profRanges++
			continue
		}
		isKernel := strings.EqualFold(cat, "kernel")
		isCall := cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "Driver"
		isAnn := cat == "user_annotation" || cat == "gpu_user_annotation"
		if !isKernel && !isCall && !isAnn || k.pass == passCalls && !isCall || k.pass == passKernels && !isKernel {
			continue
		}
		if len(ev.Name) > ingest.MaxFieldBytes {
			return kinetoError(k.in, "traceEvents", "event %d (%s) has a name of %d bytes, longer than the limit of %s", i, cat, len(ev.Name), ingest.SizeMiB(ingest.MaxFieldBytes))
		}
		if len(ev.Args) > 0 && ev.Args[0] == '{' {
			if key, dup := repeatedKey(ev.Args, argKeys); dup {
				return kinetoError(k.in, "traceEvents", "event %d (%s %q): args gives %q twice: which one the trace means is ambiguous", i, cat, ev.Name, key)
			}
		}
		if isKernel && ev.Dur == "" {
			// A kernel's duration is what rooftool reads of it; 0 would be a
			// figure the trace never gave (as a NULL nsys start is refused).
			return kinetoError(k.in, "traceEvents", "event %d (%s %q) has no dur: a kernel event without its duration", i, cat, ev.Name)
		}
		s, err := kinetoSpan(k.in, i, &ev)
		if err != nil {
			return err
		}
		switch {
		case isAnn && k.pass != passCheck:
		case cat == "user_annotation":
			k.cpuAnn = append(k.cpuAnn, s)
		case isAnn:
			k.gpuAnn = append(k.gpuAnn, s)
		default:
			// A kernel's args fill its columns; of a runtime or driver
			// call's args only the correlation id is read, and the others,
			// of whatever JSON type, are ignored (ROCm traces put
			// pointers such as "0x0" there).
			var a kArgs
			switch {
			case len(ev.Args) == 0 || bytes.Equal(ev.Args, []byte("null")):
			case isKernel:
				if err := json.Unmarshal(ev.Args, &a); err != nil {
					return kinetoError(k.in, "traceEvents", "event %d (%s %q): args: %v", i, cat, ev.Name, err)
				}
			case bytes.HasPrefix(bytes.TrimSpace(ev.Args), []byte("{")):
				var c struct {
					Correlation *json.Number `json:"correlation"`
				}
				if err := json.Unmarshal(ev.Args, &c); err != nil {
					return kinetoError(k.in, "traceEvents", "event %d (%s %q): args.correlation: %v", i, cat, ev.Name, err)
				}
				a.Correlation = c.Correlation
			}
			corr, hasCr, err := optInt(a.Correlation)
			if err != nil {
				return kinetoError(k.in, "traceEvents", "event %d (%s %q): args.correlation: %v", i, cat, ev.Name, err)
			}
			if isKernel {
				if err := k.kernel(&kKernel{ev: s, args: a, corr: corr, hasCr: hasCr}); err != nil {
					return err
				}
			} else if hasCr && k.pass == passCalls {
				if err := k.addCall(corr, s); err != nil {
					return err
				}
			}
		}
	}
	if _, err := dec.Token(); err != nil { // closing ]
		return k.syntax(err)
	}
	return nil
}

// mayNeed reports whether the event raw (checked in the first pass) may
// be one the current pass reads: every event in the first pass; after it,
// one that names a call or a kernel category (an event with an escape is
// decoded whatever it holds, its text not being plain).
func (k *kinetoReader) mayNeed(raw []byte) bool {
	switch {
	case k.pass == passCheck || bytes.IndexByte(raw, '\\') >= 0:
		return true
	case k.pass == passCalls:
		return bytes.Contains(raw, []byte(`untime"`)) || bytes.Contains(raw, []byte(`river"`))
	}
	return containsFold(raw, "kernel")
}

// containsFold reports whether b holds word (lower case ASCII) in any case.
func containsFold(b []byte, word string) bool {
	for i := 0; i+len(word) <= len(b); i++ {
		j := 0
		for ; j < len(word); j++ {
			if b[i+j]|0x20 != word[j] {
				break
			}
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// kernel checks a kernel event (the first pass) or queues it to be
// attributed and added (the third), a repeat of another left out.
func (k *kinetoReader) kernel(kk *kKernel) error {
	row, err := kinetoKernel(k.file, kk)
	if err != nil {
		return kinetoError(k.in, "traceEvents", "%v", err)
	}
	dup := k.rep.seen(&row)
	if k.pass == passCheck {
		k.nKernels++
		return nil
	}
	if dup {
		return nil
	}
	k.kernQ = append(k.kernQ, kk.ev)
	k.rowQ = append(k.rowQ, row)
	k.corrQ = append(k.corrQ, kk.corr)
	k.hasCrQ = append(k.hasCrQ, kk.hasCr)
	if len(k.kernQ) >= kinetoQueue {
		return k.flushKernels()
	}
	return nil
}

// addCall queues a runtime call to be attributed and indexed.
func (k *kinetoReader) addCall(corr int64, s kSpan) error {
	key := [2]string{s.pid, s.tid}
	t, ok := k.threads[key]
	if !ok {
		t = int64(len(k.thread))
		k.threads[key] = t
		k.thread = append(k.thread, key)
	}
	k.callQ = append(k.callQ, s)
	k.callR = append(k.callR, callindex.Rec{Corr: corr, GTID: t, Row: int64(s.seq), Node: -1})
	if len(k.callQ) >= kinetoQueue {
		return k.flushCalls()
	}
	return nil
}

// flushCalls attributes the queued calls to the innermost user_annotation
// on their thread and adds them to the index.
func (k *kinetoReader) flushCalls() error {
	hits := k.cpuIdx.query(k.callQ)
	for i := range k.callR {
		k.callR[i].Rng = int32(hits[i])
		if err := k.calls.Add(k.callR[i]); err != nil {
			return err
		}
	}
	k.callQ, k.callR = k.callQ[:0], k.callR[:0]
	return nil
}

// flushKernels attributes the queued kernels, CPU side through the
// launching call (the first in the file with the kernel's correlation id),
// else GPU side, and adds them.
func (k *kinetoReader) flushKernels() error {
	gpuHit := k.gpuIdx.query(k.kernQ)
	for i := range k.rowQ {
		row := &k.rowQ[i]
		var comps []string
		if k.hasCrQ[i] {
			c, ok, err := k.ix.Find(0, k.corrQ[i])
			if err != nil {
				return &ingest.InputError{File: k.in.Path, Table: "traceEvents", Err: err}
			}
			if ok {
				th := k.thread[c.GTID]
				row.Null &^= ingest.NullPID | ingest.NullTID
				row.PID, row.TID = numOr(th[0], &row.Null, ingest.NullPID), numOr(th[1], &row.Null, ingest.NullTID)
				if c.Rng >= 0 {
					comps = k.cpuAnn[c.Rng].comps
				}
			}
		}
		if comps == nil {
			if h := gpuHit[i]; h >= 0 {
				comps = k.gpuAnn[h].comps
			}
		}
		if len(comps) > 0 {
			row.Range = comps[len(comps)-1]
			row.RangePath = strings.Join(comps, "/")
		}
		row.Experiment, row.Variant, row.Shape = ingest.CellFromPath(comps, k.in.Options)
		k.b.AddKernel(*row)
	}
	k.kernQ, k.rowQ, k.corrQ, k.hasCrQ = k.kernQ[:0], k.rowQ[:0], k.corrQ[:0], k.hasCrQ[:0]
	return nil
}

// emitRanges nests the annotations and appends them, with the meta and
// gpus rows, after the first pass.
func (k *kinetoReader) emitRanges(b *ingest.Builder) error {
	in, file := k.in, k.file
	cpuAnn, gpuAnn := k.cpuAnn, k.gpuAnn
	// Range ids in time order; nesting per thread (CPU) and device stream (GPU).
	base := b.NextRangeID()
	all := make([]*kSpan, 0, len(cpuAnn)+len(gpuAnn))
	for i := range cpuAnn {
		all = append(all, &cpuAnn[i])
	}
	for i := range gpuAnn {
		all = append(all, &gpuAnn[i])
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.seq < b.seq
	})
	for i, s := range all {
		s.id = base + int64(i)
	}
	for _, sp := range [][]kSpan{cpuAnn, gpuAnn} {
		if err := nestSpans(sp); err != nil {
			return kinetoError(in, "traceEvents", "%v", err)
		}
	}
	for _, s := range all {
		r := ingest.Range{Source: ingest.SourceKineto, File: file, Kind: ingest.RangeAnnotation, Domain: s.cat, Text: s.name,
			Path: strings.Join(s.comps, "/"), Depth: s.depth, StartNs: s.start, EndNs: s.end}
		r.PID, r.TID = numOr(s.pid, &r.Null, ingest.NullPID), numOr(s.tid, &r.Null, ingest.NullTID)
		if s.parent >= 0 {
			var par int64
			if s.cat == "user_annotation" {
				par = cpuAnn[s.parent].id
			} else {
				par = gpuAnn[s.parent].id
			}
			r.ParentID = &par
		}
		b.AddRange(r)
	}
	for _, m := range k.metas {
		b.AddMeta(m)
	}
	for _, g := range k.gpus {
		b.AddGPU(g)
	}
	k.cpuIdx, k.gpuIdx = newSpanIndex(cpuAnn), newSpanIndex(gpuAnn)
	return nil
}
