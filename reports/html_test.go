package reports

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/verdict"
)

// tinyPNG is a 1x1 PNG: enough to be embedded, small enough for a golden.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// plotFiles holds every plot of r, as the output directory would.
func plotFiles(r *Report) fstest.MapFS {
	files := fstest.MapFS{}
	for _, e := range r.Experiments {
		for _, p := range e.Plots {
			files[p.Path] = &fstest.MapFile{Data: tinyPNG}
		}
	}
	return files
}

func renderHTML(t *testing.T, r *Report, files fstest.MapFS) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, r, files); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// selfContained fails on anything the page would fetch: a relative or
// external src, an href other than an anchor of the page or a plot's link
// to its own file (plots/), a stylesheet link, a script.
func selfContained(t *testing.T, page string) {
	t.Helper()
	for _, re := range []string{`src="(?:[^d]|d[^a])`, `href="(?:[^#p]|p[^l]|pl[^o]|plo[^t]|plot[^s]|plots[^/])`, `<link`, `<script`, `url\(`, `@import`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("report.html is not self-contained: %q matches %s", m, re)
		}
	}
}

func TestGoldenHTML(t *testing.T) {
	r := syntheticReport(t)
	page := renderHTML(t, r, plotFiles(r))
	golden(t, "synthetic.html", []byte(page))
	selfContained(t, page)
	if !strings.Contains(page, `<img src="data:image/png;base64,`) {
		t.Error("the plot is not embedded as a data: URI")
	}
	if strings.Contains(page, `src="plots/`) {
		t.Error("report.html loads a plot by path")
	}
	// Each embedded plot links to its full-size file.
	for _, e := range r.Experiments {
		for _, p := range e.Plots {
			if !strings.Contains(page, `<a href="`+p.Path+`" title="full size: `+p.Path+`"><img src="data:image/png;base64,`) {
				t.Errorf("plot %s: no link to its file around the image", p.Path)
			}
		}
	}
	// Deterministic: a second build renders byte-identical output.
	r2 := syntheticReport(t)
	if page2 := renderHTML(t, r2, plotFiles(r2)); page2 != page {
		t.Error("two builds of the same input render different HTML")
	}
	// Every shown decision is a table row with its verdict's class.
	_, ds, _ := shownExperiments(r)
	for i, d := range ds {
		row := regexp.MustCompile(`(?m)^<tr id="d` + strconv.Itoa(i+1) + `">.*$`).FindString(page)
		if row == "" {
			t.Errorf("decision %d (%s/%s) has no row", i+1, d.Experiment, d.Claim)
			continue
		}
		if want := `class="nw ` + verdictClass(d.Verdict) + `" data-label="Verdict">` + d.Verdict + `<`; !strings.Contains(row, want) {
			t.Errorf("decision %d: row lacks %q:\n%s", i+1, want, row)
		}
	}
}

// A plot the output directory lacks leaves a note, not a relative link.
func TestHTMLMissingPlot(t *testing.T) {
	r := syntheticReport(t)
	for _, files := range []fstest.MapFS{nil, {}} {
		page := renderHTML(t, r, files)
		selfContained(t, page)
		if strings.Contains(page, "<img") {
			t.Error("an <img> without its file")
		}
		if !strings.Contains(page, `class="missing"`) {
			t.Error("no note in the missing plot's place")
		}
	}
}

// Text from the run is escaped; limited-by, counterfactual and kernel
// quality are rendered where present.
func TestHTMLEscapesAndLimited(t *testing.T) {
	r := syntheticReport(t)
	r.Run.Name = `<script>alert("x")</script>`
	var idx int
	for i, d := range r.Decisions {
		if d.Experiment == "swiglu" && d.Claim == "latency" {
			idx = i
		}
	}
	cf, bf := verdict.Counterfactual{AtBest: 14.2, Assumptions: []string{"the fused epilogue is free"}}, 0.75
	d := &r.Decisions[idx]
	d.Reason += ` & <b>bold</b>`
	d.LimitedBy, d.Counterfactual, d.BoundFraction = verdict.LimitedByImplementation, &cf, &bf
	d.MainLoops = &analysis.MainLoops{CandKernels: 1, BaseKernels: 2, CyclesRatio: 1.3, DRAMRatio: 1.0, Limited: true}
	for i := range r.Experiments {
		if r.Experiments[i].Name == "swiglu" {
			r.Experiments[i].Quality = []verdict.QualityRow{{Variant: "dual-acc", Shape: "M=512,N=4096,K=7168", GEMMSpeed: 0.77, GEMMDRAM: 1.01,
				Slowest: "void triton::_dual_acc_kernel<1>(float*)", SlowestShare: 1, ComputeSOL: 61, MemorySOL: 40, DRAMSOL: 30, Verdict: "below library quality",
				SlowestLimits: &analysis.Limits{L2HitPct: 76.2, TensorActivePct: 87.6, WarpsPerIssue: 8.66, Stalls: map[string]float64{"barrier": 2.45, "wait": 1.49}},
				LibraryGEMM:   "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", LibraryLimits: &analysis.Limits{L2HitPct: 86}}}
		}
	}
	page := renderHTML(t, r, plotFiles(r))
	selfContained(t, page)
	for _, bad := range []string{`<script>alert`, `<b>bold</b>`} {
		if strings.Contains(page, bad) {
			t.Errorf("unescaped %q", bad)
		}
	}
	for _, want := range []string{
		`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`,
		`&amp; &lt;b&gt;bold&lt;/b&gt;`,
		`<td class="n" data-label="Bound">75%</td><td data-label="Limited by">implementation<div class="sub">had they matched: at best 14.20 µs</div></td>`,
		`<td class="n">77%</td><td class="n">1.010x</td><td><code>_dual_acc_kernel (100%)</code></td><td class="n">61 / 40 / 30 %</td>`,
		`<td class="nw nogo">below library quality</td>`,
		// the limits table, as report.md has it
		`<td class="mono">_dual_acc_kernel</td><td class="n">76%</td><td class="n">88%</td><td class="n">—</td><td>barrier 2.45, wait 1.49 of 8.66</td>`,
		`<td class="mono">library: nvjet_sm90_tst_256x128_64x4_1x2_h_bz_co…</td><td class="n">86%</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
