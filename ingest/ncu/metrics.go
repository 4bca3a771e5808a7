package ncu

// The metrics of an ncu row: which ones also fill kernel or device columns
// (ncuRoles), how one printed value becomes a number in base units
// (ncuMetricValue, through the units row's unitConv) and what each states
// about its kernel (apply), with the checks at the edge (ncuNonNegative,
// ncuCheckDuration). ncu.go reads the rows and calls these.

import (
	"fmt"
	"math"
	"strings"

	"github.com/rooftool/rooftool/metric"

	"github.com/rooftool/rooftool/ingest"
)

// Metric roles: metrics whose values also fill kernel or gpu columns.
type ncuRole uint8

const (
	roleNone ncuRole = iota
	roleDuration
	roleDurationSOL // details page "Duration": used when gpu__time_duration is absent
	roleRegisters
	roleSmemStatic
	roleSmemDynamic
	roleGridX
	roleGridY
	roleGridZ
	roleBlockX
	roleBlockY
	roleBlockZ
	roleDevice
	roleStream
	roleContext
	roleGPUName
	roleGPUSMs
	roleGPUL2
	roleGPUMem
	roleGPUSMClockKHz
	roleGPUMemClockKHz
	roleGPUCCMajor
	roleGPUCCMinor
	roleGPUPCIBus
	roleGPUPCIDomain
	roleGPUPCIDevice
	roleCycles    // sm__cycles_elapsed.avg: with roleCycleRate, the time when no duration metric is there
	roleCycleRate // sm__cycles_elapsed.avg.per_second
)

// The metrics that give a kernel's time where the export has neither
// gpu__time_duration.sum nor Duration (ncu 2020's default sets):
// cycles / (cycles per second).
const (
	ncuMetricCycles    = metric.SMCycles
	ncuMetricCycleRate = metric.SMClock
)

var ncuRoles = map[string]ncuRole{
	metric.Duration:                   roleDuration,
	"Duration":                        roleDurationSOL,
	metric.Registers:                  roleRegisters,
	"Registers Per Thread":            roleRegisters,
	metric.SmemStatic:                 roleSmemStatic,
	"Static Shared Memory Per Block":  roleSmemStatic,
	metric.SmemDynamic:                roleSmemDynamic,
	"Dynamic Shared Memory Per Block": roleSmemDynamic,
	metric.GridX:                      roleGridX,
	metric.GridY:                      roleGridY,
	metric.GridZ:                      roleGridZ,
	metric.BlockX:                     roleBlockX,
	metric.BlockY:                     roleBlockY,
	metric.BlockZ:                     roleBlockZ,
	metric.LaunchDevice:               roleDevice,
	metric.LaunchStream:               roleStream,
	metric.LaunchContext:              roleContext,
	metric.DeviceName:                 roleGPUName,
	metric.DeviceSMs:                  roleGPUSMs,
	metric.DeviceL2:                   roleGPUL2,
	metric.DeviceMemory:               roleGPUMem,
	metric.DeviceSMClockKHz:           roleGPUSMClockKHz,
	metric.DeviceMemKHz:               roleGPUMemClockKHz,
	metric.DeviceCCMajor:              roleGPUCCMajor,
	metric.DeviceCCMinor:              roleGPUCCMinor,
	metric.DevicePCIBus:               roleGPUPCIBus,
	metric.DevicePCIDomain:            roleGPUPCIDomain,
	metric.DevicePCIDevice:            roleGPUPCIDevice,
	metric.DeviceClockRate:            roleGPUSMClockKHz,
	metric.DeviceMemRate:              roleGPUMemClockKHz,
	ncuMetricCycles:                   roleCycles,
	ncuMetricCycleRate:                roleCycleRate,
}

