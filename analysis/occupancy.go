package analysis

import "strconv"

// smLimits are the per-SM resource limits of a compute capability (CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability").
type smLimits struct {
	threads, blocks, registers int64
	sharedBytes                int64 // shared memory per SM a kernel can use
}

var smLimitsByCC = map[string]smLimits{
	"7.0":  {2048, 32, 65536, 96 << 10},
	"7.5":  {1024, 16, 65536, 64 << 10},
	"8.0":  {2048, 32, 65536, 164 << 10},
	"8.6":  {1536, 16, 65536, 100 << 10},
	"8.9":  {1536, 24, 65536, 100 << 10},
	"9.0":  {2048, 32, 65536, 228 << 10},
	"10.0": {2048, 32, 65536, 228 << 10},
}

// Register allocation is per warp in units of 256 registers; the driver
// reserves 1 KiB of shared memory per block (compute capability 8.0 on).
const (
	regAllocUnit        = 256
	sharedReservedBlock = 1 << 10
)

// BlocksPerSM is how many blocks of launch l fit on one SM of compute
// capability cc at once (threads, blocks, registers and shared memory all
// counted); 0 where cc's limits or l's block size are unknown. Registers
// or shared memory that l leaves unknown (0) limit nothing.
func BlocksPerSM(l Launch, cc string) int64 {
	lim, ok := smLimitsByCC[cc]
	if !ok || l.BlockThreads <= 0 {
		return 0
	}
	n := min(lim.blocks, lim.threads/l.BlockThreads)
	if l.Registers > 0 {
		warps := (l.BlockThreads + 31) / 32
		perWarp := (l.Registers*32 + regAllocUnit - 1) / regAllocUnit * regAllocUnit
		n = min(n, lim.registers/(perWarp*warps))
	}
	if l.SharedBytes > 0 {
		per := l.SharedBytes
		if major, err := strconv.ParseFloat(cc, 64); err == nil && major >= 8 {
			per += sharedReservedBlock
		}
		n = min(n, lim.sharedBytes/per)
	}
	return max(n, 0)
}

// Waves is how many rounds of blocks the grid of l takes on sms SMs of
// compute capability cc (the last one possibly partial, counted whole);
// 0 where unknown.
func Waves(l Launch, cc string, sms int) int64 {
	per := BlocksPerSM(l, cc) * int64(sms)
	if per <= 0 || l.GridBlocks <= 0 {
		return 0
	}
	return (l.GridBlocks + per - 1) / per
}
