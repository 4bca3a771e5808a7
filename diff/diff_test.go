package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	goldenfile "github.com/rooftool/rooftool/internal/golden"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/testdata"
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
	d := Timings(a, b)
	if len(d.Rows) != 3 || d.OnlyA != 1 || d.OnlyB != 0 {
		t.Fatalf("rows %d, only A %d, only B %d; want 3, 1, 0", len(d.Rows), d.OnlyA, d.OnlyB)
	}
	byVar := map[string]Row{}
	for _, r := range d.Rows {
		byVar[r.Variant+" "+r.Shape] = r
	}
	fast := byVar["dual-acc M=512,N=4096,K=7168"]
	if !fast.Significant || fast.Delta == nil || *fast.Delta > -0.19 || *fast.Delta < -0.21 || fast.Status != Both {
		t.Errorf("dual-acc: significant %v delta %v status %q, want a significant -20%% in both", fast.Significant, fast.Delta, fast.Status)
	}
	if got := fast.delta(d.Alpha); got != "-20.00%" {
		t.Errorf("dual-acc delta %q, want -20.00%%", got)
	}
	same := byVar["unfused M=512,N=4096,K=7168"]
	if same.Significant || same.delta(d.Alpha) != "~" {
		t.Errorf("unfused: significant %v delta %q, want ~", same.Significant, same.delta(d.Alpha))
	}
	only := byVar["unfused M=128,N=4096,K=7168"]
	if only.New != nil || only.P != nil || only.delta(d.Alpha) != "—" || only.Status != OldOnly {
		t.Errorf("cell only in A: %+v", only)
	}
	// geomean of 0.08/0.1 and 0.12/0.12: sqrt(0.8) - 1.
	if g := d.Geomean; g == nil || g.Cells != 2 || g.Delta > -0.105 || g.Delta < -0.106 {
		t.Errorf("geomean %+v, want 2 cells and -10.56%%", g)
	}
	var tb, cb bytes.Buffer
	d.A, d.B, d.GPUA, d.GPUB = "a", "b", "GPU A", "GPU B"
	if err := d.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteCSV(&cb); err != nil {
		t.Fatal(err)
	}
	golden(t, "diff-wall-times-only.txt", tb.Bytes())
	golden(t, "diff-wall-times-only.csv", cb.Bytes())
}

// diffKernel is one launch in a cell of a synthetic run.
type diffKernel struct {
	nsys, ncu   string  // the name as each tool spells it; "": not in that pass
	ns          int64   // duration (both passes)
	read, write float64 // ncu DRAM bytes; read < 0: the export lacks the counters
}

// diffCell is one cell of a synthetic run.
type diffCell struct {
	exp, variant, shape string
	ms                  float64 // median wall time; 0: no timing samples
	kernels             []diffKernel
}

// diffTables builds the tables of a synthetic run.
func diffTables(t *testing.T, mem memory.Allocator, cells []diffCell) *ingest.Tables {
	t.Helper()
	b := ingest.NewBuilder(mem)
	defer b.Release()
	var start int64
	for _, c := range cells {
		if c.ms > 0 {
			for _, x := range timings(c.exp, c.variant, c.shape, c.ms, 20) {
				b.AddTiming(x)
			}
		}
		for _, k := range c.kernels {
			start += 1000 + k.ns
			if k.nsys != "" {
				b.AddKernel(ingest.Kernel{Source: ingest.SourceNsys, Pass: ingest.PassTimeline, Experiment: c.exp, Variant: c.variant, Shape: c.shape,
					Name: k.nsys, StartNs: start, DurationNs: k.ns})
			}
			if k.ncu != "" {
				id := b.AddKernel(ingest.Kernel{Source: ingest.SourceNCU, Pass: ingest.PassKernel, Experiment: c.exp, Variant: c.variant, Shape: c.shape,
					Name: k.ncu, DurationNs: k.ns + 500})
				if k.read >= 0 {
					b.AddMetric(ingest.Metric{KernelID: id, Name: "dram__bytes_read.sum", Unit: "byte", Value: k.read, Valid: true})
					b.AddMetric(ingest.Metric{KernelID: id, Name: "dram__bytes_write.sum", Unit: "byte", Value: k.write, Valid: true})
				}
			}
		}
	}
	return b.Finish()
}

