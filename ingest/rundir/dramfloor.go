package rundir

import (
	"fmt"
	"slices"
)

// DRAMFloor checks a cell's range-pass DRAM bytes against the least the
// cell must move (METHOD.md, "The range's DRAM floor"): the DRAM bytes of
// its kernels in the kernel pass, plus the bytes its memory copies and
// memsets move through DRAM inside the same NVTX range (nsys; a copy
// within the device twice, read and write; one to or from the host once),
// less what L2 reuse between them can save: at most one L2 of data each
// kernel or copy finds already cached, and one L2 of writes never written
// back before the range ends ((Kernels + Copies + 1) x L2Bytes). A range
// whose DRAM bytes (the median over its replays) fall below that floor by
// more than their spread over the replays (max - min) is short: ncu lost
// part of the cell's traffic (the copies of a later range in a shared
// process, on ncu 2025.3.1).
type DRAMFloor struct {
	KernelDRAMBytes float64 `json:"kernel_dram_bytes"`           // sum over the ncu kernel pass (caches flushed before each kernel)
	CopyDRAMBytes   float64 `json:"copy_dram_bytes"`             // the range's memcpy and memset DRAM traffic (nsys)
	Kernels         int     `json:"kernels"`                     // kernel-pass rows of the cell
	Copies          int     `json:"copies"`                      // memcpy and memset calls in the range
	L2Bytes         float64 `json:"l2_bytes"`                    // the device's L2 capacity
	ReuseBytes      float64 `json:"reuse_bytes"`                 // (Kernels + Copies + 1) x L2Bytes
	FloorBytes      float64 `json:"floor_bytes"`                 // KernelDRAMBytes + CopyDRAMBytes - ReuseBytes
	RangeDRAMBytes  float64 `json:"range_dram_bytes"`            // median over the range's replays
	SpreadBytes     float64 `json:"spread_bytes"`                // max - min over the range's replays
	Replays         int     `json:"replays"`                     // replays with DRAM bytes
	Short           bool    `json:"short,omitempty"`             // FloorBytes - RangeDRAMBytes > SpreadBytes
	ReplayedAlone   bool    `json:"replayed_alone,omitempty"`    // the launcher replayed the cell alone after a short shared range
	SharedDRAMBytes float64 `json:"shared_dram_bytes,omitempty"` // the shared process's median, where replayed alone
}

// NewDRAMFloor judges replays (each replay's DRAM bytes) against the
// floor of the kernel pass's DRAM bytes, the copies' DRAM bytes and the
// L2 capacity. With no replay nothing is short.
func NewDRAMFloor(kernelDRAM, copyDRAM float64, kernels, copies int, l2 float64, replays []float64) DRAMFloor {
	f := DRAMFloor{KernelDRAMBytes: kernelDRAM, CopyDRAMBytes: copyDRAM, Kernels: kernels, Copies: copies, L2Bytes: l2}
	f.ReuseBytes = float64(kernels+copies+1) * l2
	f.FloorBytes = kernelDRAM + copyDRAM - f.ReuseBytes
	f.Replays = len(replays)
	if len(replays) == 0 {
		return f
	}
	s := slices.Clone(replays)
	slices.Sort(s)
	n := len(s)
	f.RangeDRAMBytes = s[n/2]
	if n%2 == 0 {
		f.RangeDRAMBytes = (s[n/2-1] + s[n/2]) / 2
	}
	f.SpreadBytes = s[n-1] - s[0]
	f.Short = f.FloorBytes-f.RangeDRAMBytes > f.SpreadBytes
	return f
}

// Describe gives the figures: "range 12.89 GB (1 replay, spread 0 GB)
// against a floor of 14.43 GB: kernel pass 12.75 GB + copies and memsets
// 2.147 GB (2) - L2 reuse 0.472 GB (9 x 52.43 MB)".
func (f DRAMFloor) Describe() string {
	replays := fmt.Sprintf("%d replays", f.Replays)
	if f.Replays == 1 {
		replays = "1 replay"
	}
	return fmt.Sprintf("range %.4g GB (%s, spread %.3g GB) against a floor of %.4g GB: kernel pass %.4g GB + copies and memsets %.3f GB (%d) - L2 reuse %.3g GB (%d x %.4g MB)",
		f.RangeDRAMBytes/1e9, replays, f.SpreadBytes/1e9, f.FloorBytes/1e9, f.KernelDRAMBytes/1e9, f.CopyDRAMBytes/1e9, f.Copies,
		f.ReuseBytes/1e9, f.Kernels+f.Copies+1, f.L2Bytes/1e6)
}
