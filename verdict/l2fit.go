package verdict

import (
	"fmt"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/spec"
)

// l2SavesShare is the share of a claimed DRAM saving the unfused variant
// must already get for free before a decision says so.
const l2SavesShare = 0.10

// l2AlreadySaves looks, for a DRAM decision, at what the fusion would
// remove under the claims.yaml models (baseline model bytes minus the
// candidate's) and at what the unfused baseline already avoids as measured
// (its model bytes minus its range-pass bytes: intermediates served by L2
// between its kernels). Where the second is a real share of the first, the
// decision says that L2 gives that much of the claimed saving without any
// fused kernel, before one is written.
func (x *index) l2AlreadySaves(e *spec.Experiment, d *Decision) {
	switch d.Metric {
	case MetricDRAMRatio, MetricDRAMReduction, MetricDRAMBytes, MetricElementwiseDRAM:
	default:
		return
	}
	base := d.Baseline
	if base == "" {
		base = e.BaselineFor(d.Candidate)
	}
	bc := x.cells[cellkey.New(e.Name, base, d.Shape)]
	if base == "" || !okCell(bc) || bc.RangePartial {
		return
	}
	thB, ok1 := theoryDRAM(e, base, d.Shape)
	thC, ok2 := theoryDRAM(e, d.Candidate, d.Shape)
	measB, _ := dramOf(bc)
	if !ok1 || !ok2 || measB <= 0 {
		return
	}
	claimed, free := thB-thC, thB-measB
	if claimed <= 0 || free <= 0 || free/claimed < l2SavesShare {
		return
	}
	share := min(free/claimed, 1)
	d.L2AlreadySaves = &share
	left := fmt.Sprintf("at most %s more", figure.Bytes(measB-thC))
	if measB <= thC {
		left = fmt.Sprintf("nothing more (%s already measures no more than the candidate's model, %s)", base, figure.Bytes(thC))
	}
	d.Reason += fmt.Sprintf("; L2 already gives %.0f%% of the saving the models claim: %s measures %s of DRAM against its model's %s, so the fusion can remove %s, not %s",
		100*share, base, figure.Bytes(measB), figure.Bytes(thB), left, figure.Bytes(claimed))
}
