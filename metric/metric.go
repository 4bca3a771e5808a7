// Package metric is rooftool's one vocabulary of Nsight Compute metrics: the
// names the kernel and range passes ask ncu for (Kernel, Range), the names
// ingest gives a role (launch configuration, device attributes) and the
// names analysis, the roofline and the reports read back. It sits at the
// ground floor beside cellkey: it imports no package of the module, and
// launch (which collects), ingest (which reads exports), analysis and the
// packages above it (which compute) all name a metric through it, so a
// metric is spelled once. METHOD.md, "How each number is measured", says
// what each is for.
package metric

// Time, cycles and clocks.
const (
	Duration  = "gpu__time_duration.sum"
	SMCycles  = "sm__cycles_elapsed.avg"
	SMClock   = "sm__cycles_elapsed.avg.per_second"
	DRAMClock = "dram__cycles_elapsed.avg.per_second"
	L2Clock   = "lts__cycles_elapsed.avg.per_second" // the L2 roof is peak bytes/cycle x this
	L1Clock   = "l1tex__cycles_elapsed.avg.per_second"
)

// Bytes per memory level.
const (
	DRAMRead   = "dram__bytes_read.sum"
	DRAMWrite  = "dram__bytes_write.sum"
	DRAMBytes  = "dram__bytes.sum" // read + write, where an export has only the sum
	L2Bytes    = "lts__t_bytes.sum"
	L1Bytes    = "l1tex__t_bytes.sum"
	L1TMABytes = "l1tex__m_xbar2l1tex_read_bytes.sum" // TMA loads bypass l1tex__t on Hopper
)

// This device's own ceilings, per cycle (times the clock of the level).
const (
	PeakSuffix = ".peak_sustained"
	DRAMPeak   = DRAMBytes + PeakSuffix
	L2Peak     = L2Bytes + PeakSuffix
	L1Peak     = L1Bytes + PeakSuffix
	FFMAPeak   = InstPrefixSMSP + "ffma_pred_on.sum" + PeakSuffix
	BF16Peak   = TensorPrefix + "bf16_dst_fp32.sum" + PeakSuffix
)

// Instruction and tensor-operation counts: a prefix, then the operation
// (fadd_pred_on.sum, bf16_dst_fp32.sum, ...).
const (
	InstPrefix     = "sm__sass_thread_inst_executed_op_"
	InstPrefixSMSP = "smsp__sass_thread_inst_executed_op_" // the same counts, summed over SM sub-partitions
	TensorPrefix   = "sm__ops_path_tensor_src_"
	TensorAll      = "sm__ops_path_tensor_*.sum" // how a warning names the tensor counts as one
)

// Speed of light: % of peak over the elapsed cycles.
const (
	PctElapsed    = ".avg.pct_of_peak_sustained_elapsed"
	SOLDRAM       = "dram__throughput" + PctElapsed
	SOLMemory     = "gpu__compute_memory_throughput" + PctElapsed
	SOLL2         = "lts__throughput" + PctElapsed
	SOLL1         = "l1tex__throughput" + PctElapsed
	SOLSM         = "sm__throughput" + PctElapsed
	SOLSMInst     = "sm__instruction_throughput" + PctElapsed
	SOLTensorPipe = "sm__pipe_tensor_cycles_active" + PctElapsed
)

// What holds a kernel back: L2 hit rate, tensor-pipe and issue-slot use, and
// the warp stall reasons (StallPrefix + reason + StallSuffix, cycles per
// issued instruction, as ncu's WarpStateStats section reads them).
const (
	L2HitRate     = "lts__t_sector_hit_rate.pct"
	TensorActive  = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" // every tensor-pipe type, wgmma included
	IssueActive   = "smsp__issue_active.avg.pct_of_peak_sustained_active"
	WarpsPerIssue = "smsp__average_warps_active_per_issue_active.ratio"
	StallPrefix   = "smsp__average_warps_issue_stalled_"
	StallSuffix   = "_per_issue_active.ratio"
)

