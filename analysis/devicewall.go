package analysis

import (
	"fmt"
	"slices"
)

// WarnDeviceAboveWall: a cell's device-time median (the call replayed from
// a CUDA graph) lies above its wall-time median's 95% interval. One call's GPU work cannot
// outlast the span between the events around it, so the two loops ran in
// different states (clocks, picks) and the device time is not a figure of
// the call the wall time measured. The cell warning names no metric and
// voids nothing by itself; a device-time claim is voided where capping the
// cell's device time at its wall median changes its verdict (reports'
// deviceCheck).
const WarnDeviceAboveWall = "device-above-wall"

// DeviceAboveWall reports whether the cell's device-time median (CUDA-graph
// replay) lies above its wall-time median's whole 95% interval: beyond the
// noise of two loops timing the same GPU work, the device loop was slower
// than the calls the wall loop timed.
func (c *CellFact) DeviceAboveWall() bool {
	return c.Device.N > 0 && c.Wall.N > 0 && c.Wall.Center > 0 && c.Wall.Hi < Unbounded && c.Device.Center > c.Wall.Hi
}

// checkDeviceAboveWall warns where the cell's device-time median lies above
// its wall-time median's interval, with both medians and the device
// samples' range.
func checkDeviceAboveWall(c *CellFact) {
	if !c.DeviceAboveWall() {
		return
	}
	lo, hi := c.Device.Center, c.Device.Center
	if len(c.DeviceSamplesMs) > 0 {
		lo, hi = slices.Min(c.DeviceSamplesMs), slices.Max(c.DeviceSamplesMs)
	}
	c.Warnings = append(c.Warnings, Warning{Code: WarnDeviceAboveWall,
		Msg: fmt.Sprintf("%s: device-time median %.1f us (CUDA-graph replay, samples %.1f-%.1f us) is %.1f%% above the wall-time median %.1f us of the same call (95%% interval up to %.1f us): one call's GPU work cannot outlast its wall time, so the device-time loop ran in another state than the wall-time loop",
			c.Variant, c.Device.Center*1e3, lo*1e3, hi*1e3, 100*(c.Device.Center/c.Wall.Center-1), c.Wall.Center*1e3, c.Wall.Hi*1e3)})
}
