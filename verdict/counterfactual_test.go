package verdict

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/spec"
)

// The implementation-limited counterfactuals of gated_ssm in run
// 2026-11-23-h100-161238, recomputed here from the raw exports (ncu CSVs,
// timing JSON) with this file's own CSV reading, and set against the
// figures worked out by hand from the same files:
//
//   - speedup-d2048-cutlass: cutlass-evt's 4 GEMMs take 5,412,842.87 SM
//     cycles, eager's 4 cuBLAS GEMMs 2,946,810.79; the 2,466,032.08 extra
//     cycles are 1325.8 us at cutlass-evt's timed-loop clock (median of its
//     clock samples, 1860 MHz) and 1380.0 us at its GEMMs' median clock in
//     the ncu kernel pass (1787 MHz). The bound takes the slower clock's
//     1380.0 us: eager's wall median 2420.58 us over (3386.22 - 1380.0) us
//     is 1.206x at best (1.175x at the timed loop's clock).
//   - latency at d=2048: eager's device median 2613.7 us is above its wall
//     median 2420.6 us, so eager's one-call device time is taken as
//     2420.6 us; triton-epilogue's 415,195 extra cycles at the slower of its
//     device-loop clock and its GEMMs' ncu clock give
//     2420.6 / (2330.3 - dt) at best.
//   - hbm-traffic at d=2048: triton-epilogue's GEMMs move 906.4 MB more
//     DRAM than eager's (kernel pass); its out-projection must still read
//     gate and x, 2*(B*T*H*dk + B*T*d) = 268,435,456 B; so 638.0 MB come
//     off its kernel-pass bytes, set against eager's kernel-pass bytes
//     (both terms from one pass; the range pass is what the claim is judged
//     on and is not mixed in).
//   - hbm-traffic at B=16,T=512,d=768: the GEMMs' excess is 19.0 MB, less
//     than the 25.2 MB (2*(2*16*512*768)) the epilogue must read: nothing
//     comes off, the bound is the kernel-pass ratio as measured.
func TestCounterfactualsRun161238(t *testing.T) {
	const run = "2026-11-23-h100-161238"
	const big, mve = "B=16,T=2048,d=2048,H=16,dk=128,n=16", "B=16,T=512,d=768,H=12,dk=64,n=16"
	in := loadCommitted(t, run)
	rep := Build(in)
	// A decision the rule does not limit (latency and hbm-traffic at the
	// MVE shape: within the epilogue's allowance) has no counterfactual in
	// the report; it is computed here as the report would.
	x := newIndex(in.Run, in.Manifest, in.Checks)
	x.clocks, x.deviceClocks = in.CellSMClocks, in.CellDeviceSMClocks
	var exp *spec.Experiment
	for _, e := range in.Experiments {
		if e.Name == "gated_ssm" {
			exp = e
		}
	}
	find := func(claim, shape string) *Decision {
		t.Helper()
		for i := range rep.Decisions {
			if d := &rep.Decisions[i]; d.Experiment == "gated_ssm" && d.Claim == claim && d.Shape == shape {
				if d.Counterfactual == nil && d.LimitedBy == "" {
					ml, ok := x.mainLoops("gated_ssm", d.Candidate, d.Baseline, shape)
					if cf, ok2 := x.counterfactual(exp, d.Metric, d.Candidate, d.Baseline, shape, ml); ok && ok2 {
						d.Counterfactual = &cf
					}
				}
				if d.Counterfactual == nil {
					t.Fatalf("%s at %s: no counterfactual: %s", claim, shape, d.Reason)
				}
				if strings.Contains(d.Reason, "(GO)") || strings.Contains(d.Reason, "(NO-GO)") {
					t.Errorf("%s at %s: the counterfactual carries a verdict: %s", claim, shape, d.Reason)
				}
				return d
			}
		}
		t.Fatalf("no decision %s at %s", claim, shape)
		return nil
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.6g, want %.6g", what, got, want)
		}
	}
	raw := rawCells{t: t, fsys: os.DirFS("../testdata/runs/" + run)}
	gemms := func(v, shape string) (cycles, dram float64) { return raw.gemms("gated_ssm", v, shape) }

	// speedup-d2048-cutlass, at the slower of cutlass-evt's timing clock
	// and its GEMMs' ncu clock.
	cc, _, cMHz := raw.gemmsClock("gated_ssm", "cutlass-evt", big)
	ec, ed := gemms("eager", big)
	cutT, eagT := raw.timing("gated_ssm", "cutlass-evt", big), raw.timing("gated_ssm", "eager", big)
	dt := (cc - ec) / (min(medianOf(cutT.clocks), cMHz) * 1e6) * 1e3
	want := medianOf(eagT.wall) / (medianOf(cutT.wall) - dt)
	d := find("speedup-d2048-cutlass", big)
	near("cutlass-evt speedup at best (raw)", d.Counterfactual.AtBest, want, 2e-3)
	near("cutlass-evt speedup at best (by hand)", d.Counterfactual.AtBest, 1.206, 1e-3)
	near("cutlass-evt clock", d.Counterfactual.ClockMHz, 1860, 0)
	near("cutlass-evt GEMM clock (by hand)", d.Counterfactual.GEMMClockMHz, 1787, 1)
	near("time removed (by hand)", d.Counterfactual.TimeRemovedUs, 1380.0, 0.5)
	if !(d.Counterfactual.Lo < 1.175 && d.Counterfactual.Hi > 1.206) {
		t.Errorf("range %.4f..%.4f does not span both clocks' values 1.175 and 1.206", d.Counterfactual.Lo, d.Counterfactual.Hi)
	}
	if d.Verdict != VerdictNoGo {
		t.Errorf("speedup-d2048-cutlass verdict %s, want NO-GO (the counterfactual does not change it)", d.Verdict)
	}

	// latency at d=2048: eager's device time capped at its wall median.
	tc, td, tMHz := raw.gemmsClock("gated_ssm", "triton-epilogue", big)
	triT := raw.timing("gated_ssm", "triton-epilogue", big)
	if medianOf(eagT.device) <= medianOf(eagT.wall) {
		t.Fatalf("eager's device median %.1f us is not above its wall median %.1f us", medianOf(eagT.device)*1e3, medianOf(eagT.wall)*1e3)
	}
	d = find("latency", big)
	dt = (tc - ec) / (min(d.Counterfactual.ClockMHz, tMHz) * 1e6) * 1e3
	near("latency GEMM clock", d.Counterfactual.GEMMClockMHz, tMHz, 1e-6)
	near("latency at best (raw)", d.Counterfactual.AtBest, medianOf(eagT.wall)/(medianOf(triT.device)-dt), 2e-3)

	// hbm-traffic at d=2048: the out-projection's reads of gate and x stay.
	const epi = 2 * (16*2048*16*128 + 16*2048*2048)
	d = find("hbm-traffic", big)
	near("epilogue bytes", *d.Counterfactual.EpilogueBytes, epi, 0)
	near("GEMM excess", d.Counterfactual.ExtraGEMMBytes, td-ed, 1)
	kt, ke := raw.kernelDRAM("gated_ssm", "triton-epilogue", big), raw.kernelDRAM("gated_ssm", "eager", big)
	near("dram_ratio at best (raw, kernel pass)", d.Counterfactual.AtBest, (kt-(td-ed-epi))/ke, 1e-9)
	near("dram_ratio measured in the kernel pass", d.Counterfactual.MeasuredKernel, kt/ke, 1e-9)
	if d.Counterfactual.Pass != "kernel" || d.Counterfactual.Lo != d.Counterfactual.AtBest || d.Counterfactual.Hi != d.Counterfactual.AtBest {
		t.Errorf("DRAM counterfactual pass %q range %v..%v, want kernel and a point", d.Counterfactual.Pass, d.Counterfactual.Lo, d.Counterfactual.Hi)
	}
	near("bytes kept (by hand)", epi, 268.4e6, 0.1e6)

	// hbm-traffic at the MVE shape: the needed reads exceed the excess.
	const epiMVE = 2 * (16*512*12*64 + 16*512*768)
	tm, tdm := gemms("triton-epilogue", mve)
	_, edm := gemms("eager", mve)
	_ = tm
	if tdm-edm >= epiMVE {
		t.Fatalf("MVE: GEMM excess %.1f MB not below the epilogue's %.1f MB", (tdm-edm)/1e6, epiMVE/1e6)
	}
	d = find("hbm-traffic", mve)
	near("MVE bytes removed", d.Counterfactual.BytesRemoved, 0, 0)
	near("MVE dram_ratio at best", d.Counterfactual.AtBest, raw.kernelDRAM("gated_ssm", "triton-epilogue", mve)/raw.kernelDRAM("gated_ssm", "eager", mve), 1e-12)
	near("MVE excess (by hand)", tdm-edm, 19.0e6, 0.1e6)
	near("MVE epilogue (by hand)", epiMVE, 25.2e6, 0.1e6)
}

