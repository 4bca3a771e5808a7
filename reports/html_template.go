package reports

// The markup and style of report.html: one html/template over the view
// html.go builds (htmlView), with the CSS inline so the page is one file.

import "html/template"

var htmlPage = template.Must(template.New("report.html").Parse(htmlTemplate))

const htmlTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.2em auto 2em;max-width:110em;padding:0 1.5em;color:#1b1f24;line-height:1.45;overflow-wrap:break-word}
h1{font-size:1.45em;margin:.2em 0}
h2{font-size:1.3em;margin-top:2.2em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
h3{font-size:1.05em;margin-top:1.6em}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.wrap{overflow-x:auto;max-width:100%}
img{max-width:100%;height:auto}
table{border-collapse:collapse;margin:.6em 0;font-size:.86em}
th,td{border:1px solid #d0d7de;padding:.25em .5em;vertical-align:top;text-align:left}
th{background:#f3f5f7}
td.n{white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.nw{white-space:nowrap}
td.shape code{overflow-wrap:anywhere}
td.shape{min-width:9em;max-width:16em}
tbody:not(.dec) tr:nth-child(even){background:#fafbfc}
.sub{color:#57606a;font-size:.9em;margin-top:.2em}
tbody.dec{border-top:2px solid #afb8c1}
tr.why td{font-size:.95em;background:#fff}
.edge-go{border-left:4px solid #2da44e}
.edge-nogo{border-left:4px solid #cf222e}
.edge-inc{border-left:4px solid #bf8700}
.edge-nm{border-left:4px solid #8c959f}
.go{background:#d4f4dc;color:#0f5323;font-weight:600}
.nogo{background:#ffd8d3;color:#8a1c0f;font-weight:600}
.inc{background:#fff1c2;color:#6b4f00;font-weight:600}
.nm{background:#e9ecef;color:#495057;font-weight:600}
.bad{background:#ffd8d3;color:#8a1c0f}
.muted{background:#e9ecef;color:#495057}
.warn{color:#8a1c0f}
.badge{display:inline-block;padding:.1em .6em;border-radius:.8em;margin-right:.4em}
.legend{color:#57606a;font-size:.88em;max-width:75em}
figure{margin:1em 0}
figure img{max-width:100%;height:auto;border:1px solid #d0d7de}
figcaption{color:#57606a;font-size:.9em}
.missing{border:1px dashed #d0d7de;padding:1em;color:#57606a}
ul.kv{padding-left:1.2em}
nav a{margin-right:.8em}
table.decisions{width:100%;table-layout:fixed}
table.decisions th,table.decisions td{overflow-wrap:break-word}
table.decisions td.n,table.decisions td.nw{white-space:normal}
table.decisions td.shape{min-width:0;max-width:none}
.runline{color:#57606a;font-size:.9em;margin:.2em 0 .5em}
h2#answer{font-size:1.15em;margin:.3em 0 .2em;padding-bottom:.1em}
table.answer{width:100%;font-size:.82em;line-height:1.25;margin-top:.3em}
table.answer th,table.answer td{padding:.1em .4em}
table.answer td.nw,table.answer td.n{white-space:nowrap}
table.answer th.fit{width:1%;white-space:nowrap}
table.answer td.exp{background:#fafbfc;width:9em;max-width:9em}
table.answer .shape{color:#57606a;font-size:.88em}
table.answer td a{color:inherit;text-decoration:none}
table.answer .src{color:#57606a;font-size:.88em}
details>summary{cursor:pointer;color:#57606a}
details[open]>summary{margin-bottom:.3em}
tr.why details p{margin:.2em 0}
p code,li code,figcaption .mono{overflow-wrap:anywhere}
@media (max-width:60em){
body{padding:0 .75em;margin:1em auto}
table.decisions,table.decisions tbody,table.decisions tr,table.decisions td{display:block;width:auto}
table.decisions{border:0}
table.decisions colgroup,table.decisions thead{display:none}
table.decisions tbody.dec{border:1px solid #afb8c1;border-radius:.4em;margin:.8em 0;overflow:hidden}
table.decisions td{border:0;border-top:1px solid #d0d7de;overflow-wrap:anywhere}
table.decisions td.n,table.decisions td.nw{text-align:left}
table.decisions td[data-label]{display:grid;grid-template-columns:minmax(6em,30%) 1fr;column-gap:.6em;padding:.2em .5em}
table.decisions td[data-label]::before{content:attr(data-label);color:#57606a;font-size:.9em;font-weight:400}
table.decisions td[data-label]>.sub{grid-column:2}
table.decisions td.num{background:#f3f5f7;font-weight:600;border-top:0}
table.decisions td.num::before{content:"Decision "}
table.answer,table.answer tbody,table.answer tr,table.answer td{display:block;width:auto;max-width:none}
table.answer{border:0}
table.answer thead{display:none}
table.answer tr{border-bottom:1px solid #d0d7de;padding:.15em 0}
table.answer td{border:0;padding:.05em .4em;white-space:normal;text-align:left}
table.answer td.exp{border-top:2px solid #afb8c1;margin-top:.5em;padding:.2em .4em;width:auto;max-width:none}
table.answer td.nw:not(.claim),table.answer td.n{display:inline-block;margin-right:.4em}
table.answer td.why:empty{display:none}
}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="runline">{{.RunLine}}</p>
{{- if .Incomplete}}
<p class="incomplete"><strong>Incomplete run</strong>: {{.Incomplete}}.</p>
{{- end}}
{{- if .Answers}}
<h2 id="answer">Answer</h2>
<div class="wrap">
<table class="answer">
<thead><tr><th>Experiment</th><th class="fit">Claim (source)</th><th class="fit">Best implementation</th><th class="n fit">Measured ({{$.CI}})</th><th class="fit">Verdict</th><th>Why</th></tr></thead>
<tbody>
{{- range .Answers}}
<tr id="a{{.N}}">{{if .Span}}<td class="exp" rowspan="{{.Span}}"><a href="#exp-{{.Experiment}}">{{.Experiment}}</a><div class="shape">{{range .ShapeParts}}{{.}}<wbr>{{end}}</div></td>{{end}}<td class="nw claim" title="{{.Source}}: {{.Quote}}">{{.Test}} <span class="src">{{.SourceShort}}</span></td><td class="nw"{{if .Compared}} title="best of {{.Compared}}"{{end}}>{{.Judged}}{{if .Of}} <span class="src">of {{.Of}}</span>{{end}}</td><td class="n">{{.Measured}}</td><td class="nw {{.Class}}"><a href="#d{{.N}}">{{.Verdict}}</a></td><td class="why"{{if .Why}} title="{{.Why}}"{{end}}>{{.Why}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- if .AnswersLeftOut}}
<p class="legend">{{.AnswersLeftOut}}</p>
{{- end}}
<details class="legend"><summary>How to read the answer</summary>
<p>{{.Legends.Answer}}</p>
</details>
{{- end}}
<p>Verdicts over {{.Total}} claim-shape pairs{{.IncompleteNote}}: {{range .Counts}}<span class="badge {{.Class}}">{{.N}} {{.Verdict}}</span>{{end}}</p>
{{- if .Absent}}
<p>Not in this run, so not evaluated here: {{.Absent}} (NOT MEASURED in report.json).</p>
{{- end}}
{{- if .Experiments}}
<nav>Experiments: {{range .Experiments}}<a href="#exp-{{.Name}}">{{.Name}}</a>{{end}}<a href="#run">Run</a></nav>
{{- end}}

<h2 id="decisions">Decisions</h2>
<table class="decisions">
<colgroup><col style="width:3em"><col style="width:18%"><col style="width:13%"><col style="width:15%"><col style="width:6%"><col style="width:12%"><col style="width:9.8em"><col style="width:5.4em"><col></colgroup>
<thead><tr><th class="n">#</th><th>Claim (source)</th><th>Shape</th><th>Test</th><th class="n">Theory</th><th class="n">Measured ({{$.CI}})</th><th>Verdict</th><th class="n">Bound</th><th>Limited by</th></tr></thead>
{{- range .Decisions}}
<tbody class="dec">
<tr id="d{{.N}}"><td class="n num" rowspan="2">{{.N}}</td><td class="nw" data-label="Claim (source)">{{.Experiment}}/{{.Claim}}<div class="sub">{{.Source}}</div></td><td class="shape" data-label="Shape"><code>{{.Shape}}</code></td><td data-label="Test"><code>{{.Test}}</code></td><td class="n" data-label="Theory">{{.Theory}}</td><td class="n" data-label="Measured ({{$.CI}})">{{.Measured}}</td><td class="nw {{.Class}}" data-label="Verdict">{{.Verdict}}</td><td class="n" data-label="Bound">{{.Bound}}</td><td data-label="Limited by">{{if .LimitedBy}}{{.LimitedBy}}{{if .Counterfactual}}<div class="sub">had they matched: {{.Counterfactual}}</div>{{end}}{{else}}—{{end}}</td></tr>
<tr class="why"><td colspan="8" class="edge-{{.Class}}"><details><summary>{{.Summary}}</summary><p><b>Reason:</b> {{.Reason}}.</p>{{if .Quantity}}<div class="sub"><b>Decided by:</b> {{.Quantity}}.</div>{{end}}{{if .Quote}}<div class="sub"><b>Quote ({{.Source}}):</b> <q>{{.Quote}}</q></div>{{end}}{{if .Note}}<div class="sub"><b>Note:</b> {{.Note}}.</div>{{end}}</details></td></tr>
</tbody>
{{- end}}
</table>
<details class="legend"><summary>How to read the decisions</summary>
<p>{{.Legends.Decisions}}</p>
</details>
{{- if .ExpCounts}}
<div class="wrap">
<table>
<thead><tr><th>Experiment</th>{{range (index .ExpCounts 0).Counts}}<th class="n">{{.Verdict}}</th>{{end}}</tr></thead>
<tbody>
{{- range .ExpCounts}}
<tr><td><a href="#exp-{{.Name}}">{{.Name}}</a></td>{{range .Counts}}<td class="n{{if .N}} {{.Class}}{{end}}">{{.N}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}

<h2 id="run">Run</h2>
<p>{{.RunLine}}</p>
{{- if .Command}}
<p>Command: <code>{{.Command}}</code></p>
{{- end}}
{{- if .Provenance}}
<ul>{{range .Provenance}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
{{- if .ClaimsFrom}}
<p>Judged against {{.ClaimsFrom}}.</p>
{{- end}}
{{- if .Warnings}}

<h2 id="warnings">Run warnings</h2>
{{template "warnings" .Warnings}}
{{- end}}
{{- if .Notes}}

<h2 id="notes">Run notes (manifest)</h2>
<ul>
{{- range .Notes}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
{{- range .Experiments}}

<h2 id="exp-{{.Name}}">{{.Name}}: {{.Title}}</h2>
<p>{{if .Seeds}}Seeds {{.Seeds}}; baseline{{else}}Baseline{{end}} <code>{{.Baseline}}</code>.{{if not .InRun}} This run has no cell of this experiment: its claims above are NOT MEASURED.{{end}}</p>
{{- if .InRun}}
<h3>Environment</h3>
<ul class="kv">
{{- range .Env}}
<li><b>{{.Key}}:</b> {{.Value}}</li>
{{- end}}
</ul>
{{- $exp := .Name}}
{{- range .Shapes}}
<h3 id="exp-{{$exp}}-{{.Shape}}">{{$exp}} <code>{{.Shape}}</code></h3>
<div class="wrap">
<table>
<thead><tr><th>Variant</th><th>Status</th><th class="n">Kernels</th><th class="n">Elementwise</th><th class="n">GPU time</th><th class="n">Wall ({{$.CI}})</th><th class="n">Device ({{$.CI}})</th><th class="n">SM clock</th><th class="n">Speedup ({{$.CI}})</th><th class="n">p</th><th class="n">Bound</th><th>Class</th><th class="n">Rel. error</th><th>Warnings</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr><td class="nw">{{.Variant}}{{if ne .Role "candidate"}} <span class="sub">({{.Role}})</span>{{end}}</td><td class="{{.StatusClass}}">{{.Status}}{{if .Reason}}<div class="sub">{{.Reason}}</div>{{end}}</td><td class="n">{{.Kernels}}</td><td class="n">{{.Elementwise}}</td><td class="n">{{.GPUTime}}</td><td class="n">{{.Wall}}</td><td class="n">{{.Device}}</td><td class="n">{{.SMClock}}</td><td class="n">{{.Speedup}}</td><td class="n">{{.P}}</td><td class="n">{{.Bound}}</td><td>{{.Class}}</td><td class="n">{{.RelError}}</td><td>{{range $i, $w := .Warnings}}{{if $i}}, {{end}}<span class="warn">{{$w}}</span>{{else}}—{{end}}</td></tr>
{{- end}}
</tbody>
</table>
<table>
<thead><tr><th>Variant</th><th class="n">DRAM</th><th class="n">DRAM theory</th><th class="n">DRAM/theory</th><th class="n">L2 bytes</th><th class="n">Range/kernels</th><th class="n">FLOPs</th><th class="n">FLOPs theory</th><th>Kernels (launch order)</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr><td class="nw">{{.Variant}}</td><td class="n">{{.DRAM}}</td><td class="n">{{.DRAMTheory}}</td><td class="n{{if .ModelOff}} bad{{end}}">{{.ModelRatio}}</td><td class="n">{{.L2}}</td><td class="n{{if .CoveragePartial}} bad{{end}}">{{.Coverage}}</td><td class="n">{{.FLOPs}}</td><td class="n">{{.FTh}}</td><td>{{range $i, $k := .KernelNames}}{{if $i}}, {{end}}<code>{{$k}}</code>{{else}}—{{end}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
<p class="legend">{{$.Legends.Shape}}</p>
{{- if .Plots}}
<h3>Plots</h3>
{{- range .Plots}}
<figure>
{{- if .Src}}
<a href="{{.Path}}" title="full size: {{.Path}}"><img src="{{.Src}}" alt="{{.Title}}"></a>
{{- else}}
<div class="missing">{{.Title}}: {{.Missing}}</div>
{{- end}}
<figcaption>{{.Title}} <span class="mono">({{.Path}})</span></figcaption>
</figure>
{{- end}}
{{- end}}
{{- if .Quality}}
<h3>Kernel quality</h3>
<div class="wrap">
<table>
<thead><tr><th>Variant</th><th>Shape</th><th class="n">GEMM speed of library</th><th class="n">GEMM DRAM of library</th><th>Slowest kernel (share)</th><th class="n">Compute / memory / DRAM SOL</th><th class="n">Elementwise % of DRAM roof</th><th>Quality</th></tr></thead>
<tbody>
{{- range .Quality}}
<tr><td class="nw">{{.Variant}}</td><td><code>{{.Shape}}</code></td><td class="n">{{.GEMMSpeed}}</td><td class="n">{{.GEMMDRAM}}</td><td>{{if ne .Slowest "—"}}<code>{{.Slowest}}</code>{{else}}—{{end}}</td><td class="n">{{.SOL}}</td><td class="n">{{.Elementwise}}</td><td class="nw {{.Class}}">{{.Verdict}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
<p class="legend">{{$.Legends.Quality}}</p>
{{- if .FusionBest}}
<p>Best implementation of each fusion (claims.yaml fusions), per shape: the member whose GEMMs come closest to the library's speed in the same pass; its wall-time speedup against its baseline beside:</p>
<div class="wrap">
<table>
<thead><tr><th>Fusion</th><th>Shape</th><th>Best</th><th class="n">GEMM speed of library</th><th class="n">GEMM DRAM of library</th><th class="n">Speedup</th><th>Of</th></tr></thead>
<tbody>
{{- range .FusionBest}}
<tr><td class="nw">{{index . 0}}</td><td><code>{{index . 1}}</code></td><td class="nw">{{index . 2}}</td><td class="n">{{index . 3}}</td><td class="n">{{index . 4}}</td><td class="n">{{index . 5}}</td><td>{{index . 6}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
{{- if .Limits}}
<p>What limits the slowest kernel, from the same pass, beside the baseline's longest GEMM:</p>
<div class="wrap">
<table>
<thead><tr><th>Variant</th><th>Shape</th><th>Kernel</th><th class="n">L2 hit</th><th class="n">Tensor pipe</th><th class="n">Issue slots</th><th>Top stalls (warps per issue)</th></tr></thead>
<tbody>
{{- range .Limits}}
<tr><td class="nw">{{index . 0}}</td><td>{{if index . 1}}<code>{{index . 1}}</code>{{end}}</td><td class="mono">{{index . 2}}</td><td class="n">{{index . 3}}</td><td class="n">{{index . 4}}</td><td class="n">{{index . 5}}</td><td>{{index . 6}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
<p class="legend">{{$.Legends.Limits}}</p>
{{- end}}
{{- end}}
<h3>Crossover</h3>
{{- if .Crossovers}}
<ul>
{{- range .Crossovers}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- else}}
<p>No sweep crossover found.</p>
{{- end}}
<h3>Warnings</h3>
{{- if .Warnings}}
{{template "warnings" .Warnings}}
{{- else}}
<p>None.</p>
{{- end}}
{{- end}}
{{- end}}
{{- if .TimeTables}}

<h2 id="time">Time</h2>
{{- range .TimeNotes}}
<p>{{.}}</p>
{{- end}}
{{- range .TimeTables}}
<div class="wrap">
<table>
<thead><tr>{{range $i, $h := .Header}}<th{{if $i}} class="n"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range $i, $c := .}}<td{{if $i}} class="n"{{end}}>{{$c}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
{{- end}}
{{- if .Options}}

<h2 id="options">Run options</h2>
<ul class="kv">
{{- range .Options}}
<li><b>{{.Key}}:</b> <code>{{.Value}}</code></li>
{{- end}}
</ul>
{{- end}}
{{- if .Ceilings}}

<h2 id="ceilings">Ceilings</h2>
<div class="wrap">
<table>
<thead><tr><th>Roof</th><th>Kind</th><th class="n">Value</th><th>Source</th></tr></thead>
<tbody>
{{- range .Ceilings}}
<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td class="n">{{index . 2}}</td><td>{{index . 3}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
</body>
</html>
{{define "warnings"}}<ul>
{{- range .}}
<li><code>{{.Code}}</code>{{if .Metric}} ({{.Metric}}){{end}}: {{range $i, $s := .Subjects}}{{if $i}}; {{end}}{{$s}}{{end}}{{if .Subjects}}: {{end}}{{.Msg}}</li>
{{- end}}
</ul>{{end}}`