// Launch configuration.
const (
	GridSize      = "launch__grid_size"
	BlockSize     = "launch__block_size"
	Registers     = "launch__registers_per_thread"
	SmemStatic    = "launch__shared_mem_per_block_static"
	SmemDynamic   = "launch__shared_mem_per_block_dynamic"
	GridX         = "launch__grid_dim_x"
	GridY         = "launch__grid_dim_y"
	GridZ         = "launch__grid_dim_z"
	BlockX        = "launch__block_dim_x"
	BlockY        = "launch__block_dim_y"
	BlockZ        = "launch__block_dim_z"
	LaunchDevice  = "launch__device_id"
	LaunchStream  = "launch__stream_id"
	LaunchContext = "launch__context_id"
)

// Device attributes.
const (
	DeviceName       = "device__attribute_display_name"
	DeviceSMs        = "device__attribute_multiprocessor_count"
	DeviceL2         = "device__attribute_l2_cache_size"
	DeviceMemory     = "device__attribute_total_memory"
	DeviceSMClockKHz = "device__attribute_max_gpu_frequency_khz"
	DeviceMemKHz     = "device__attribute_max_mem_frequency_khz"
	DeviceCCMajor    = "device__attribute_compute_capability_major"
	DeviceCCMinor    = "device__attribute_compute_capability_minor"
	DevicePCIBus     = "device__attribute_pci_bus_id"
	DevicePCIDomain  = "device__attribute_pci_domain_id"
	DevicePCIDevice  = "device__attribute_pci_device_id"
	DeviceClockRate  = "device__attribute_clock_rate"        // kHz, an older name of DeviceSMClockKHz
	DeviceMemRate    = "device__attribute_memory_clock_rate" // kHz, an older name of DeviceMemKHz
)

// Names ncu's details page (--page details) prints for the same facts.
const (
	DetailDRAM        = "DRAM Throughput"         // GPU Speed Of Light Throughput
	DetailMemory      = "Memory Throughput"       // %, GPU Speed Of Light Throughput
	DetailL2          = "L2 Cache Throughput"     //
	DetailL1          = "L1/TEX Cache Throughput" //
	DetailCompute     = "Compute (SM) Throughput" //
	DetailSMFrequency = "SM Frequency"            // Hz
	DetailDRAMFreq    = "DRAM Frequency"          // Hz
)

// Kernel is the kernel pass metric list, chosen for few replay passes. An
// entry with '*' is expanded against `ncu --query-metrics`; names the device
// does not know are dropped with a warning rather than failing the pass.
var Kernel = []string{
	// time, cycles, clocks
	Duration, SMCycles, SMClock, DRAMClock, L2Clock, L1Clock,
	// bytes per level
	DRAMRead, DRAMWrite, L2Bytes, L1Bytes, L1TMABytes,
	// SASS floating-point instruction counts (thread level)
	InstPrefixSMSP + "fadd_pred_on.sum",
	InstPrefixSMSP + "fmul_pred_on.sum",
	InstPrefixSMSP + "ffma_pred_on.sum",
	InstPrefixSMSP + "hadd_pred_on.sum",
	InstPrefixSMSP + "hmul_pred_on.sum",
	InstPrefixSMSP + "hfma_pred_on.sum",
	InstPrefixSMSP + "dadd_pred_on.sum",
	InstPrefixSMSP + "dmul_pred_on.sum",
	InstPrefixSMSP + "dfma_pred_on.sum",
	// tensor core operations (count wgmma on Hopper; names as `ncu
	// --query-metrics` lists them on an H200 with ncu 2025.3: fp16 and fp8
	// carry no _dst_ suffix there)
	TensorPrefix + "bf16_dst_fp32.sum",
	TensorPrefix + "fp16.sum",
	TensorPrefix + "fp8.sum",
	TensorPrefix + "tf32_dst_fp32.sum",
	// speed of light
	SOLSM, SOLMemory, SOLDRAM,
	// this device's own ceilings (per cycle; times the clock above)
	DRAMPeak, L2Peak, L1Peak, FFMAPeak, BF16Peak,
	// what limits a kernel (the report's kernel quality table)
	L2HitRate, TensorActive, IssueActive, WarpsPerIssue, StallPrefix + "*.ratio",
	// launch configuration and device
	GridSize, BlockSize, Registers, DeviceName, DeviceSMs, DeviceL2,
}

// Range is the range pass metric list: time and bytes of the whole NVTX
// range, and the clocks they ran at.
var Range = []string{Duration, DRAMRead, DRAMWrite, L2Bytes, DRAMClock, SMClock}
