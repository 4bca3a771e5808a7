// Package project sits beside analysis, after it: from one run's facts
// (analysis.Run: its cells and ncu kernel facts) and two catalog GPUs
// (gpu.Spec), it projects each kernel and cell onto the other GPU with a
// per-kernel roofline model (Run), and sets a projection against a run
// measured on that GPU (Projection.Against) to give the model's error. It
// owns its output: the model in words, the text table, CSV and JSON of
// rooftool project. Everything it gives for the target GPU is a
// projection, not a measurement.
//
// It reads analysis's facts and never the reverse: it imports analysis,
// gpu and the leaf packages, nothing of pipeline, roofline, reports,
// launch or cmd. cmd/rooftool's project command calls it on runs pipeline
// loaded and prints what it returns.
package project
