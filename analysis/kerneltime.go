package analysis

// SoftMaxExponent is n of the soft maximum (the n-th root of the sum of
// the terms' n-th powers) that composes a kernel's time from its DRAM
// term and the rest: the projection's default exponent and the exponent
// of suggest's charge for an epilogue read. 1 adds the terms (no
// overlap), a large n nears the largest (the roofline's corner). 2 gave
// the smallest median |error| of the wall times of the committed H100 run
// 2026-11-22-h100-003504 projected onto the H200 run 2026-11-22-h200-004838
// (n = 1, 1.5, 2, 3, 4: 5.0, 4.1, 1.8, 3.3, 4.6%; METHOD.md).
const SoftMaxExponent = 2