// Kernels as nsys and ncu spell them.
var (
	dkEpi      = diffKernel{nsys: "_mm_epi_kernel", ncu: "_mm_epi_kernel", ns: 62000, read: 30e6, write: 20e6}
	dkEpiTMA   = diffKernel{nsys: "_mm_epi_tma_persistent_kernel", ncu: "_mm_epi_tma_persistent_kernel", ns: 41000, read: 39e6, write: 5e6}
	dkGEMM     = diffKernel{nsys: "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT", ncu: "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT", ns: 41000, read: 20e6, write: 4e6}
	dkSiLU     = diffKernel{nsys: "_silu_mul_kernel", ncu: "_silu_mul_kernel", ns: 4100, read: 8e6, write: 4e6}
	dkDualAcc  = diffKernel{nsys: "_dual_acc_kernel", ncu: "_dual_acc_kernel", ns: 87000, read: 22e6, write: 4e6}
	dkSigmoidA = diffKernel{ // PyTorch's elementwise kernel: nsys keeps namespaces and casts, ncu drops them
		nsys: "void at::native::vectorized_elementwise_kernel<(int)8, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]>(int, T2, T3)",
		ncu:  "void at::vectorized_elementwise_kernel<8, at::sigmoid_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]>(int, T2, T3)",
		ns:   3100, read: 8e6, write: 8e6}
)

// with returns k at another duration.
func (k diffKernel) with(ns int64) diffKernel { k.ns = ns; return k }

// ncuOnly returns k as the ncu kernel pass alone saw it.
func (k diffKernel) ncuOnly() diffKernel { k.nsys = ""; return k }

// noDRAM returns k without DRAM counters.
func (k diffKernel) noDRAM() diffKernel { k.read = -1; return k }

const (
	dShape  = "B=16,T=512,d=768,H=12,dk=64,n=16"
	dSwiglu = "M=512,N=4096,K=7168"
)

