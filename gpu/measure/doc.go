// Package measure measures this machine's empirical ceilings: it runs
// kernels/ceilings.py (embedded in rooftool) on CUDA device 0 with a
// Python that has torch, reads back the gpu.Measured it writes and stores
// it where a run keeps it (RUNDIR/ceilings.json), never half written. It
// also writes them beside the datasheet's peaks, as `rooftool ceilings`
// prints them. It changes no clock and no power limit.
//
// It sits on the ground floor, above package gpu, whose Measured it fills:
// it imports gpu, kernels (the script) and leaf packages, nothing of
// ingest, analysis, launch, pipeline or the outputs.
package measure
