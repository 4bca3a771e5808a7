package kineto

// The spans of a Kineto trace: an event's time fields as exact nanoseconds
// (kinetoSpan, usToNs), pid/tid keys, and the nesting of annotation spans
// per thread that attribution walks (nestSpans, spanIndex.query). kineto.go
// reads the events and calls these.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// kinetoSpan converts an X event's time fields (microseconds, possibly
// fractional) to exact nanoseconds.
func kinetoSpan(in ingest.Input, i int, ev *kEvent) (kSpan, error) {
	if ev.Ts == "" {
		return kSpan{}, kinetoError(in, "traceEvents", "event %d (%s %q) has no ts", i, ev.Cat, ev.Name)
	}
	ts, err := usToNs(ev.Ts)
	if err != nil {
		return kSpan{}, kinetoError(in, "traceEvents", "event %d (%s %q): ts %q: %v", i, ev.Cat, ev.Name, ev.Ts, err)
	}
	var dur int64
	if ev.Dur != "" {
		if dur, err = usToNs(ev.Dur); err != nil || dur < 0 {
			return kSpan{}, kinetoError(in, "traceEvents", "event %d (%s %q): dur %q is not a duration in microseconds", i, ev.Cat, ev.Name, ev.Dur)
		}
	}
	if ts > 0 && dur > math.MaxInt64-ts {
		return kSpan{}, kinetoError(in, "traceEvents", "event %d (%s %q): ts + dur overflows", i, ev.Cat, ev.Name)
	}
	return kSpan{pid: idKey(ev.Pid), tid: idKey(ev.Tid), start: ts, end: ts + dur, name: ev.Name, cat: ev.Cat, seq: i, parent: -1}, nil
}

// usToNs converts a decimal number of microseconds to nanoseconds without
// going through float64 where the text is a plain decimal (float64 cannot
// hold 1695835542514261.123 exactly).
func usToNs(n json.Number) (int64, error) {
	s := string(n)
	if !strings.ContainsAny(s, "eE") {
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		ip, fp, _ := strings.Cut(s, ".")
		if ip == "" {
			ip = "0"
		}
		whole, err := strconv.ParseInt(ip, 10, 64)
		if err != nil || whole > math.MaxInt64/1000-1 {
			return 0, fmt.Errorf("out of range")
		}
		frac := int64(0)
		for j := 0; j < 3; j++ {
			frac *= 10
			if j < len(fp) {
				if fp[j] < '0' || fp[j] > '9' {
					return 0, fmt.Errorf("not a number")
				}
				frac += int64(fp[j] - '0')
			}
		}
		if len(fp) > 3 && fp[3] >= '5' && fp[3] <= '9' {
			frac++ // round half up on the sub-nanosecond digit
		}
		v := whole*1000 + frac
		if neg {
			v = -v
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.Abs(f*1000) >= math.MaxInt64 {
		return 0, fmt.Errorf("not a finite number")
	}
	return int64(math.Round(f * 1000)), nil
}

// idKey renders a pid/tid (number or string) as a map key.
func idKey(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// numOr parses a pid/tid key as an integer; when it is not one it returns 0
// and sets bit in *null.
func numOr(s string, null *ingest.Nulls, bit ingest.Nulls) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		*null |= bit
		return 0
	}
	return v
}

func optInt(n *json.Number) (int64, bool, error) {
	if n == nil || *n == "" {
		return 0, false, nil
	}
	v, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, false, fmt.Errorf("%q is not an integer", string(*n))
		}
		v = int64(f)
	}
	return v, true, nil
}

// nestSpans sets parent, depth and path components of spans nested per
// (pid, tid). spans keep their order; parent is an index into spans. A
// span nested deeper than MaxNestDepth is an error.
func nestSpans(spans []kSpan) error {
	idx := make([]int, len(spans))
	for i := range idx {
		idx[i] = i
	}
	sortSpanIdx(spans, idx)
	stacks := map[[2]string][]int{}
	for _, i := range idx {
		s := &spans[i]
		k := [2]string{s.pid, s.tid}
		st := stacks[k]
		for len(st) > 0 {
			top := &spans[st[len(st)-1]]
			if top.start <= s.start && s.end <= top.end {
				break
			}
			st = st[:len(st)-1]
		}
		s.parent = -1
		if len(st) >= ingest.MaxNestDepth {
			return fmt.Errorf("%s %q at ts %d ns is nested %d deep, past the limit of %d levels: not an annotation nesting rooftool reads",
				s.cat, s.name, s.start, len(st)+1, ingest.MaxNestDepth)
		}
		if len(st) > 0 {
			par := &spans[st[len(st)-1]]
			s.parent = st[len(st)-1]
			s.depth = int32(len(st))
			s.comps = append(slices.Clip(par.comps), s.name) // a copy: Clip makes append reallocate
		} else {
			s.comps = []string{s.name}
		}
		stacks[k] = append(st, i)
	}
	return nil
}

func sortSpanIdx(spans []kSpan, idx []int) {
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := &spans[idx[i]], &spans[idx[j]]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.seq < b.seq
	})
}

// spanIndex answers, for intervals, the innermost span on the same (pid,
// tid) that contains the whole interval. spans must be nested (nestSpans).
type spanIndex struct {
	spans    []kSpan
	byThread map[[2]string][]int // span indexes of each thread, in sweep order
}

func newSpanIndex(spans []kSpan) *spanIndex {
	x := &spanIndex{spans: spans, byThread: map[[2]string][]int{}}
	for i := range spans {
		k := [2]string{spans[i].pid, spans[i].tid}
		x.byThread[k] = append(x.byThread[k], i)
	}
	for _, si := range x.byThread {
		sortSpanIdx(spans, si)
	}
	return x
}

// query returns, for each of qs, the index in the indexed spans of the
// innermost span on the same (pid, tid) that contains the query's whole
// interval, or -1; the spans must be nested (nestSpans). One sweep per thread:
// O(S + Q log Q) for S spans and Q queries.
func (x *spanIndex) query(qs []kSpan) []int {
	spans := x.spans
	out := make([]int, len(qs))
	for i := range out {
		out[i] = -1
	}
	type key = [2]string
	qByThread := map[key][]int{}
	for i := range qs {
		k := key{qs[i].pid, qs[i].tid}
		if _, ok := x.byThread[k]; ok {
			qByThread[k] = append(qByThread[k], i)
		}
	}
	for k, qi := range qByThread {
		si := x.byThread[k]
		sort.SliceStable(qi, func(a, b int) bool { return qs[qi[a]].start < qs[qi[b]].start })
		var stack []int
		next := 0
		for _, q := range qi {
			qs := qs[q]
			for next < len(si) && spans[si[next]].start <= qs.start {
				s := &spans[si[next]]
				for len(stack) > 0 && spans[stack[len(stack)-1]].end < s.start {
					stack = stack[:len(stack)-1]
				}
				stack = append(stack, si[next])
				next++
			}
			for len(stack) > 0 && spans[stack[len(stack)-1]].end < qs.start {
				stack = stack[:len(stack)-1]
			}
			for j := len(stack) - 1; j >= 0; j-- {
				if s := &spans[stack[j]]; s.start <= qs.start && qs.end <= s.end {
					out[q] = stack[j]
					break
				}
			}
		}
	}
	return out
}