// TestDiffKernels: each situation of the per-kernel diff, one golden each
// (testdata/diff-<situation>.txt).
func TestDiffKernels(t *testing.T) {
	for _, tc := range []struct {
		situation  string
		a, b       []diffCell
		added      []string // of the first kernel cell
		removed    []string
		note       string // of the first kernel cell
		kernelRows int
		moreFormat bool // also pin the CSV and JSON
	}{
		{
			situation: "kernel-added",
			a:         []diffCell{{"gated_ssm", "triton-epilogue", dShape, 0.130, []diffKernel{dkEpi, dkEpi}}},
			b:         []diffCell{{"gated_ssm", "triton-epilogue", dShape, 0.128, []diffKernel{dkEpi.with(84000), dkEpiTMA}}},
			added:     []string{"_mm_epi_tma_persistent_kernel"}, removed: []string{}, kernelRows: 2, moreFormat: true,
		},
		{
			situation: "kernels-fused",
			a:         []diffCell{{"swiglu", "unfused", dSwiglu, 0.110, []diffKernel{dkGEMM, dkGEMM, dkSiLU}}},
			b:         []diffCell{{"swiglu", "unfused", dSwiglu, 0.095, []diffKernel{dkDualAcc}}},
			added:     []string{"_dual_acc_kernel"},
			removed:   []string{"nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT", "_silu_mul_kernel"}, kernelRows: 3,
		},
		{
			situation: "names-across-tools",
			a:         []diffCell{{"gated_ssm", "eager", dShape, 0.200, []diffKernel{dkSigmoidA}}},
			b:         []diffCell{{"gated_ssm", "eager", dShape, 0.200, []diffKernel{dkSigmoidA.with(2900)}}},
			added:     []string{}, removed: []string{}, kernelRows: 1,
		},
		{
			situation: "new-run-ncu-only",
			a:         []diffCell{{"gated_ssm", "eager", dShape, 0.200, []diffKernel{dkSigmoidA, dkGEMM}}},
			b:         []diffCell{{"gated_ssm", "eager", dShape, 0.190, []diffKernel{dkSigmoidA.ncuOnly(), dkGEMM.ncuOnly()}}},
			added:     []string{}, removed: []string{}, kernelRows: 2,
		},
		{
			situation: "dram-counters-missing",
			a:         []diffCell{{"swiglu", "dual-acc", dSwiglu, 0.090, []diffKernel{dkDualAcc}}},
			b:         []diffCell{{"swiglu", "dual-acc", dSwiglu, 0.090, []diffKernel{dkDualAcc.noDRAM()}}},
			added:     []string{}, removed: []string{}, kernelRows: 1,
		},
		{
			// The old run's ncu kernel pass and nsys saw different kernels
			// (as 2026-11-22-h100-003504 does in gated_ssm/triton-epilogue
			// at the large shape): DRAM over other launches is starred and
			// analysis's warning shown.
			situation: "passes-differ",
			a: []diffCell{{"gated_ssm", "triton-epilogue", dShape, 0.130, []diffKernel{dkEpi,
				{nsys: "_mm_epi_tma_kernel", ncu: "_mm_epi_kernel", ns: 30000, read: 10e6, write: 10e6}}}},
			b:       []diffCell{{"gated_ssm", "triton-epilogue", dShape, 0.128, []diffKernel{dkEpi, dkEpiTMA}}},
			added:   []string{"_mm_epi_tma_persistent_kernel"},
			removed: []string{"_mm_epi_tma_kernel"}, kernelRows: 3,
		},
		{
			situation: "new-run-no-kernels",
			a:         []diffCell{{"swiglu", "dual-acc", dSwiglu, 0.090, []diffKernel{dkDualAcc}}},
			b:         []diffCell{{"swiglu", "dual-acc", dSwiglu, 0.080, nil}, {"swiglu", "unfused", dSwiglu, 0.1, []diffKernel{dkGEMM}}},
			added:     []string{}, removed: []string{}, note: "run new has no kernels for this cell",
		},
	} {
		t.Run(tc.situation, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ta, tb := diffTables(t, mem, tc.a), diffTables(t, mem, tc.b)
			defer ta.Release()
			defer tb.Release()
			d, err := Tables(&pipeline.Tables{Name: "old", Tables: ta}, &pipeline.Tables{Name: "new", Tables: tb})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.KernelCells) == 0 {
				t.Fatal("no kernel cell")
			}
			c := d.KernelCells[0]
			if diff := cmp.Diff(tc.added, c.Added); diff != "" {
				t.Errorf("added (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.removed, c.Removed); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
			if c.Note != tc.note || len(d.Kernels) != tc.kernelRows {
				t.Errorf("note %q, %d kernel rows; want %q, %d", c.Note, len(d.Kernels), tc.note, tc.kernelRows)
			}
			var out bytes.Buffer
			if err := d.WriteTable(&out); err != nil {
				t.Fatal(err)
			}
			golden(t, "diff-"+tc.situation+".txt", out.Bytes())
			if !tc.moreFormat {
				return
			}
			out.Reset()
			if err := d.WriteCSV(&out); err != nil {
				t.Fatal(err)
			}
			golden(t, "diff-"+tc.situation+".csv", out.Bytes())
			out.Reset()
			if err := d.WriteJSON(&out); err != nil {
				t.Fatal(err)
			}
			golden(t, "diff-"+tc.situation+".json", out.Bytes())
			var v map[string]any
			if err := json.Unmarshal(out.Bytes(), &v); err != nil || v["rooftool_diff"] != float64(1) {
				t.Errorf("JSON: rooftool_diff %v, err %v; want 1", v["rooftool_diff"], err)
			}
		})
	}
}

// A kernel both runs launch, spelled by nsys in one and by ncu only in the
// other, is one kernel: counts, times and DRAM meet under one name.
func TestDiffKernelNamesMeet(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ta := diffTables(t, mem, []diffCell{{"gated_ssm", "eager", dShape, 0.2, []diffKernel{dkSigmoidA}}})
	tb := diffTables(t, mem, []diffCell{{"gated_ssm", "eager", dShape, 0.2, []diffKernel{dkSigmoidA.ncuOnly().with(2000)}}})
	defer ta.Release()
	defer tb.Release()
	d, err := Tables(&pipeline.Tables{Name: "a", Tables: ta}, &pipeline.Tables{Name: "b", Tables: tb})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Kernels) != 1 {
		t.Fatalf("kernel rows %+v, want one", d.Kernels)
	}
	r := d.Kernels[0]
	if r.Status != Both || r.Old.Source != "nsys" || r.New.Source != "ncu" || r.Old.TimeNs != 3100 || r.New.TimeNs != 2500 ||
		r.Old.DRAMBytes == nil || *r.Old.DRAMBytes != 16e6 || r.DRAMDelta == nil || *r.DRAMDelta != 0 {
		t.Errorf("row %+v old %+v new %+v", r, r.Old, r.New)
	}
}

