// Package suggest sits beside analysis, after it: from a run's facts
// (analysis.Run: its cells and kernel facts) and the experiment specs'
// dataflow, or from ingested exports (ingest.Tables with their kernel
// facts), it finds the fusion chains a kernel engineer could build — a
// GEMM and the kernels its epilogue could fold, kernels Inductor would
// merge — with what fusing each would save (kernels, DRAM bytes, time),
// and sets those predictions against a run that measured the fused
// variants (CheckSuggestions). It owns its output: Suggestions renders the
// text table, CSV and JSON of rooftool suggest.
//
// It reads analysis's facts and never the reverse: it imports analysis,
// ingest, spec and the leaf packages, nothing of pipeline, roofline,
// reports, launch or cmd. cmd/rooftool's suggest command calls it on what
// pipeline loaded and prints what it returns.
package suggest