// TestDeviceAboveWallRun161238: eager at d=2048 in run 2026-11-23-h100-161238
// has device-time samples (CUDA-graph replay) whose median, 2613.7 us, is
// above its wall median, 2420.6 us (timing JSON): a device-above-wall
// warning with those figures; eager at the MVE shape (device 126.4 us, wall
// 172.8 us) has none.
func TestDeviceAboveWallRun161238(t *testing.T) {
	in := loadCommitted(t, "2026-11-23-h100-161238")
	has := func(shape string) string {
		for _, c := range in.Run.Cells {
			if c.Experiment == "gated_ssm" && c.Variant == "eager" && c.Shape == shape {
				for _, w := range c.Warnings {
					if w.Code == analysis.WarnDeviceAboveWall {
						return w.Msg
					}
				}
			}
		}
		return ""
	}
	msg := has("B=16,T=2048,d=2048,H=16,dk=128,n=16")
	for _, f := range []string{"2613.7 us", "2420.6 us", "2471.9-2641.7 us"} {
		if !strings.Contains(msg, f) {
			t.Errorf("device-above-wall at d=2048 lacks %q: %q", f, msg)
		}
	}
	if m := has("B=16,T=512,d=768,H=12,dk=64,n=16"); m != "" {
		t.Errorf("device-above-wall at the MVE shape: %s", m)
	}
}

