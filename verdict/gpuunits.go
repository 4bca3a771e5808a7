package verdict

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// gpuUnitNote names the GPUs of a claim's two cells where the run recorded
// different units for them (a --gpus run puts each shard's cells on its
// own GPU): the comparison then includes the two units' differences
// (clocks, power, memory), which the decision's reason says. "" where the
// cells share a unit or the run records none.
func (x *index) gpuUnitNote(exp, shape, base, cand string) string {
	if base == "" {
		return ""
	}
	bg, cg := x.cellGPU(exp, base, shape), x.cellGPU(exp, cand, shape)
	if bg == nil || cg == nil || bg.UUID == "" || cg.UUID == "" || bg.UUID == cg.UUID {
		return ""
	}
	return fmt.Sprintf("the cells ran on different GPUs: %s on %s, %s on %s", base, gpuUnit(bg), cand, gpuUnit(cg))
}

func (x *index) cellGPU(exp, variant, shape string) *rundir.CellGPU {
	if c := x.manCells[cellkey.New(exp, variant, shape)]; c != nil {
		return c.GPU
	}
	return nil
}

// gpuUnit is "GPU 1 (GPU-8a0fde08)": the index the run gave it and the
// first block of its UUID.
func gpuUnit(g *rundir.CellGPU) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(g.UUID, "GPU-"), "-")
	if g.Index == "" {
		return "GPU-" + id
	}
	return fmt.Sprintf("GPU %s (GPU-%s)", g.Index, id)
}
