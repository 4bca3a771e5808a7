package kernels

import _ "embed"

// CeilingsScript is kernels/ceilings.py, the GPU-side measurement of
// empirical ceilings that `rooftool ceilings` runs (see its docstring for the
// JSON it writes and its exit codes: 0 measured, 3 skipped, 2 bad usage).
//
//go:embed ceilings.py
var CeilingsScript []byte

// CeilingsExitSkipped is the exit status of ceilings.py when there is no CUDA
// device or no torch; its JSON then says why in "skipped".
const CeilingsExitSkipped = 3
