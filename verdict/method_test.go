package verdict

import (
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rooftool/rooftool/cellkey"
)

// METHOD.md's quantitative statements, each recomputed from the raw
// exports of the committed runs (this package's own CSV and JSON reading,
// counterfactual_test.go), not from rooftool's figures.

// "ncu range pass": in the three H100 runs with a range pass per cell
// (2026-11-23-h100-140505, 161238 and 2026-11-26-h100-065510), for all 14
// unfused baseline cells, the kernel-pass DRAM sum is 3.6-12.4% below the
// range pass (the median of a cell's replays where it has several; eager at
// the MVE shape in run 161238: 147.2 MB against 161.4 MB); per-kernel replay
// does not overstate these chains.
func TestMethodKernelPassBelowRange(t *testing.T) {
	n := 0
	for _, run := range []string{"2026-11-23-h100-140505", "2026-11-23-h100-161238", "2026-11-26-h100-065510"} {
		root := "../testdata/runs/" + run
		raw := rawCells{t: t, fsys: os.DirFS(root)}
		specs, _ := fsGlob(t, root, "specs/*/spec.yaml")
		for _, sp := range specs {
			var s struct {
				Variants []struct{ Name, Role string } `yaml:"variants"`
			}
			b, err := os.ReadFile(path.Join(root, sp))
			if err != nil || yaml.Unmarshal(b, &s) != nil {
				t.Fatalf("%s: %v", sp, err)
			}
			exp := path.Base(path.Dir(sp))
			for _, v := range s.Variants {
				if v.Role != "baseline" {
					continue
				}
				ranges, _ := fsGlob(t, root, "raw/ncu-range/"+exp+"/"+v.Name+"/*.range.csv")
				for _, rf := range ranges {
					shape := strings.TrimSuffix(path.Base(rf), ".range.csv")
					if !raw.exists(path.Join("raw/ncu", exp, v.Name, shape+".csv")) {
						continue
					}
					kern := 0.0
					for _, k := range raw.rows("raw/ncu/" + exp + "/" + v.Name + "/" + shape + ".csv") {
						kern += k["dram__bytes_read.sum"] + k["dram__bytes_write.sum"]
					}
					rng := raw.rangeDRAMReplays(exp, v.Name, shape)
					n++
					if below := 1 - kern/rng; below < 0.03 || below > 0.13 {
						t.Errorf("%s %s/%s/%s: kernel-pass sum %.1f MB is %.1f%% below the range pass's %.1f MB, want 3-13%%", run, exp, v.Name, shape, kern/1e6, 100*below, rng/1e6)
					}
					if run == "2026-11-23-h100-161238" && exp == "gated_ssm" && strings.Contains(shape, "d=768") {
						if math.Abs(kern/1e6-147.2) > 0.05 || math.Abs(rng/1e6-161.4) > 0.05 {
							t.Errorf("eager MVE: %.2f MB vs %.2f MB, want 147.2 vs 161.4", kern/1e6, rng/1e6)
						}
					}
				}
			}
		}
	}
	if n != 14 {
		t.Errorf("%d unfused baseline cells with a range pass, want 14", n)
	}
}

// "L2 already saves": at gated_ssm's MVE shape in run 161238, eager's range
// pass moves 161.4 MB against its model's 2*(19*B*T*H*dk + 3*B*T*d) =
// 276.8 MB; the fused model is 2*(3*B*T*d + 5*B*T*H*dk) = 100.7 MB; so L2
// already gives (276.8 - 161.4) / (276.8 - 100.7) = 66% of the claimed
// saving.
func TestMethodL2AlreadySaves(t *testing.T) {
	raw := rawCells{t: t, fsys: os.DirFS("../testdata/runs/2026-11-23-h100-161238")}
	const bt, hdk, d = 16 * 512, 12 * 64, 768
	eagerModel, fusedModel := 2.0*(19*bt*hdk+3*bt*d), 2.0*(3*bt*d+5*bt*hdk)
	meas := raw.rangeDRAM("gated_ssm", "eager", "B=16,T=512,d=768,H=12,dk=64,n=16")
	share := (eagerModel - meas) / (eagerModel - fusedModel)
	if math.Round(100*share) != 66 || math.Round(meas/1e6) != 161 || math.Round(eagerModel/1e6) != 277 {
		t.Errorf("L2 already saves %.1f%% (%.1f MB against %.1f MB), want 66%% (161 MB against 277 MB)", 100*share, meas/1e6, eagerModel/1e6)
	}
}

// "Implementation-limited verdicts": scan_gate's megakernel takes 13x the
// SM cycles of the baseline's cuBLAS GEMM for the same products (run
// 161238, kernel pass).
func TestMethodMegakernelCycles(t *testing.T) {
	raw := rawCells{t: t, fsys: os.DirFS("../testdata/runs/2026-11-23-h100-161238")}
	shapes, _ := fsGlob(t, "../testdata/runs/2026-11-23-h100-161238", "raw/ncu/scan_gate/megakernel/*.csv")
	if len(shapes) == 0 {
		t.Fatal("no megakernel kernel pass")
	}
	shape := strings.TrimSuffix(path.Base(shapes[0]), ".csv")
	mk, _ := raw.gemms("scan_gate", "megakernel", shape)
	bl, _ := raw.gemms("scan_gate", "three-kernel", shape)
	if r := mk / bl; math.Round(r) != 13 {
		t.Errorf("megakernel / cuBLAS GEMM cycles = %.2f, want about 13", r)
	}
}

