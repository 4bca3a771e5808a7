package ncu

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
)

const b200Raw = realdata + "Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv"

var synthRaw = sync.OnceValues(func() ([]byte, error) { return synthNCURaw(50 << 20) })

// synthNCURaw builds a raw-page CSV of at least size bytes from the real
// B200 export: its ==PROF== lines, header and units row, then its 16 kernel
// rows repeated with fresh IDs.
func synthNCURaw(size int) ([]byte, error) {
	src, err := os.ReadFile(b200Raw)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(src), "\n")
	head, rows := lines[:4], lines[4:]
	var out bytes.Buffer
	out.Grow(size + len(src))
	for _, l := range head {
		out.WriteString(l)
	}
	for k, id := 0, 0; out.Len() < size; k++ {
		r := rows[k%len(rows)]
		if r == "" {
			continue
		}
		// Rows start with "<n>",: replace the ID.
		i := strings.Index(r[1:], `"`)
		out.WriteString(`"` + strconv.Itoa(id) + r[i+1:])
		id++
	}
	return out.Bytes(), nil
}

func TestSynthNCURaw(t *testing.T) {
	data, err := synthNCURaw(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := ingest.NewBuilder(mem)
	defer b.Release()
	if err := parseNCU(b, "synth.csv", bytes.NewReader(data), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	tb := b.Finish()
	defer tb.Release()
	n := tb.NumRows(ingest.TableKernels)
	if n < 200 || tb.NumRows(ingest.TableMetrics) != n*463 {
		t.Errorf("%d kernels, %d metrics: want >= 200 kernels with 463 metrics each", n, tb.NumRows(ingest.TableMetrics))
	}
	if ks := tb.Kernels(); ks[n-1].CorrelationID != n-1 {
		t.Errorf("last kernel id %d, want %d", ks[n-1].CorrelationID, n-1)
	}
}

// BenchmarkNCURaw parses a >= 50 MB raw page into Arrow builders.
func BenchmarkNCURaw(b *testing.B) {
	data, err := synthRaw()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		bl := ingest.NewBuilder(memory.NewGoAllocator())
		if err := parseNCU(bl, "synth.csv", bytes.NewReader(data), ingest.Options{}); err != nil {
			b.Fatal(err)
		}
		bl.Release()
	}
}

// BenchmarkCSVBaseline is a bare encoding/csv pass over the same bytes
// (the ==PROF== lines dropped, as the parser does), for comparison.
func BenchmarkCSVBaseline(b *testing.B) {
	data, err := synthRaw()
	if err != nil {
		b.Fatal(err)
	}
	body := data[bytes.Index(data, []byte(`"ID"`)):]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := csv.NewReader(bytes.NewReader(body))
		r.FieldsPerRecord = -1
		r.ReuseRecord = true
		n := 0
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += len(rec)
		}
		if n == 0 {
			b.Fatal("no fields")
		}
	}
}
