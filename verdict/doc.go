// Package verdict decides. It judges each claim of a run's experiments at
// each of its shapes into a Decision (GO, NO-GO, INCONCLUSIVE or NOT
// MEASURED, with the reason) by the rules of METHOD.md: the measured value
// and its interval against the threshold; the warnings that void a metric,
// by metric family; the pass each metric rests on; clocks or GPUs that
// differ between the cells compared; the range-replay rule; the
// implementation-limited rule with its counterfactual; best-of claims,
// judged on a fusion's best member. From the decisions it derives the
// answer table (each claim on its best implementation), and per experiment
// it gives the facts they were judged on: the per-shape table of cells,
// the kernel quality table, the best member of each fusion.
//
// It reads a run loaded and analysed by package pipeline (the facts of
// package analysis, the claims and models of package spec, the manifest,
// checks and clocks) and gives a Result. Package reports renders that
// Result (report.md, report.json, report.html, beside the plots of package
// roofline); rooftool report calls both through reports.Write. Verdict
// draws nothing and writes nothing: no plot, no Markdown or HTML, no file.
// Its reasons state figures through internal/figure, as the renderers
// print them.
//
// Files by job: build.go (Build, the per-shape tables), model.go (Result,
// Decision, CellRow), verdict.go (judging a claim, the void rules),
// metric.go (the claim metrics: family, pass, unit), measure.go (each
// metric measured and under the models), index.go (the run's facts by
// cell), answer.go (the answer table), bestof.go, limited.go,
// counterfactual.go, quality.go (the kernel quality table), dramspread.go
// (range-replay spread and rule), paired.go (paired timing),
// devicecheck.go, l2fit.go, gpuunits.go, code.go (passes that ran
// different code).
package verdict