// A pass the new run's manifest marks failed is left out of the comparison
// as analysis leaves it out: with dual-acc's nsys pass failed, its kernels
// are those of the ncu kernel pass (source ncu, its durations); with its
// timing pass skipped, the cell has no wall time in the new run.
func TestDiffMaskedPasses(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cells := []diffCell{{"swiglu", "dual-acc", dSwiglu, 0.090, []diffKernel{dkDualAcc}}}
	ta, tb := diffTables(t, mem, cells), diffTables(t, mem, cells)
	defer ta.Release()
	defer tb.Release()
	failed := func(pass, status string) *rundir.Manifest {
		ps := map[string]rundir.PassStatus{}
		for _, p := range rundir.AllPasses {
			ps[p] = rundir.PassStatus{Status: rundir.StatusOK}
		}
		ps[pass] = rundir.PassStatus{Status: status, Reason: "test"}
		return &rundir.Manifest{Cells: []rundir.Cell{{Experiment: "swiglu", Variant: "dual-acc", Shape: dSwiglu, Passes: ps}}}
	}
	d, err := Tables(&pipeline.Tables{Name: "a", Tables: ta}, &pipeline.Tables{Name: "b", Tables: tb, Manifest: failed(rundir.PassNsys, rundir.StatusFailed)})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.KernelCells) != 1 || d.KernelCells[0].Old.Source != "nsys" || d.KernelCells[0].New.Source != ingest.SourceNCU ||
		d.KernelCells[0].Old.TimeNs != 87000 || d.KernelCells[0].New.TimeNs != 87500 {
		t.Errorf("nsys failed in b: kernel cells %+v, want a from nsys (87 us), b from the ncu kernel pass (87.5 us)", d.KernelCells)
	}
	d, err = Tables(&pipeline.Tables{Name: "a", Tables: ta}, &pipeline.Tables{Name: "b", Tables: tb, Manifest: failed(rundir.PassTiming, rundir.StatusSkipped)})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 1 || d.Rows[0].Status != OldOnly || d.OnlyA != 1 {
		t.Errorf("timing skipped in b: rows %+v, want the cell in a only", d.Rows)
	}
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
	d, err := diffRuns(openRun(t, a), openRun(t, b), mem)
	if err != nil {
		t.Fatal(err)
	}
	if d.A != "run-a" || d.B != "run-b" || d.GPUA != "test" || len(d.Rows) != 1 || !d.Rows[0].Significant || d.Geomean == nil {
		t.Errorf("Runs = %+v", d)
	}
	empty := filepath.Join(dir, "empty")
	writeTimingTables(t, empty, mem, nil)
	for _, tc := range []struct {
		name string
		b    *rundir.Run
		want string
	}{
		{"empty tables", openRun(t, empty), "run empty: its tables hold no wall-time samples and no kernel"},
		{"no tables", openRun(t, dir), "run " + filepath.Base(dir) + ": no tables in " + dir},
		{"no folder", &rundir.Run{Name: "nope", FS: os.DirFS(filepath.Join(dir, "nope"))}, "run nope: no tables"},
	} {
		// A run without tables is refused when they are opened
		// (pipeline.RunInputError); tables without anything to compare by
		// Runs (InputError).
		_, err := diffRuns(openRun(t, a), tc.b, mem)
		var ie *InputError
		var re *pipeline.RunInputError
		if !errors.As(err, &ie) && !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want a InputError or RunInputError with %q", tc.name, err, tc.want)
		}
	}
}