// apply records what a metric says about its kernel or device. v is in the
// base unit u; text is the value as printed when it is not a number.
func (nk *ncuKernel) apply(role ncuRole, v float64, valid bool, u, text string) {
	k := &nk.k
	// i32 and i64 fill *dst unless a column or metric already did, and
	// mark the kernel column known (bit 0: a gpu fact, which has no bit).
	i32 := func(dst *int32, bit ingest.Nulls) {
		if valid && *dst == 0 && v >= 0 && v <= math.MaxInt32 {
			*dst = int32(v)
			k.Null &^= bit
		}
	}
	i64 := func(dst *int64, bit ingest.Nulls) {
		if valid && *dst == 0 && v >= 0 && v < 1<<62 {
			*dst = int64(math.Round(v))
			k.Null &^= bit
		}
	}
	khz := func(dst *float64) { // CUDA attributes state clocks in kHz
		if !valid || *dst != 0 {
			return
		}
		if u == "Hz" {
			*dst = v
		} else {
			*dst = v * 1e3
		}
		nk.gpuSeen = true
	}
	switch role {
	case roleDuration:
		if valid && u == "ns" {
			k.DurationNs = int64(math.Round(v))
			k.Null &^= ingest.NullDuration
			nk.durSet = true
		}
	case roleDurationSOL:
		if valid && u == "ns" && !nk.durSOLSet {
			nk.durSOL, nk.durSOLSet = v, true
		}
	case roleCycles:
		if valid && u == "cycle" && !nk.cyclesSet {
			nk.cycles, nk.cyclesSet = v, true
		}
	case roleCycleRate:
		if valid && u == "Hz" && v > 0 && !nk.cycleRateSet {
			nk.cycleRate, nk.cycleRateSet = v, true
		}
	case roleRegisters:
		i32(&k.Registers, ingest.NullRegisters)
	case roleSmemStatic:
		i64(&k.StaticSharedBytes, ingest.NullStaticShared)
	case roleSmemDynamic:
		i64(&k.DynSharedBytes, ingest.NullDynShared)
	case roleGridX:
		i32(&k.GridX, ingest.NullGridX)
	case roleGridY:
		i32(&k.GridY, ingest.NullGridY)
	case roleGridZ:
		i32(&k.GridZ, ingest.NullGridZ)
	case roleBlockX:
		i32(&k.BlockX, ingest.NullBlockX)
	case roleBlockY:
		i32(&k.BlockY, ingest.NullBlockY)
	case roleBlockZ:
		i32(&k.BlockZ, ingest.NullBlockZ)
	case roleDevice:
		if !nk.hasDeviceCol {
			i32(&k.Device, ingest.NullDevice)
		}
	case roleStream:
		i64(&k.Stream, ingest.NullStream)
	case roleContext:
		i64(&k.Context, ingest.NullContext)
	case roleGPUName:
		if nk.gpu.Name == "" {
			nk.gpu.Name = strings.TrimSpace(text)
			nk.gpuSeen = true
		}
	case roleGPUSMs:
		i32(&nk.gpu.SMCount, 0)
		nk.gpuSeen = true
	case roleGPUL2:
		i64(&nk.gpu.L2Bytes, 0)
		nk.gpuSeen = true
	case roleGPUMem:
		i64(&nk.gpu.MemoryBytes, 0)
		nk.gpuSeen = true
	case roleGPUSMClockKHz:
		khz(&nk.gpu.SMClockHz)
	case roleGPUMemClockKHz:
		khz(&nk.gpu.MemClockHz)
	case roleGPUCCMajor:
		i32(&nk.gpu.CCMajor, 0)
		nk.gpuSeen = true
	case roleGPUCCMinor:
		i32(&nk.gpu.CCMinor, 0)
		nk.gpuSeen = true
	case roleGPUPCIBus, roleGPUPCIDomain, roleGPUPCIDevice:
		if !valid || v < 0 || v > 1<<31 {
			return
		}
		switch role {
		case roleGPUPCIBus:
			nk.pciBus = int64(v)
		case roleGPUPCIDomain:
			nk.pciDom = int64(v)
		default:
			nk.pciDev = int64(v)
		}
		nk.pciSet |= 1 << (role - roleGPUPCIBus)
	}
}

// ncuNonNegative reports whether a metric cannot be negative: a duration
// (base unit ns), a count (cycles, bytes, instructions, ...) or a metric
// that fills a launch or duration column of the kernel.
func ncuNonNegative(role ncuRole, base string) bool {
	switch role {
	case roleDuration, roleDurationSOL, roleRegisters, roleSmemStatic, roleSmemDynamic,
		roleGridX, roleGridY, roleGridZ, roleBlockX, roleBlockY, roleBlockZ:
		return true
	}
	return base == "ns" || ncuCountUnits[base]
}

// value converts one printed metric value. It returns the value in base
// units, whether it is a number, the text to keep when it is not, and an
// error when a number was required (the metric has a unit) but the value
// is text.
func ncuMetricValue(s string, c unitConv) (v float64, valid bool, text string, bad bool) {
	if x, ok := ncuParseNumber(s); ok {
		return x * c.scale, true, "", false
	}
	t := strings.TrimSpace(s)
	if t == "" || t == "n/a" || t == "N/A" {
		return 0, false, t, false
	}
	if x, ok := ncuParseNumber(t); ok {
		return x * c.scale, true, "", false
	}
	// A unit other than "" says the metric is a quantity.
	return 0, false, t, c.base != ""
}

// ncuMaxDurationNs is the longest kernel time an export may state, 2^62 ns
// (146 years): longer is no measurement, and sums of such times would
// not fit the int64 nanoseconds of the kernels table.
const ncuMaxDurationNs = ingest.MaxKernelNs

// ncuCheckDuration checks the value of a kernel's time metric (role
// roleDuration or roleDurationSOL; other roles pass): printed s, converted
// v, valid when a number, in base unit base. A time without a time unit,
// one that is not a number ("n/a", empty) or is
// out of range is an error: the kernel would be counted with a time it
// does not have.
func ncuCheckDuration(role ncuRole, s string, v float64, valid bool, base string) error {
	if role != roleDuration && role != roleDurationSOL {
		return nil
	}
	switch {
	case base != "ns":
		return fmt.Errorf("kernel time in unit %q, not a time (ns, us, ms, s, ...)", base)
	case !valid:
		return fmt.Errorf("kernel time %q is not a number", strings.TrimSpace(s))
	case v > ncuMaxDurationNs || math.IsInf(v, 0):
		return fmt.Errorf("kernel time %s is out of range (more than 2^62 ns)", strings.TrimSpace(s))
	}
	return nil
}