// fsGlob matches pattern under root, and pattern+".gz" (a committed run's
// gzipped CSVs), naming those as they were before compression.
func fsGlob(t *testing.T, root, pattern string) ([]string, error) {
	t.Helper()
	m, err := fs.Glob(os.DirFS(root), pattern)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := fs.Glob(os.DirFS(root), pattern+".gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gz {
		m = append(m, strings.TrimSuffix(g, ".gz"))
	}
	sort.Strings(m)
	return m, nil
}

// "Timing pass": a cell's SM clock is the median of its loop's clock
// samples. gla_proj's wide-gemm in run 161238 read 1410 MHz after its loop
// (clocks.sm_mhz) while most of its samples read 1590 MHz.
func TestMethodLoopClock(t *testing.T) {
	const run = "2026-11-23-h100-161238"
	raw := rawCells{t: t, fsys: os.DirFS("../testdata/runs/" + run)}
	const shape = "B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=16"
	want := medianOf(raw.timing("gla_proj", "wide-gemm", shape).clocks)
	if want != 1590 {
		t.Fatalf("median of wide-gemm's clock samples %.0f MHz, want 1590", want)
	}
	in := loadCommitted(t, run)
	if got := in.CellSMClocks[cellkey.New("gla_proj", "wide-gemm", shape)]; got != want {
		t.Errorf("wide-gemm's cell clock %.0f MHz, want %.0f", got, want)
	}
}

// "ncu range pass": gated_ssm/compiled at d=2048, its range replayed after
// the MVE-shape cell (run 003504): 668 us, 856 MB of DRAM, 1.98 GB of L2;
// replayed first in its own process (run 161238): 2435 us, 2753 MB,
// 13.14 GB, its kernels alone 2044 us, 2398 MB, 12.63 GB.
func TestMethodPartialRange(t *testing.T) {
	const shape = "B=16,T=2048,d=2048,H=16,dk=128,n=16"
	sum := func(rows []map[string]float64) (us, mb, gb float64) {
		for _, k := range rows {
			us += k["gpu__time_duration.sum"] / 1e3
			mb += (k["dram__bytes_read.sum"] + k["dram__bytes_write.sum"]) / 1e6
			gb += k["lts__t_bytes.sum"] / 1e9
		}
		return math.Round(us), math.Round(mb), math.Round(gb*100) / 100
	}
	check := func(what string, us, mb, gb, wus, wmb, wgb float64) {
		t.Helper()
		if us != wus || mb != wmb || gb != wgb {
			t.Errorf("%s: %.0f us, %.0f MB, %.2f GB, want %.0f, %.0f, %.2f", what, us, mb, gb, wus, wmb, wgb)
		}
	}
	old := rawCells{t: t, fsys: os.DirFS("../testdata/runs/2026-11-22-h100-003504")}
	us, mb, gb := sum(old.rows("raw/ncu-range/gated_ssm/compiled/" + shape + ".csv"))
	check("partial range (003504)", us, mb, gb, 668, 856, 1.98)
	cur := rawCells{t: t, fsys: os.DirFS("../testdata/runs/2026-11-23-h100-161238")}
	us, mb, gb = sum(cur.rows("raw/ncu-range/gated_ssm/compiled/" + shape + ".range.csv"))
	check("whole range (161238)", us, mb, gb, 2435, 2753, 13.14)
	us, mb, gb = sum(cur.rows("raw/ncu/gated_ssm/compiled/" + shape + ".csv"))
	check("kernel pass (161238)", us, mb, gb, 2044, 2398, 12.63)
}

// "The quack variants on an H100": the table of each fusion's best member
// in run 2026-11-27-h100-222424 is the report's fusion_best of that run,
// row for row, and the quack member's GEMM speed its kernel quality row's
// (to 0.1%, the table's digits). swiglu_fp8's best is dual-acc, not quack.
func TestMethodQuackBestTable(t *testing.T) {
	const run = "2026-11-27-h100-222424"
	b, err := os.ReadFile("../METHOD.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "### The quack variants on an H100 (run "+run+")")
	if i < 0 {
		t.Fatal("METHOD.md: no section on the quack variants of " + run)
	}
	var rows [][]string
	for _, l := range strings.Split(doc[i:], "\n")[1:] {
		if strings.HasPrefix(l, "#") {
			break
		}
		if strings.HasPrefix(l, "| gated_ssm |") || strings.HasPrefix(l, "| gla_proj |") || strings.HasPrefix(l, "| swiglu") {
			f := strings.Split(strings.Trim(l, "| "), " | ")
			if len(f) == 7 {
				rows = append(rows, f)
			}
		}
	}
	rep := Build(loadCommitted(t, run))
	pct := func(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }
	var want [][]string
	for _, e := range rep.Experiments {
		for _, fb := range e.FusionBest {
			quack := ""
			for _, q := range e.Quality {
				if q.Shape == fb.Shape && strings.HasPrefix(q.Variant, "quack") && slices.Contains(fb.Measured, q.Variant) && q.GEMMSpeed > 0 {
					quack = pct(q.GEMMSpeed)
				}
			}
			want = append(want, []string{e.Name, fb.Shape, fb.Fusion, fb.Best, pct(fb.GEMMSpeed),
				strconv.FormatFloat(fb.GEMMDRAM, 'f', 2, 64) + "x", quack})
		}
	}
	if len(rows) != len(want) {
		t.Fatalf("METHOD.md lists %d fusions, the run has %d: %q", len(rows), len(want), want)
	}
	for k := range want {
		if !slices.Equal(rows[k], want[k]) {
			t.Errorf("METHOD.md row %q, the run gives %q", rows[k], want[k])
		}
	}
}
