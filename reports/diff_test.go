package reports

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// timings makes n samples around ms with a small deterministic spread.
func timings(exp, variant, shape string, ms float64, n int) []ingest.Timing {
	var out []ingest.Timing
	for i := 0; i < n; i++ {
		spread := float64((i*7)%11-5) * 0.002 * ms
		out = append(out, ingest.Timing{Experiment: exp, Variant: variant, Shape: shape, Device: "test", Method: "cuda-events", Rep: int32(i), Ms: ms + spread})
	}
	return out
}

func TestDiffTimings(t *testing.T) {
	var a, b []ingest.Timing
	a = append(a, timings("swiglu", "dual-acc", "M=512,N=4096,K=7168", 0.100, 30)...)
	b = append(b, timings("swiglu", "dual-acc", "M=512,N=4096,K=7168", 0.080, 30)...) // 20% faster
	a = append(a, timings("swiglu", "unfused", "M=512,N=4096,K=7168", 0.120, 30)...)
	b = append(b, timings("swiglu", "unfused", "M=512,N=4096,K=7168", 0.120, 30)...) // same
	a = append(a, timings("swiglu", "unfused", "M=128,N=4096,K=7168", 0.050, 30)...) // only in A
	d := DiffTimings(a, b)
	if len(d.Rows) != 3 || d.OnlyA != 1 || d.OnlyB != 0 {
		t.Fatalf("rows %d, only A %d, only B %d; want 3, 1, 0", len(d.Rows), d.OnlyA, d.OnlyB)
	}
	byVar := map[string]DiffRow{}
	for _, r := range d.Rows {
		byVar[r.Variant+" "+r.Shape] = r
	}
	fast := byVar["dual-acc M=512,N=4096,K=7168"]
	if !fast.Significant || fast.Delta == nil || *fast.Delta > -0.19 || *fast.Delta < -0.21 {
		t.Errorf("dual-acc: significant %v delta %v, want a significant -20%%", fast.Significant, fast.Delta)
	}
	if got := fast.delta(d.Alpha); got != "-20.00%" {
		t.Errorf("dual-acc delta %q, want -20.00%%", got)
	}
	same := byVar["unfused M=512,N=4096,K=7168"]
	if same.Significant || same.delta(d.Alpha) != "~" {
		t.Errorf("unfused: significant %v delta %q, want ~", same.Significant, same.delta(d.Alpha))
	}
	only := byVar["unfused M=128,N=4096,K=7168"]
	if only.New != nil || only.P != nil || only.delta(d.Alpha) != "—" {
		t.Errorf("cell only in A: %+v", only)
	}
	var tb, cb bytes.Buffer
	d.A, d.B, d.GPUA, d.GPUB = "a", "b", "GPU A", "GPU B"
	if err := d.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteCSV(&cb); err != nil {
		t.Fatal(err)
	}
	golden(t, "diff.txt", tb.Bytes())
	golden(t, "diff.csv", cb.Bytes())
}

func writeTimingTables(t *testing.T, dir string, mem memory.Allocator, ts []ingest.Timing) {
	t.Helper()
	b := ingest.NewBuilder(mem)
	defer b.Release() // Finish leaves dictionary memo buffers behind
	for _, x := range ts {
		b.AddTiming(x)
	}
	tables := b.Finish()
	defer tables.Release()
	if err := tables.Write(filepath.Join(dir, "tables"), ingest.FormatParquet); err != nil {
		t.Fatal(err)
	}
}

func TestDiffRuns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "run-a"), filepath.Join(dir, "run-b")
	writeTimingTables(t, a, mem, timings("scan_gate", "semi-fused", "B=4,T=2048,d=256,dv=64", 0.05, 20))
	writeTimingTables(t, b, mem, timings("scan_gate", "semi-fused", "B=4,T=2048,d=256,dv=64", 0.06, 20))
	d, err := DiffRuns(context.Background(), openRun(t, a), openRun(t, b), mem)
	if err != nil {
		t.Fatal(err)
	}
	if d.A != "run-a" || d.B != "run-b" || d.GPUA != "test" || len(d.Rows) != 1 || !d.Rows[0].Significant {
		t.Errorf("DiffRuns = %+v", d)
	}
	empty := filepath.Join(dir, "empty")
	writeTimingTables(t, empty, mem, nil)
	if _, err := DiffRuns(context.Background(), openRun(t, a), openRun(t, empty), mem); err == nil || !strings.Contains(err.Error(), "timings has no rows") {
		t.Errorf("empty run: err %v", err)
	}
	if _, err := DiffRuns(context.Background(), openRun(t, a), &rundir.Run{Name: "nope", FS: os.DirFS(filepath.Join(dir, "nope"))}, mem); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing run: err %v", err)
	}
}