// TestDiffCommittedRuns diffs two committed H100 runs. In
// gated_ssm/triton-epilogue at the small shape the newer run replaced the
// second _mm_epi_kernel launch with _mm_epi_tma_persistent_kernel. The
// figures pinned here come from the tables, independently of rooftool:
//
//	python3 - <<'EOF'
//	import pyarrow.parquet as pq
//	for r in ['2026-11-22-h100-003504', '2026-11-23-h100-140505']:
//	    d = f'testdata/runs/{r}/tables/'
//	    k = pq.read_table(d + 'kernels.parquet').to_pandas()
//	    m = pq.read_table(d + 'metrics.parquet').to_pandas()
//	    c = k[(k.experiment == 'gated_ssm') & (k.variant == 'triton-epilogue') & (k['shape'] == 'B=16,T=512,d=768,H=12,dk=64,n=16')]
//	    print(c[(c.source == 'nsys') & (c['pass'] == 'timeline')].groupby('name').duration_ns.agg(['count', 'sum']))
//	    ncu = c[(c.source == 'ncu') & (c['pass'] == 'kernel')]
//	    mm = m[m.kernel_id.isin(ncu.id) & m.metric.isin(['dram__bytes_read.sum', 'dram__bytes_write.sum'])]
//	    print(mm.merge(ncu[['id', 'name']], left_on='kernel_id', right_on='id').groupby('name').value.sum())
//	EOF
//
// prints for 003504: _mm_epi_kernel 2 launches, 124835 ns, 99716608 bytes;
// for 140505: _mm_epi_kernel 1, 84481 ns, 55931904 bytes and
// _mm_epi_tma_persistent_kernel 1, 41217 ns, 45117440 bytes.
func TestDiffCommittedRuns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var runs [2]*rundir.Run
	for i, name := range []string{"2026-11-22-h100-003504", "2026-11-23-h100-140505"} {
		_, fsys, err := testdata.Run(name)
		if err != nil {
			t.Fatal(err)
		}
		if runs[i], err = rundir.OpenFS(name, fsys); err != nil {
			t.Fatal(err)
		}
	}
	d, err := diffRuns(runs[0], runs[1], mem)
	if err != nil {
		t.Fatal(err)
	}
	if d.GPUA != "NVIDIA H100 80GB HBM3" || d.Geomean == nil || d.Geomean.Cells == 0 {
		t.Errorf("GPU %q, geomean %+v", d.GPUA, d.Geomean)
	}
	side := func(count int, ns, dram float64) *KernelSide {
		return &KernelSide{Count: count, TimeNs: ns, DRAMBytes: &dram, NCUCount: count, Source: "nsys"}
	}
	want := map[string]KernelRow{
		"_mm_epi_kernel":                {Status: Both, Old: side(2, 124835, 99716608), New: side(1, 84481, 55931904)},
		"_mm_epi_tma_persistent_kernel": {Status: Added, New: side(1, 41217, 45117440)},
	}
	got := map[string]KernelRow{}
	for _, r := range d.Kernels {
		if r.Experiment == "gated_ssm" && r.Variant == "triton-epilogue" && r.Shape == dShape {
			got[r.Kernel] = KernelRow{Status: r.Status, Old: r.Old, New: r.New}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gated_ssm/triton-epilogue/%s kernels (-want +got):\n%s", dShape, diff)
	}
}

// Without OneRunCells the cells of one run are counted per experiment and
// run, not listed: two swiglu cells only in the old run and one gla cell
// only in the new give the rows "swiglu 2 0" and "gla 0 1".
func TestDiffOneRunCounts(t *testing.T) {
	var a, b []ingest.Timing
	a = append(a, timings("swiglu", "dual-acc", "M=512,N=4096,K=7168", 0.100, 30)...)
	b = append(b, timings("swiglu", "dual-acc", "M=512,N=4096,K=7168", 0.080, 30)...)
	a = append(a, timings("swiglu", "unfused", "M=128,N=4096,K=7168", 0.050, 30)...)
	a = append(a, timings("swiglu", "unfused", "M=256,N=4096,K=7168", 0.060, 30)...)
	b = append(b, timings("gla", "fused", "T=512", 0.070, 30)...)
	d := Timings(a, b)
	d.A, d.B = "a", "b"
	var brief, all bytes.Buffer
	if err := d.WriteText(&brief, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteText(&all, TextOptions{OneRunCells: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"3 cells in one run only, per experiment (--one-run-cells lists them):",
		"| Experiment | Only in a (old) | Only in b (new) |",
		"| swiglu     |               2 |               0 |",
		"| gla        |               0 |               1 |",
	} {
		if !strings.Contains(brief.String(), want) {
			t.Errorf("the counted output lacks %q:\n%s", want, brief.String())
		}
	}
	for _, s := range []string{"M=128,N=4096,K=7168", "M=256,N=4096,K=7168", "T=512"} {
		if strings.Contains(brief.String(), s) {
			t.Errorf("the counted output lists the cell %s", s)
		}
		if !strings.Contains(all.String(), s) {
			t.Errorf("--one-run-cells does not list the cell %s", s)
		}
	}
}

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// openRun opens a run directory or fails the test.
func openRun(t *testing.T, dir string) *rundir.Run {
	t.Helper()
	run, err := rundir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// diffRuns opens two runs' tables as rooftool diff does
// (pipeline.OpenTables) and compares them with Runs.
func diffRuns(a, b *rundir.Run, mem memory.Allocator) (*Result, error) {
	ta, err := pipeline.OpenTables(context.Background(), a, mem)
	if err != nil {
		return nil, err
	}
	defer ta.Release()
	tb, err := pipeline.OpenTables(context.Background(), b, mem)
	if err != nil {
		return nil, err
	}
	defer tb.Release()
	return Runs(ta, tb)
}
