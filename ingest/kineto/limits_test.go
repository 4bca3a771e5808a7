package kineto

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// Kineto traces: a key given twice in an event, its args or the top level
// is refused (encoding/json would keep the last, and two traceEvents would
// be merged); a trace without kernel events is refused as ErrNoKernels;
// a name past 1 MiB and annotations nested past 1000 are refused.
func TestKinetoHostile(t *testing.T) {
	ann := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"traceEvents":[`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `{"ph":"X","cat":"user_annotation","name":"a","pid":1,"tid":1,"ts":%d,"dur":%d},`, 10+i, 100000-2*i)
		}
		b.WriteString(`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5000,"dur":2}]}`)
		return b.String()
	}
	for _, c := range []struct {
		name, data, key, want string
	}{
		{"dur twice", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"dur":3}]}`, "traceEvents", `gives "dur" twice`},
		{"dur twice escaped", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"d\u0075r":3}]}`, "traceEvents", `gives "dur" twice`},
		{"args stream twice", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"args":{"stream":7,"stream":8}}]}`, "traceEvents", `args gives "stream" twice`},
		{"traceEvents twice", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}],"traceEvents":[{"ph":"X","cat":"kernel","name":"j","ts":1,"dur":2}]}`, "traceEvents", "holds this key twice"},
		{"no kernels", `{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"a","ts":1,"dur":2}]}`, "traceEvents", "holds no kernel events"},
		{"long name", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"` + strings.Repeat("k", ingest.MaxFieldBytes+1) + `","ts":1,"dur":2}]}`, "traceEvents", "name of 1048577 bytes, longer than the limit of 1 MiB"},
		{"deep", ann(1001), "traceEvents", "nested 1001 deep, past the limit of 1000 levels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := ingest.NewBuilder(memory.NewGoAllocator())
			defer b.Release()
			err := parseKineto(b, ingest.Input{Path: "bad.json"}, strings.NewReader(c.data))
			var ie *ingest.InputError
			if !errors.As(err, &ie) || ie.Table != c.key || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want an InputError for key %q saying %q", err, c.key, c.want)
			}
			if c.name == "no kernels" && !errors.Is(err, ingest.ErrNoKernels) {
				t.Errorf("err = %v, want ErrNoKernels", err)
			}
		})
	}
	// 1000 levels are read; a key repeated only in args rooftool does not
	// read, or in two events, is not a repeat.
	for _, ok := range []string{ann(1000),
		`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"args":{"x":1,"x":2}},{"ph":"X","cat":"kernel","name":"k","ts":5,"dur":2,"args":{"nested":{"dur":1,"dur":2}}}]}`} {
		b := ingest.NewBuilder(memory.NewGoAllocator())
		err := parseKineto(b, ingest.Input{Path: "ok.json"}, strings.NewReader(ok))
		b.Release()
		if err != nil {
			t.Errorf("err = %v, want none", err)
		}
	}
}

// One Kineto event of 256 MiB (its name) is refused at the value limit,
// 64 MiB, in bounded memory.
func TestKinetoValueLimit(t *testing.T) {
	var err error
	alloc := ingesttest.AllocDuring(func() {
		b := ingest.NewBuilder(memory.NewGoAllocator())
		defer b.Release()
		r := &ingesttest.RepeatReader{Head: []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"dur":2,"name":"`), C: 'k', N: 256 << 20, Tail: []byte(`"}]}`)}
		err = parseKineto(b, ingest.Input{Path: "big.json"}, r)
	})
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.File != "big.json" || !strings.Contains(err.Error(), "longer than the limit of 64 MiB") {
		t.Fatalf("err = %v, want an InputError naming the 64 MiB limit", err)
	}
	if alloc > 400<<20 {
		t.Errorf("refusing the event allocated %d MiB, want under 400 MiB", alloc>>20)
	}
}