// rawCells reads a committed run's raw exports without rooftool's readers.
type rawCells struct {
	t    *testing.T
	fsys fs.FS
}

type rawTiming struct{ wall, device, clocks []float64 }

func (r rawCells) timing(exp, v, shape string) rawTiming {
	b, err := fs.ReadFile(r.fsys, "raw/timing/"+exp+"/"+v+"/"+shape+".json")
	if err != nil {
		r.t.Fatal(err)
	}
	var f struct {
		Samples []float64 `json:"samples_ms"`
		Device  []float64 `json:"device_ms"`
		Clocks  []struct {
			SM float64 `json:"sm_mhz"`
		} `json:"clock_samples"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		r.t.Fatal(err)
	}
	out := rawTiming{wall: f.Samples, device: f.Device}
	for _, c := range f.Clocks {
		out.clocks = append(out.clocks, c.SM)
	}
	return out
}

// exists reports whether the run holds path, plain or gzipped.
func (r rawCells) exists(path string) bool {
	_, err := fs.Stat(r.fsys, path)
	if err != nil {
		_, err = fs.Stat(r.fsys, path+".gz")
	}
	return err == nil
}

// rows reads an ncu raw-page CSV: one map per kernel (rows whose ID is a
// number; the units row is skipped).
//
// A committed run keeps its CSVs gzipped (<path>.gz); rows reads that where
// path itself is absent, as ingest does.
func (r rawCells) rows(path string) []map[string]float64 {
	var in io.Reader
	f, err := r.fsys.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if f, err = r.fsys.Open(path + ".gz"); err == nil {
			defer f.Close()
			in, err = gzip.NewReader(f)
		}
	} else if err == nil {
		defer f.Close()
		in = f
	}
	if err != nil {
		r.t.Fatal(err)
	}
	recs, err := csv.NewReader(in).ReadAll()
	if err != nil {
		r.t.Fatal(err)
	}
	var out []map[string]float64
	for _, rec := range recs[1:] {
		if _, err := strconv.Atoi(rec[0]); err != nil {
			continue
		}
		m := map[string]float64{}
		for i, h := range recs[0] {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(rec[i], ",", ""), 64); err == nil {
				m[h] = v
			}
		}
		out = append(out, m)
	}
	return out
}

// gemms sums SM cycles and DRAM bytes over the kernels with tensor
// operations (any sm__ops_path_tensor_src_*.sum above 0) of a cell's ncu
// kernel pass.
func (r rawCells) gemms(exp, v, shape string) (cycles, dram float64) {
	cycles, dram, _ = r.gemmsClock(exp, v, shape)
	return cycles, dram
}

// gemmsClock is gemms with the median SM clock of those kernels, MHz
// (sm__cycles_elapsed.avg.per_second, in hz).
func (r rawCells) gemmsClock(exp, v, shape string) (cycles, dram, mhz float64) {
	var clocks []float64
	for _, k := range r.rows("raw/ncu/" + exp + "/" + v + "/" + shape + ".csv") {
		tensor := 0.0
		for h, x := range k {
			if strings.HasPrefix(h, "sm__ops_path_tensor_src_") && strings.HasSuffix(h, ".sum") {
				tensor += x
			}
		}
		if tensor > 0 {
			cycles += k["sm__cycles_elapsed.avg"]
			dram += k["dram__bytes_read.sum"] + k["dram__bytes_write.sum"]
			clocks = append(clocks, k["sm__cycles_elapsed.avg.per_second"]/1e6)
		}
	}
	if len(clocks) == 0 {
		return cycles, dram, 0
	}
	return cycles, dram, medianOf(clocks)
}

// kernelDRAM is the DRAM bytes read + written of all kernels of a cell's
// ncu kernel pass.
func (r rawCells) kernelDRAM(exp, v, shape string) float64 {
	s := 0.0
	for _, k := range r.rows("raw/ncu/" + exp + "/" + v + "/" + shape + ".csv") {
		s += k["dram__bytes_read.sum"] + k["dram__bytes_write.sum"]
	}
	return s
}

// rangeDRAM is the DRAM bytes read + written of a cell's ncu range pass.
func (r rawCells) rangeDRAM(exp, v, shape string) float64 {
	s := 0.0
	for _, k := range r.rows("raw/ncu-range/" + exp + "/" + v + "/" + shape + ".range.csv") {
		s += k["dram__bytes_read.sum"] + k["dram__bytes_write.sum"]
	}
	return s
}

// rangeDRAMReplays is the median of a cell's range replays' DRAM bytes
// (<shape>.range.csv, .range.r2.csv, ...; one replay in the older runs).
func (r rawCells) rangeDRAMReplays(exp, v, shape string) float64 {
	var xs []float64
	for i := 1; ; i++ {
		name := "raw/ncu-range/" + exp + "/" + v + "/" + shape + ".range.csv"
		if i > 1 {
			name = fmt.Sprintf("raw/ncu-range/%s/%s/%s.range.r%d.csv", exp, v, shape, i)
		}
		if !r.exists(name) {
			break
		}
		s := 0.0
		for _, k := range r.rows(name) {
			s += k["dram__bytes_read.sum"] + k["dram__bytes_write.sum"]
		}
		xs = append(xs, s)
	}
	if len(xs) == 0 {
		r.t.Fatalf("%s/%s/%s: no range replay", exp, v, shape)
	}
	return medianOf(xs)
}

func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
