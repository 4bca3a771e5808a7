// Package stats sits beside analysis, as suggest and project do, and
// gives what nsys stats gives, from the kernel rows ingest reads rather
// than from analysis's facts. It summarises kernels per NVTX range path
// with the columns of nsys's cuda_gpu_kern_sum (KernelSummary over kernels
// in memory, StreamSummary over a directory of tables read batch by batch,
// SummariseGroups over kernels already grouped, as NsysSummaryGroups
// groups an nsys SQLite export's kernel table), and it reproduces nsys's
// reports cuda_gpu_kern_sum, nvtx_kern_sum, cuda_api_sum,
// cuda_gpu_mem_time_sum and cuda_gpu_mem_size_sum byte for byte (Reports,
// RunReport), their figures rounded as nsys rounds them (NsysRound1). It
// owns its output: the text tables, CSV and JSON of rooftool stats. It
// states no fact of a run (no FLOPs, bytes, bound class or verdict); the
// thresholds of rooftool's statistical comparisons (analysis.Stats) are
// the fact core's and stay there.
//
// It imports ingest and the leaf packages (the layering allows analysis,
// gpu and spec too), nothing of pipeline, roofline, reports, launch or
// cmd, nor suggest or project; analysis imports it not. cmd/rooftool's
// stats command calls it on the exports or tables it was given and prints
// what it returns.
package stats
