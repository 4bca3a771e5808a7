package verdict

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

func TestCodeDiffers(t *testing.T) {
	code := func(tile, launch string) *rundir.Code {
		return &rundir.Code{Knobs: map[string]string{"ROOFTOOL_FAST_LAUNCH": "1"}, Picks: map[string]string{"cutlass-tile qkv": tile}, Launch: launch}
	}
	ok := func(c *rundir.Code) rundir.PassStatus { return rundir.PassStatus{Status: rundir.StatusOK, Code: c} }
	same := &rundir.Cell{Passes: map[string]rundir.PassStatus{
		rundir.PassTiming: ok(code("256x128x64/1x2", "plan")),
		rundir.PassNCU:    ok(code("256x128x64/1x2", "plan")),
		rundir.PassNsys:   ok(&rundir.Code{Knobs: map[string]string{"ROOFTOOL_FAST_LAUNCH": "1"}}), // reached no pick
	}}
	if w := codeDiffers(same); w != nil {
		t.Errorf("same code flagged: %s", w.Msg)
	}
	// The two CUTLASS tiles run 022317's passes saw (ncu 256x128x64 1x2, nsys 128x256x64 2x1).
	diff := &rundir.Cell{Passes: map[string]rundir.PassStatus{
		rundir.PassTiming: ok(code("256x128x64/1x2", "plan")),
		rundir.PassNCU:    ok(code("256x128x64/1x2", "plan")),
		rundir.PassNsys:   ok(code("128x256x64/2x1", "plan")),
	}}
	w := codeDiffers(diff)
	if w == nil || !strings.Contains(w.Msg, `pick cutlass-tile qkv: nsys="128x256x64/2x1" vs timing,ncu="256x128x64/1x2"`) {
		t.Errorf("different tiles: %v", w)
	}
	// A failed pass's record is not compared.
	diff.Passes[rundir.PassNsys] = rundir.PassStatus{Status: rundir.StatusFailed, Code: code("128x256x64/2x1", "plan")}
	if w := codeDiffers(diff); w != nil {
		t.Errorf("failed pass compared: %s", w.Msg)
	}
}
